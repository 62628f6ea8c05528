// Paired-seed noise for benchmarks (`edgeadmm-fleet connect
// --unsafe-paired-seed`): the entropy of device i's DRBG in round r is a
// function of (seed, i, r) only, so two runs with the same seed draw the same
// noise for every (device, round) whatever the timing, and two fleets (e.g.
// float32 against double) can be compared pairwise.
//
// PairedSeedEntropy is an EntropySource (the SDK's entropy port) whose bytes
// are the blocks HMAC-SHA-256(seed, "edgeadmm-paired-seed" 0 id 0 r k),
// k = 0, 1, ... (r and k big-endian, 8 and 4 bytes). The client seeds its
// trainer's DRBG from the port right before each local step
// (DeviceClient::PrepareTrainer); PairedSeedTransport, a Transport decorator,
// decodes every task the device receives and restarts the entropy stream at
// k = 0 of that task's round, so that seeding reads the round's first bytes.
// Before the first task the entropy is UNAVAILABLE (no step runs on it).
//
// UNSAFE: whoever knows the seed knows every noise value; the uploads carry
// no privacy. Linux fleet tool only: neither the SDK, the Linux device
// (edgeadmm-device) nor the firmware can reach it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "edgeadmm/entropy_source.h"
#include "edgeadmm/real.h"
#include "edgeadmm/transport.h"

namespace edgeadmm::fleet {

class PairedSeedEntropy final : public EntropySource {
 public:
  // `seed`: the HMAC key (non-empty); `device_id`: the device's id.
  PairedSeedEntropy(std::vector<uint8_t> seed, std::string device_id);

  // Restarts the stream at block 0 of round `round`.
  void BeginRound(uint64_t round);
  // Fills `out` from the stream; UNAVAILABLE before BeginRound or if the
  // HMAC fails.
  Status Read(ByteSpan out) override;

  // Rounds begun so far (a run's check that the option took effect).
  uint64_t rounds_begun() const { return rounds_begun_; }

 private:
  bool RefillBlock();

  std::vector<uint8_t> seed_;
  std::string device_id_;
  uint64_t round_ = 0;
  uint64_t rounds_begun_ = 0;
  uint32_t counter_ = 0;
  unsigned char block_[32] = {};
  size_t used_ = sizeof(block_);
};

// Forwards everything to `inner`; a task (v1/task, fetched or observed) that
// decodes makes `entropy` begin its round. Does not stream (streams_bodies()
// is false), like the fleet's other decorators.
class PairedSeedTransport final : public Transport {
 public:
  // `inner` and `entropy` must outlive this decorator.
  PairedSeedTransport(Transport& inner, PairedSeedEntropy& entropy)
      : inner_(inner), entropy_(entropy) {}

  Status StartRequest(const TransportRequest& request,
                      ByteSpan response_buffer) override;
  bool TakeResult(TransportResult& result) override;
  void Cancel() override;
  Status StartObserve(const char* path, ByteSpan notification_buffer) override;
  bool TakeNotification(TransportResult& result) override;
  void StopObserve() override { inner_.StopObserve(); }
  void Reconnect() override { inner_.Reconnect(); }
  StatusWithSize Poll(uint32_t timeout_ms) override {
    return inner_.Poll(timeout_ms);
  }

 private:
  // Begins the round of `result`'s task in `buffer`, if it is one.
  void Notice(const TransportResult& result, ByteSpan buffer);

  Transport& inner_;
  PairedSeedEntropy& entropy_;
  ByteSpan fetch_buffer_;                // the task fetch in flight, if any
  ByteSpan observe_buffer_;              // the task observation's buffer
  std::vector<Real> model_, auxiliary_;  // decode scratch
};

}  // namespace edgeadmm::fleet
