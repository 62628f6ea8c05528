// Durable receipts under write failures (docs/security.md, "Durable receipts
// and write failures"), tested the way SQLite tests itself: a VFS shim
// fails the k-th write (full disk, read-only file system) or fsync of a
// round and every one after it, for k = 0, 1, 2, ... until a round completes
// without reaching it; the disk then heals. After every k the store must
// equal a fault-free run's: no acknowledged upload lost, no charge missing
// or doubled, the round committed once, the engine still running.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <string>

#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/rounds/round_engine.h"
#include "edgeadmm/store/blob.h"
#include "edgeadmm/store/transaction.h"
#include "faulty_vfs.h"
#include "test_database.h"

namespace edgeadmm::rounds {
namespace {

using testing::FaultyVfs;

constexpr int64_t kStart = 1000;

Upload UploadFor(const RoundEngine& e, const std::string& device) {
  const double d = static_cast<double>(device.back() - '0');
  Upload u;
  u.device_id = device;
  u.job_id = e.job().id;
  u.round_id = e.round_id();
  u.vector = store::EncodeFloats({d / 8, -0.25, (d - 2) / 4});
  return u;
}

// Everything a round leaves in the store that must not depend on the
// faults (the model's z does: its noise is drawn again on a retry).
std::string Outcome(store::Database& db) {
  struct Query {
    const char* sql;
    int columns;
  };
  std::string out;
  for (const Query& q :
       {Query{"SELECT round_id, state, cohort_size, participants FROM rounds "
              "ORDER BY round_id",
              4},
        Query{"SELECT round_id, device_id, hex(payload), hex(digest) FROM "
              "uploads ORDER BY round_id, device_id",
              4},
        Query{"SELECT iteration, round_id FROM models ORDER BY iteration", 2},
        Query{"SELECT scope, round_id, epsilon, length(rdp) FROM ledger ORDER BY "
              "scope, round_id",
              4}}) {
    auto stmt = db.Prepare(q.sql);
    EXPECT_TRUE(stmt.ok()) << q.sql;
    if (!stmt.ok()) continue;
    out += std::string(q.sql) + "\n";
    for (;;) {
      auto row = stmt->Step();
      EXPECT_TRUE(row.ok());
      if (!row.ok() || !*row) break;
      for (int c = 0; c < q.columns; ++c) {
        out += (stmt->ColumnIsNull(c) ? "NULL" : stmt->ColumnText(c)) + "|";
      }
      out += "\n";
    }
  }
  return out;
}

// What one run saw.
struct RoundRun {
  bool fault_reached = false;
  std::string outcome;
};

// A prox-admm job: the cohort of round 1 uploads (a refused upload is
// retried after the 5.03, as a device does), the engine closes the round
// on its ticks and opens round 2, then restarts. With `k` >= 0 the k-th
// write (or fsync) from the first upload on fails, and every later one,
// until the disk heals after the first failed tick.
RoundRun RunRound(int64_t k, FaultyVfs::Fault fault) {
  FaultyVfs& vfs = FaultyVfs::Install();
  vfs.Heal();
  RoundRun run;
  testing::TempDatabase t;
  testing::EnrollDevices(t.db(), 6);
  const int64_t job = testing::CreateJobOrDie(
      t.db(), testing::JobToml("job", "prox-admm",
                               testing::DefaultPrivacyTable(),
                               testing::DefaultSamplingTable()));
  EXPECT_TRUE(jobs::SetJobState(t.db(), job, jobs::JobState::kRunning).ok());
  PrivacyRoundAccountant accountant;
  auto opened = RoundEngine::Open(t.db(), job, accountant);
  EXPECT_TRUE(opened.ok());
  if (!opened.ok()) return run;
  std::unique_ptr<RoundEngine> engine = std::move(opened).value();
  engine->set_close_in_advance(true);  // as the daemon runs it
  int64_t now = kStart;
  EXPECT_TRUE(engine->Advance(now).ok());
  const int64_t round = engine->round_id();
  const std::vector<std::string> cohort = engine->CohortForTesting();
  if (k >= 0) vfs.FailFrom(k, fault);

  std::set<std::string> acked;
  // Ticks of 1 s (the engine's retry interval) within the round's 10 s,
  // until round 1 committed and round 2 opened.
  for (int tick = 0; tick < 8 && (engine->round_id() == round ||
                                  engine->store_failing());
       ++tick) {
    for (const std::string& d : cohort) {
      if (engine->round_id() != round) break;
      const UploadVerdict v = engine->Submit(d, UploadFor(*engine, d), now);
      if (acked.count(d) != 0) {
        // A retransmission of an acknowledged upload (its receipt was
        // lost) gets its receipt again, also while the store fails.
        EXPECT_EQ(v, UploadVerdict::kDuplicate) << d << " tick " << tick;
      } else if (v == UploadVerdict::kAccepted) {
        acked.insert(d);
      } else {
        // Refused, so not acknowledged: the device keeps it and retries.
        EXPECT_EQ(v, UploadVerdict::kStoreUnavailable) << d;
      }
    }
    const Status advanced = engine->Advance(now);
    // A failed tick is the engine's to retry; it stays up and says so.
    EXPECT_EQ(advanced.ok(), !engine->store_failing());
    if (vfs.failures() > 0 && !run.fault_reached) {
      run.fault_reached = true;
      vfs.Heal();
    }
    now += RoundEngine::kWriteRetryMs;
  }
  vfs.Heal();
  EXPECT_FALSE(engine->store_failing());
  EXPECT_EQ(acked.size(), cohort.size());
  EXPECT_EQ(engine->iteration(), 1) << "round " << round << " not committed";
  EXPECT_TRUE(engine->round_open());
  EXPECT_NE(engine->round_id(), round);
  // A restart finds what the engine had.
  engine.reset();
  t.Reopen();
  auto again = RoundEngine::Open(t.db(), job, accountant);
  EXPECT_TRUE(again.ok());
  if (again.ok()) {
    EXPECT_EQ((*again)->iteration(), 1);
    EXPECT_GT((*again)->central_epsilon(), 0);
  }
  run.outcome = Outcome(t.db());
  return run;
}

// SQLite rolls a transaction back itself after SQLITE_FULL or an I/O error
// in COMMIT; the Transaction must not ROLLBACK again (the daemon logged
// "cannot rollback - no transaction is active" before it exited).
TEST(TransactionFaultTest, AFailedCommitIsRolledBackOnceAndTheNextOneWorks) {
  FaultyVfs& vfs = FaultyVfs::Install();
  vfs.Heal();
  testing::TempDatabase t;
  ASSERT_TRUE(t.db().Exec("CREATE TABLE t(x BLOB)").ok());
  const std::vector<uint8_t> page(8192, 7);
  for (const FaultyVfs::Fault fault :
       {FaultyVfs::Fault::kFull, FaultyVfs::Fault::kReadOnly,
        FaultyVfs::Fault::kSync}) {
    ::testing::internal::CaptureStderr();
    {
      vfs.FailFrom(0, fault);
      auto tx = store::Transaction::Begin(t.db());
      ASSERT_TRUE(tx.ok());
      auto insert = t.db().Prepare("INSERT INTO t VALUES (?)");
      ASSERT_TRUE(insert.ok());
      insert->BindBlob(1, page);
      const Status inserted = insert->Run();
      EXPECT_FALSE(inserted.ok() && tx->Commit().ok());
    }
    const std::string log = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(log.find("cannot rollback"), std::string::npos) << log;
    EXPECT_GT(vfs.failures(), 0);
    vfs.Heal();
    EXPECT_EQ(testing::QueryInt(t.db(), "SELECT count(*) FROM t"), 0);
    auto tx = store::Transaction::Begin(t.db());
    ASSERT_TRUE(tx.ok());
    ASSERT_TRUE(t.db().Exec("INSERT INTO t VALUES (x'01')").ok());
    ASSERT_TRUE(tx->Commit().ok());
    ASSERT_TRUE(t.db().Exec("DELETE FROM t").ok());
  }
}

class WriteFaultTest : public ::testing::TestWithParam<FaultyVfs::Fault> {};

TEST_P(WriteFaultTest, EveryWriteOfARoundFailsOnceInTurn) {
  const RoundRun reference = RunRound(-1, GetParam());
  ASSERT_FALSE(::testing::Test::HasFailure());
  int64_t k = 0;
  for (; k < 400; ++k) {
    const RoundRun run = RunRound(k, GetParam());
    if (!run.fault_reached) break;
    EXPECT_EQ(run.outcome, reference.outcome) << "failing from I/O call " << k;
    if (::testing::Test::HasFailure()) return;
  }
  // The round has that many writes (syncs): each was the first to fail once.
  EXPECT_GT(k, 3);
  EXPECT_LT(k, 400);
  std::printf("%lld I/O calls of the round failed in turn\n",
              static_cast<long long>(k));
}

INSTANTIATE_TEST_SUITE_P(Faults, WriteFaultTest,
                         ::testing::Values(FaultyVfs::Fault::kFull,
                                           FaultyVfs::Fault::kReadOnly,
                                           FaultyVfs::Fault::kSync),
                         [](const auto& param_info) {
                           switch (param_info.param) {
                             case FaultyVfs::Fault::kFull:
                               return "DiskFull";
                             case FaultyVfs::Fault::kReadOnly:
                               return "ReadOnly";
                             case FaultyVfs::Fault::kSync:
                               return "FsyncFails";
                           }
                           return "Unknown";
                         });

}  // namespace
}  // namespace edgeadmm::rounds
