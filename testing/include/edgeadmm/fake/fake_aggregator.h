// FakeAggregator: an in-process aggregator for client tests and the fleet
// simulator, serving the resources of docs/protocol.md to LoopbackTransports.
//
// It runs paper 002 Alg. 3 with r = 0 on the server: every accepted Δu is
// added to the running sum of u, and AdvanceRound() releases z = (1/n) Σ u_i
// (the mean over all n enrolled devices, paper 002 eq. (5);
// docs/architecture.md). It keeps the upload bookkeeping a real aggregator must
// get right, so tests can assert exactly-once delivery: per device the round
// and CRC-32 of the last accepted upload; a byte-identical repeat is
// answered 2.04 + duplicate (also after its round closed, so a device whose
// receipt was lost learns that its upload counted), a different body for an
// accepted (device, job, round) is 4.09, an upload for another round 4.12. (A
// real aggregator compares a cryptographic hash; CRC-32 is enough for tests.)
//
// Memory is the caller's: a device table (open addressing, 2x the devices is
// a good size) and the model, sum and decode buffers of `dim` Reals. No heap.
#pragma once

#include <edgeadmm.pb.h>

#include <cstddef>
#include <cstdint>

#include "edgeadmm/fake/coap_endpoint.h"
#include "edgeadmm/real.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"
#include "edgeadmm/wire/protocol.h"

namespace edgeadmm {

struct FakeAggregatorConfig {
  uint64_t job_id = 1;
  uint64_t first_round = 1;
  bool squared_loss = false;  // logistic otherwise
  // Paper 002 Alg. 3 parameters sent in every task.
  Real lambda = 0.5;
  Real gamma = 1.0;
  Real clip = 1.0;
  Real sigma = 1.0;
  uint32_t deadline_ms = 60000;
  // RoundTask.upload_spread_ms of a participating plain round's task.
  uint32_t upload_spread_ms = 0;
  // Sent in every participating task when set (RoundTask field 20).
  bool secure_aggregation = false;
  edgeadmm_wire_SecureAggregationPlan plan =
      edgeadmm_wire_SecureAggregationPlan_init_zero;
};

// One enrolled device and what the aggregator saw from it.
struct FakeDeviceEntry {
  char id[wire::kMaxDeviceIdLength + 1];
  bool used;
  bool in_cohort;           // gets ROLE_PARTICIPATE (else ROLE_IDLE)
  uint64_t accepted_round;  // round of the last accepted upload (0: none)
  uint32_t accepted_crc;    // CRC-32 and size of that upload's bytes
  uint32_t accepted_size;
  uint32_t accepted;    // uploads accepted (first copies)
  uint32_t duplicates;  // byte-identical repeats answered 2.04
  uint32_t conflicts;   // different bytes for an accepted round: 4.09
  uint32_t stale;       // uploads for another round: 4.12
  uint32_t reports;     // StatusBody reports received (POST v1/status)
  uint32_t last_report_code;
};

struct FakeAggregatorTotals {
  uint64_t accepted = 0;
  uint64_t duplicates = 0;
  uint64_t conflicts = 0;
  uint64_t stale = 0;
  uint64_t rejected = 0;  // 4.00 / 4.03 / 4.04 / 4.05
  uint64_t reports = 0;
};

class FakeAggregator final : public CoapEndpoint {
 public:
  // `table` holds the devices (must be larger than the number enrolled);
  // `model`, `u_sum` and `scratch` hold `dim` Reals each. `model` is the
  // initial z.
  FakeAggregator(const FakeAggregatorConfig& config,
                 Span<FakeDeviceEntry> table, Span<Real> model,
                 Span<Real> u_sum, Span<Real> scratch);

  // Enrols a device (in the cohort). INVALID_ARGUMENT for a bad id,
  // ALREADY_EXISTS if enrolled, RESOURCE_EXHAUSTED if the table is 3/4 full.
  Status AddDevice(const char* id);
  // The entry of an enrolled device, or nullptr.
  FakeDeviceEntry* Find(const char* id);

  // Closes the open round: z = (1/n) Σ u_i, next round id, notifies
  // observers.
  void AdvanceRound();
  // Ends the job: every task becomes ROLE_DONE.
  void Finish();
  // Starts the next job (job id + 1) on the same devices and model: rounds
  // from first_round again, no upload accepted in it yet.
  void StartNextJob();

  uint64_t round() const { return round_; }
  size_t devices() const { return devices_; }
  // Uploads accepted for the open round.
  size_t accepted_this_round() const { return accepted_this_round_; }
  const FakeAggregatorTotals& totals() const { return totals_; }
  Span<const Real> model() const { return model_; }
  // The job the last task request named (v1/task/<name> or
  // v1/task?job=<name>; "" for v1/task).
  const char* last_task_job() const { return last_task_job_; }

  CoapResponse Handle(const char* identity, const TransportRequest& request,
                      ByteSpan out) override;
  uint64_t ResourceVersion(const char* identity, const char* path) override;

 private:
  CoapResponse HandleTask(const FakeDeviceEntry& device, ByteSpan out);
  CoapResponse HandleUpdate(FakeDeviceEntry& device,
                            const TransportRequest& request, ByteSpan out);
  CoapResponse HandleReport(FakeDeviceEntry& device,
                            const TransportRequest& request, ByteSpan out);
  CoapResponse Reply(uint8_t code, Status status, const char* message,
                     bool duplicate, ByteSpan out);
  size_t Slot(const char* id) const;

  FakeAggregatorConfig config_;
  Span<FakeDeviceEntry> table_;
  Span<Real> model_;
  Span<Real> u_sum_;
  Span<Real> scratch_;
  size_t devices_ = 0;
  uint64_t round_;
  bool finished_ = false;
  uint64_t version_ = 1;
  size_t accepted_this_round_ = 0;
  FakeAggregatorTotals totals_;
  char last_task_job_[wire::kMaxJobNameLength + 1] = {};
};

}  // namespace edgeadmm
