// MetricsFileWriter: writes the metrics file (WriteMetricsFile) on a thread
// of its own, so that a slow or hung file system never stalls the daemon's
// loop: one rename can take 0.49 s on ext4 beside a `dd ... conv=fsync`,
// and a `.tmp` that is a FIFO, or a hung network mount, blocks for good.
//
// Submit hands over the newest text and returns at once. A write under way
// finishes first; of the texts submitted meanwhile only the newest is
// written (a scrape wants the latest counters). A failure is logged once
// (WARN) until a write succeeds again (INFO).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace edgeadmm::server {

class MetricsFileWriter {
 public:
  static constexpr int64_t kShutdownWaitMs = 5'000;

  explicit MetricsFileWriter(std::string path,
                             int64_t shutdown_wait_ms = kShutdownWaitMs);
  // Waits up to shutdown_wait_ms for what was submitted to be written (a
  // clean shutdown's last write); a write still blocked then is left to its
  // thread, which ends with the process.
  ~MetricsFileWriter();
  MetricsFileWriter(const MetricsFileWriter&) = delete;
  MetricsFileWriter& operator=(const MetricsFileWriter&) = delete;

  // The text to write next (replaces a text not yet taken).
  void Submit(std::string text);
  // Waits up to `timeout_ms` until every submitted text was written or
  // failed; true if so.
  bool WaitWritten(int64_t timeout_ms);
  // Texts written and writes failed so far.
  uint64_t written() const;
  uint64_t failed() const;

 private:
  struct Shared;  // held by the thread too, so that it may outlive this
  static void Run(const std::shared_ptr<Shared>& shared);  // the thread
  int64_t shutdown_wait_ms_;
  std::shared_ptr<Shared> shared_;
};

}  // namespace edgeadmm::server
