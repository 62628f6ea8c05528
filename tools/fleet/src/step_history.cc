#include "edgeadmm/fleet/step_history.h"

#include <cmath>
#include <cstddef>
#include <vector>

#include "edgeadmm/client_record.h"
#include "edgeadmm/device_state.h"
#include "edgeadmm/wire/update.h"

namespace edgeadmm::fleet {

Status AppendStepHistory(Storage& storage, size_t record_bytes, double delta,
                         std::FILE* out) {
  std::vector<std::byte> record(record_bytes);
  const StatusWithSize read =
      storage.Read("client", ByteSpan(record.data(), record.size()));
  if (!read.ok()) return Status::DataLoss();
  ClientRecordView view;
  EDGEADMM_TRY(
      ParseClientRecord(ConstByteSpan(record.data(), read.size()), view));
  EDGEADMM_TRY_ASSIGN(const DeviceStateInfo info,
                      InspectDeviceState(view.state));
  std::vector<Real> primary(info.primary_dim), secondary(info.secondary_dim);
  DeviceState state;
  state.primary = Span<Real>(primary.data(), primary.size());
  state.secondary = Span<Real>(secondary.data(), secondary.size());
  EDGEADMM_TRY(DeserializeDeviceState(view.state, state));
  const Result<double> epsilon = state.ledger.Epsilon(delta);
  const double eps = epsilon.ok() ? *epsilon : INFINITY;
  // The ε the device reports on the wire: its pending upload's ledger.
  double sent = NAN;
  if (view.has_pending) {
    std::vector<Real> vector(view.upload.size() / 4 + 1);
    wire::DecodedUpdate update;
    if (wire::DecodeUpdate(view.upload,
                           Span<Real>(vector.data(), vector.size()), update)
            .ok()) {
      sent = update.header.ledger.epsilon;
    }
  }
  bool ok = std::fprintf(out, "%llu\t%lu\t%.17g\t%.17g",
                         static_cast<unsigned long long>(state.last_round),
                         static_cast<unsigned long>(state.local_iteration), eps,
                         sent) > 0;
  for (const Real v : primary) {
    ok = ok && std::fprintf(out, "\t%.17g", static_cast<double>(v)) > 0;
  }
  ok = ok && std::fputc('\n', out) != EOF && std::fflush(out) == 0;
  return ok ? Status::Ok() : Status::Unavailable();
}

}  // namespace edgeadmm::fleet
