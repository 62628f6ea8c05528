// Shared by the fleet end-to-end tests: enroll N devices with PSK files, cut
// an a9a subset, run a job with the real daemon over DTLS on loopback and
// the fleet's DeviceClients until every device saw the end of the job.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "edgeadmm/dataio/dense_dataset.h"
#include "edgeadmm/fleet/daemon_fleet.h"
#include "edgeadmm/fleet/data_split.h"
#include "edgeadmm/local_trainer.h"
#include "test_database.h"

namespace edgeadmm::testing {

// EDGEADMM_DATA, or ../shared/data.
std::string DataDir();
// v rounded to float32, as on the wire.
double RoundToFloat(double v);

struct FleetSetup {
  std::string psk_dir;  // one hex PSK file per device (dev-000, dev-001, ...)
  std::string subset;   // the first `records` lines of a9a (LIBSVM)
};

// Enrolls `devices` devices in `t`'s registry, writes their PSK files and
// the a9a subset under t.dir(). Fails the test (ADD_FAILURE) on error.
FleetSetup PrepareFleet(TempDatabase& t, int devices, size_t records);

struct FleetRunResult {
  bool ok = false;
  int64_t job = 0;
  fleet::DaemonFleetReport report;
  int daemon_exit = -1;
};

// Creates job `toml` (started), runs the daemon and the fleet (with
// `allow_unaccounted_steps` for σ = 0 runs) until every device is done or
// `timeout_s` passed, then SIGTERMs the daemon and reopens `t`.
// `adjust` may change the fleet's config before the run (e.g. the data's
// normalization, the devices' pp-admm schedule); `daemon_toml` is appended
// to the daemon's config after its [server] keys (more [server] keys, then
// other tables).
FleetRunResult RunJobOverDtls(
    TempDatabase& t, const FleetSetup& setup, const std::string& toml,
    bool allow_unaccounted_steps, int timeout_s,
    const std::function<void(fleet::DaemonFleetConfig&)>& adjust = {},
    const std::string& daemon_toml = "");

// The run worked, every one of `devices` saw the end of the job, none
// refused a step, and the daemon exited cleanly.
void ExpectCleanRun(const FleetRunResult& run, int devices);

// F(z) = mean logistic loss + (l2/2)||z||² on `data`.
double RidgeLogisticObjective(const DenseDataset& data,
                              const std::vector<double>& z, double l2);
// argmin F: prox_{s·mean loss}(0) at s = 1/l2 (the SDK's Newton-CG prox
// solver); fails the test if it does not converge.
std::vector<double> RidgeLogisticOptimum(const DenseDataset& data, double l2);

// One device of an in-process reference run: the trainer re-initialised for
// `algorithm` (logistic, job 1, σ = 0 allowed) on the device's shard, with
// its persisted `state` loaded unless empty. Returns whether it had a state.
bool BeginReferenceStep(LocalTrainer& trainer,
                        std::vector<std::byte>& workspace,
                        AlgorithmKind algorithm, const DenseDataset& data,
                        const fleet::RecordRange& shard,
                        const std::vector<std::byte>& state,
                        EntropySource& entropy);
// Persists the trainer's state after the step, as the client does.
void EndReferenceStep(LocalTrainer& trainer, std::vector<std::byte>& state);

}  // namespace edgeadmm::testing
