// A Linux device program built against the installed SDK.
//   edgeadmm_consumer              seeds a DRBG from getrandom, runs one
//                                  private prox-ADMM local step on a
//                                  four-record data set and sizes a
//                                  DeviceClient and its DTLS-PSK link
//   edgeadmm_consumer --device HOST PORT IDENTITY PSK_FILE STATE_DIR
//                                  trains in the job of a real aggregator
//                                  until it is done (device_run.cc)
// Exits 0 when every result is as expected, 1 otherwise.
#include <edgeadmm.pb.h>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "device_run.h"
#include "edgeadmm/dataset_view.h"
#include "edgeadmm/device_client.h"
#include "edgeadmm/discrete_gaussian_sampler.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/dtls/dtls_psk_link.h"
#include "edgeadmm/gaussian_sampler.h"
#include "edgeadmm/loss.h"
#include "edgeadmm/posix/getrandom_entropy.h"
#include "edgeadmm/prox_admm_step.h"
#include "edgeadmm/workspace.h"

namespace {

constexpr size_t kRecords = 4;
constexpr size_t kDim = 3;

int Fail(const char* what) {
  std::fprintf(stderr, "edgeadmm_consumer: %s\n", what);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace edgeadmm;
  if (argc == 7 && std::strcmp(argv[1], "--device") == 0) {
    consumer::DeviceArgs args;
    args.host = argv[2];
    args.port = static_cast<uint16_t>(std::atoi(argv[3]));
    args.identity = argv[4];
    args.psk_file = argv[5];
    args.state_dir = argv[6];
    return consumer::RunDevice(args);
  }
  if (argc != 1) return Fail("usage: edgeadmm_consumer [--device ...]");
  const Real features[kRecords * kDim] = {1.0, 0.5,  -0.2, -0.8, 0.1, 0.4,
                                          0.3, -0.9, 0.7,  0.2,  0.6, -0.5};
  const Real labels[kRecords] = {1, -1, 1, -1};
  auto view = DatasetView::Create(features, labels, kRecords, kDim);
  if (!view.ok()) return Fail("DatasetView::Create");

  constexpr size_t kBytes =
      ProxAdmmStep::WorkspaceBytes(LossKind::kLogistic, kRecords, kDim);
  alignas(Workspace::kAlignment) static std::byte memory[kBytes];
  Workspace workspace{ByteSpan(memory, kBytes)};
  ProxAdmmStep step;
  if (!step.Init(workspace, *view, Loss{}).ok()) return Fail("step Init");

  GetrandomEntropy entropy;
  Drbg drbg;
  if (!drbg.Init(entropy, ConstByteSpan()).ok()) return Fail("Drbg Init");
  DiscreteGaussianSampler noise{drbg};

  Real z[kDim] = {0, 0, 0};
  Real u[kDim] = {0, 0, 0};
  Real delta_u[kDim] = {};
  ProxAdmmParams params;
  params.clip = 1.0;
  params.sigma = 0.5;
  auto report = step.Run(params, z, u, noise, delta_u);
  if (!report.ok()) return Fail("step Run");
  for (Real v : delta_u) {
    if (!std::isfinite(v)) return Fail("non-finite delta_u");
  }
  if (!(report->step_norm > 0)) return Fail("zero step");

  DeviceClient client;
  const size_t client_bytes = DeviceClient::MemoryBytes(kDim);
  if (client_bytes == 0) return Fail("DeviceClient::MemoryBytes");
  std::printf(
      "edgeadmm_consumer: local step |x-z| = %.4f clipped=%d, "
      "DeviceClient needs %zu bytes, DtlsPskLink %zu bytes, Update %zu bytes\n",
      static_cast<double>(report->step_norm), report->clipped ? 1 : 0,
      client_bytes, sizeof(dtls::DtlsPskLink), sizeof(edgeadmm_wire_Update));
  return 0;
}
