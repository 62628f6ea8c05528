// SecAggRoundLog: the append-only file that lets SecAggService survive a
// daemon restart. It records what the gateway already holds, in arrival
// order: the round's parameters and cohort, every accepted phase message
// (the frame as the device sent it) and every phase close; replaying it
// into a fresh SecAggRound rebuilds the same state (docs/protocol.md,
// "Secure aggregation phases"). The file is removed when the round ends
// or aborts. Records, little-endian: type (1: 0 start, 1 message, 2
// close), phase (1), device (4), length (4), bytes; a torn last record (a
// crash mid-write) is ignored. Each append is flushed and fsync'd before
// the device's message is answered. Not thread-safe.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "edgeadmm/host/error.h"
#include "edgeadmm/secure_aggregation/secagg_round.h"

namespace edgeadmm::server {

struct SecAggLogRecord {
  uint8_t type = 0;  // 1 message, 2 close
  uint8_t phase = 0;
  uint32_t device = 0;
  std::vector<uint8_t> bytes;
};

struct SecAggLogContents {
  secure_aggregation::SecAggRoundParams params;
  std::vector<std::string> identities;
  int64_t phase_ms = 0;
  std::vector<SecAggLogRecord> records;
};

class SecAggRoundLog {
 public:
  SecAggRoundLog() = default;
  SecAggRoundLog(const SecAggRoundLog&) = delete;
  SecAggRoundLog& operator=(const SecAggRoundLog&) = delete;
  ~SecAggRoundLog();

  // Creates (truncates) `path` with the start record.
  host::Error Create(const std::string& path,
                     const secure_aggregation::SecAggRoundParams& params,
                     const std::vector<std::string>& identities,
                     int64_t phase_ms);
  // Reopens `path` for appending after Read.
  host::Error Reopen(const std::string& path);
  host::Error Message(int phase, uint32_t device, const uint8_t* body,
                      size_t size);
  host::Error Closed(int phase);
  // Closes and deletes the file.
  void Remove();
  bool open() const { return file_ != nullptr; }

  // NOT_FOUND without a file; DATA_LOSS for a bad start record.
  static host::ErrorOr<SecAggLogContents> Read(const std::string& path);

 private:
  host::Error Append(uint8_t type, uint8_t phase, uint32_t device,
                     const uint8_t* bytes, size_t size);
  std::FILE* file_ = nullptr;
  std::string path_;
};

}  // namespace edgeadmm::server
