// CoapServer's loop: each I/O pass and each tick made durable before
// anything they send leaves (group commit and write batches:
// docs/security.md, "Group commit" and "Write batches").
#include <optional>

#include "coap_server_impl.h"
#include "edgeadmm/log.h"
#include "edgeadmm/posix/monotonic_clock.h"
#include "edgeadmm/server/coap_server.h"
#include "edgeadmm/server/held_sends.h"
#include "edgeadmm/store/write_batch.h"

namespace edgeadmm::server {

bool CoapServer::MakeDurableSoFar() {
  uint64_t commits = group_->pending();
  if (pass_batch_ != nullptr) {
    if (!pass_batch_->Commit().ok()) return false;
    commits = pass_batch_->TakeCommitted();
  }
  if (!group_->Sync().ok()) return false;
  if (commits > 0) impl_->metrics.CountGroupCommit(commits);
  return true;
}

template <typename Step>
Status CoapServer::Durably(Step&& step, bool batched) {
  if (!group_ || !group_->armed()) return step();
  Status status;
  uint64_t commits = 0;
  {
    HeldSends::Scope hold(impl_->held);
    std::optional<store::WriteBatch> batch;
    if (batched) {
      batch.emplace(*db_);
      pass_batch_ = &*batch;
    }
    status = step();
    pass_batch_ = nullptr;
    // Under the state lock like the requests' writes, so that the lock's
    // CPU time counts the commit as serial work too.
    const bool committed = [&] {
      const StateLock lock(impl_->state);
      return !batch || batch->Commit().ok();
    }();
    if (!committed) {
      // The pass's transactions are gone, and the engines' memory counts
      // them (accepted uploads, charges): no answer of the pass may leave,
      // and this server must stop (docs/security.md, "Write batches").
      impl_->held.Discard();
      impl_->metrics.set_held_sends_dropped(impl_->held.dropped());
      EDGEADMM_LOG_ERROR(
          "server: the I/O pass's write batch was lost (%s): its answers "
          "are dropped and the server stops",
          db_->LastError().c_str());
      return Status::DataLoss();
    }
    // A batch's requests count one each (its COMMIT is one SQLite commit).
    commits =
        batch && batch->open() ? batch->TakeCommitted() : group_->pending();
  }
  if (!group_->Sync().ok()) {
    // The step's writes are not known to be on disk: none of its answers
    // may claim so. The devices ask again; a later step whose sync
    // succeeds answers them (docs/security.md, "Group commit").
    impl_->held.Discard();
    impl_->metrics.set_held_sends_dropped(impl_->held.dropped());
    if (!sync_failing_) {
      EDGEADMM_LOG_ERROR(
          "server: the WAL sync after %llu commits failed: answers are "
          "dropped until a sync succeeds",
          static_cast<unsigned long long>(commits));
    }
    sync_failing_ = true;
    return status;
  }
  if (sync_failing_) EDGEADMM_LOG_INFO("server: the WAL syncs again");
  sync_failing_ = false;
  if (commits > 0) impl_->metrics.CountGroupCommit(commits);
  impl_->held.Flush();
  impl_->metrics.set_held_sends_dropped(impl_->held.dropped());
  return status;
}

Status CoapServer::RunOnce(int timeout_ms) {
  // The pass's receipts go out before the engine's tick (a round's commit
  // runs there, after its last receipt), each after its own fsync.
  EDGEADMM_TRY(
      Durably([&] { return RunShards(timeout_ms); }, options_.write_batch));
  // The tick's writes stay outside a batch: the engine retries a failed
  // one in place.
  const Status ticked = Durably(
      [&] {
        const StateLock lock(impl_->state);
        return Tick();
      },
      false);
  if (!sync_failing_) jobs_.CountCommitDelays(NowMs());  // else when durable
  return ticked;
}

Status CoapServer::Run(const volatile std::sig_atomic_t* stop) {
  while (*stop == 0) {
    // Wake at least every 100 ms for deadlines and job changes.
    EDGEADMM_TRY(RunOnce(100));
  }
  WriteMetricsIfDue(static_cast<int64_t>(posix::MonotonicMs()), true);
  EDGEADMM_LOG_INFO("server: shutting down");
  return Status::Ok();
}

}  // namespace edgeadmm::server
