#include "edgeadmm/posix/coap_shard_set.h"

#include <coap3/coap.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "edgeadmm/posix/monotonic_clock.h"

namespace edgeadmm::posix {

CoapShardSet::CoapShardSet(size_t threads)
    : poll_fd_(epoll_create1(EPOLL_CLOEXEC)) {
  for (size_t t = 1; t < std::max<size_t>(threads, 1); ++t) {
    workers_.emplace_back([this, t] { Work(t); });
  }
}

CoapShardSet::~CoapShardSet() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  start_.notify_all();
  for (std::thread& worker : workers_) worker.join();
  if (poll_fd_ >= 0) close(poll_fd_);
}

bool CoapShardSet::Add(coap_context_t* context, CoapBatchedIo* io) {
  if (poll_fd_ < 0 || context == nullptr) return false;
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.u64 = shards_.size();  // the shard's index
  const int fd =
      io != nullptr ? io->epoll_fd() : coap_context_get_coap_fd(context);
  if (fd < 0 || epoll_ctl(poll_fd_, EPOLL_CTL_ADD, fd, &event) != 0) {
    return false;
  }
  shards_.push_back(Shard{context, io, 0, {}});
  ready_.resize(shards_.size());
  chosen_.resize(shards_.size());
  return true;
}

bool CoapShardSet::Pass(Shard& shard) {
  ++shard.passes;
  shard.last_thread = std::this_thread::get_id();
  const int spent = shard.io != nullptr
                        ? shard.io->Process(0)
                        : coap_io_process(shard.context, COAP_IO_NO_WAIT);
  return spent >= 0;
}

bool CoapShardSet::PassShare(size_t thread) {
  bool ok = true;
  for (size_t i = thread; i < shards_.size(); i += threads()) {
    if (chosen_[i] && !Pass(shards_[i])) ok = false;
  }
  return ok;
}

void CoapShardSet::Work(size_t thread) {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
    }
    bool ok = true;
    if (scope_) {
      scope_([&] { ok = PassShare(thread); });
    } else {
      ok = PassShare(thread);
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!ok) failed_ = true;
      --running_;
    }
    done_.notify_one();
  }
}

int CoapShardSet::RunOnce(int timeout_ms) {
  if (poll_fd_ < 0 || shards_.empty()) return -1;
  auto now = static_cast<int64_t>(MonotonicMs());
  int64_t wait = timeout_ms;
  for (const Shard& shard : shards_) {
    wait = std::min(wait, shard.io != nullptr ? shard.io->MsUntilWalk(now) : 0);
  }
  const int n =
      epoll_wait(poll_fd_, ready_.data(), static_cast<int>(ready_.size()),
                 static_cast<int>(std::max<int64_t>(0, wait)));
  if (n < 0 && errno != EINTR) return -1;
  std::fill(chosen_.begin(), chosen_.end(), false);
  for (int i = 0; i < n; ++i) {
    const uint64_t index = ready_[i].data.u64;
    if (index < chosen_.size()) chosen_[index] = true;
  }
  now = static_cast<int64_t>(MonotonicMs());
  int passes = 0;
  bool helped = false;  // a worker has a share
  for (size_t i = 0; i < shards_.size(); ++i) {
    const Shard& shard = shards_[i];
    // An idle shard's timers are armed on libcoap's timer fd.
    if (!chosen_[i] && shard.io != nullptr && shard.io->MsUntilWalk(now) > 0) {
      continue;
    }
    chosen_[i] = true;
    if (i % threads() != 0) helped = true;
    ++passes;
  }
  if (helped) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      // Every worker wakes; one without a share ends at once.
      running_ = workers_.size();
      failed_ = false;
      ++generation_;
    }
    start_.notify_all();
  }
  bool ok = PassShare(0);
  if (helped) {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return running_ == 0; });
    if (failed_) ok = false;
  }
  return ok ? passes : -1;
}

void CoapShardSet::RequestWalks() {
  for (Shard& shard : shards_) {
    if (shard.io != nullptr) shard.io->RequestWalk();
  }
}

}  // namespace edgeadmm::posix
