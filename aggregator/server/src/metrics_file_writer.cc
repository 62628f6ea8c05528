#include "edgeadmm/server/metrics_file_writer.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <utility>

#include "edgeadmm/log.h"
#include "edgeadmm/server/metrics_file.h"

namespace edgeadmm::server {

struct MetricsFileWriter::Shared {
  explicit Shared(std::string p) : path(std::move(p)) {}
  const std::string path;
  std::mutex mutex;
  std::condition_variable wake;     // a text was submitted, or stopping
  std::condition_variable settled;  // a write ended
  std::string pending;
  bool has_pending = false;
  bool writing = false;
  bool stopping = false;
  uint64_t written = 0;
  uint64_t failed = 0;
};

void MetricsFileWriter::Run(const std::shared_ptr<Shared>& shared) {
  auto& s = *shared;
  bool failing = false;  // the last write failed (logged once)
  std::unique_lock<std::mutex> lock(s.mutex);
  for (;;) {
    s.wake.wait(lock, [&] { return s.has_pending || s.stopping; });
    if (!s.has_pending) return;  // stopping, nothing left
    std::string text = std::move(s.pending);
    s.has_pending = false;
    s.writing = true;
    lock.unlock();
    const host::Error result = WriteMetricsFile(s.path, text);
    if (!result.ok() && !failing) {
      EDGEADMM_LOG_WARN("server: metrics not written (%s); retrying",
                        result.message().c_str());
    } else if (result.ok() && failing) {
      EDGEADMM_LOG_INFO("server: metrics written again to %s", s.path.c_str());
    }
    failing = !result.ok();
    lock.lock();
    s.writing = false;
    ++(result.ok() ? s.written : s.failed);
    s.settled.notify_all();
  }
}

MetricsFileWriter::MetricsFileWriter(std::string path, int64_t shutdown_wait_ms)
    : shutdown_wait_ms_(shutdown_wait_ms),
      shared_(std::make_shared<Shared>(std::move(path))) {
  // Detached: the thread owns a reference to the shared state, so a write
  // blocked at shutdown cannot touch freed memory.
  std::thread([shared = shared_] { Run(shared); }).detach();
}

MetricsFileWriter::~MetricsFileWriter() {
  WaitWritten(shutdown_wait_ms_);
  const std::lock_guard<std::mutex> lock(shared_->mutex);
  shared_->stopping = true;
  shared_->wake.notify_all();
}

void MetricsFileWriter::Submit(std::string text) {
  const std::lock_guard<std::mutex> lock(shared_->mutex);
  shared_->pending = std::move(text);
  shared_->has_pending = true;
  shared_->wake.notify_all();
}

bool MetricsFileWriter::WaitWritten(int64_t timeout_ms) {
  std::unique_lock<std::mutex> lock(shared_->mutex);
  return shared_->settled.wait_for(
      lock, std::chrono::milliseconds(timeout_ms),
      [&] { return !shared_->has_pending && !shared_->writing; });
}

uint64_t MetricsFileWriter::written() const {
  const std::lock_guard<std::mutex> lock(shared_->mutex);
  return shared_->written;
}

uint64_t MetricsFileWriter::failed() const {
  const std::lock_guard<std::mutex> lock(shared_->mutex);
  return shared_->failed;
}

}  // namespace edgeadmm::server
