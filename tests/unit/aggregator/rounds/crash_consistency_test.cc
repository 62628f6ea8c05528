// Crash consistency of the round engine: a child process trains a job and is
// SIGKILLed at random instants (mid-round, mid-commit) again and again; after
// every kill the store must satisfy the invariants a power cut must not
// break (every committed model with its validation scores among them), and
// the job must finish after the last restart.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmath>
#include <map>
#include <random>

#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/rounds/round_engine.h"
#include "edgeadmm/store/blob.h"
#include "test_database.h"

namespace edgeadmm::rounds {
namespace {

constexpr int kDevices = 10;
constexpr int kRounds = 600;
constexpr int kKills = 24;

int64_t NowMs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return ts.tv_sec * 1000 + ts.tv_nsec / 1'000'000;
}

std::vector<double> DeltaFor(const std::string& device, int64_t round_id) {
  const double d = static_cast<double>(device.back() - '0');
  return {d / 8 - 0.5, static_cast<double>(round_id % 7) / 16, 0.25};
}

// The child: resume the job and train until it completes. Never returns.
[[noreturn]] void TrainInChild(const std::string& path, int64_t job_id) {
  auto db = store::Database::Open(path);
  if (!db.ok()) _exit(2);
  PrivacyRoundAccountant accountant;
  auto engine = RoundEngine::Open(*db, job_id, accountant);
  if (!engine.ok()) _exit(3);
  RoundEngine& e = **engine;
  // Every model is scored in its commit (one validation record a = e1).
  DenseDataset one;
  one.dim = 3;
  one.samples = 1;
  one.features = {1, 0, 0};
  one.labels = {1};
  const Validator validator(jobs::Loss::kLogistic, one);
  e.set_validator(&validator);
  for (;;) {
    if (!e.Advance(NowMs()).ok()) _exit(4);
    if (e.job().state != jobs::JobState::kRunning) _exit(0);
    for (const std::string& d : e.CohortForTesting()) {
      Upload u{d,
               job_id,
               e.round_id(),
               store::EncodeFloats(DeltaFor(d, e.round_id())),
               {}};
      if (!IsSuccess(e.Submit(d, u, NowMs()))) _exit(5);
    }
  }
}

// Runs one training child; kills it after `kill_after_us` (< 0: never).
// Returns true if the kill landed before the child finished on its own.
bool RunChild(const std::string& path, int64_t job_id, int kill_after_us) {
  const pid_t pid = fork();
  if (pid == 0) TrainInChild(path, job_id);
  if (kill_after_us >= 0) {
    usleep(static_cast<useconds_t>(kill_after_us));
    kill(pid, SIGKILL);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) return true;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "child failed with exit code " << WEXITSTATUS(status);
  return false;
}

struct Checker {
  store::Database& db;
  int64_t job_id;
  double last_central_epsilon = 0;
  int64_t last_iteration = 0;

  int64_t Int(const std::string& sql) {
    auto stmt = db.Prepare(sql);
    EXPECT_TRUE(stmt.ok()) << sql;
    EXPECT_TRUE(stmt->StepRow().ok()) << sql;
    return stmt->ColumnInt(0);
  }

  void Check() {
    // At most the round in flight is left open.
    EXPECT_LE(Int("SELECT count(*) FROM rounds WHERE state = 'open'"), 1);
    // Uploads only for committed rounds and the one in flight (each stored
    // before its receipt); one per device and round (the primary key);
    // participants match.
    EXPECT_EQ(Int("SELECT count(*) FROM uploads u JOIN rounds r USING "
                  "(job_id, round_id) WHERE r.state NOT IN ('committed', "
                  "'open')"),
              0);
    EXPECT_EQ(Int("SELECT count(*) FROM rounds r WHERE state = 'committed' "
                  "AND participants != (SELECT count(*) FROM uploads u WHERE "
                  "u.job_id = r.job_id AND u.round_id = r.round_id)"),
              0);
    // Models: iterations 0..K without gaps, one per committed round.
    const int64_t k = Int("SELECT max(iteration) FROM models");
    EXPECT_EQ(Int("SELECT count(*) FROM models"), k + 1);
    EXPECT_EQ(Int("SELECT count(*) FROM rounds WHERE state = 'committed'"), k);
    EXPECT_EQ(Int("SELECT count(*) FROM ledger WHERE scope = 'central'"), k);
    EXPECT_GE(k, last_iteration) << "a committed round disappeared";
    // Every committed model has its validation scores: they are written in
    // the round's transaction, never after it.
    EXPECT_EQ(Int("SELECT count(*) FROM models WHERE iteration > 0 AND "
                  "(validation_loss IS NULL OR validation_accuracy IS NULL)"),
              0);
    last_iteration = k;
    // Ledger: every scope non-decreasing over rounds; central never drops
    // across restarts.
    EXPECT_EQ(Int("SELECT count(*) FROM ledger a JOIN ledger b ON a.job_id = "
                  "b.job_id AND a.scope = b.scope AND a.round_id < b.round_id "
                  "WHERE a.epsilon > b.epsilon"),
              0);
    auto central = db.Prepare(
        "SELECT coalesce(max(epsilon), 0) FROM ledger WHERE scope = "
        "'central'");
    ASSERT_TRUE(central.ok());
    ASSERT_TRUE(central->StepRow().ok());
    EXPECT_GE(central->ColumnDouble(0), last_central_epsilon);
    last_central_epsilon = central->ColumnDouble(0);
    // No upload counted twice or lost: the stored ŝ equals (1/n)·Σ of the
    // committed rounds' uploads (paper 002, pitfall P3).
    std::vector<double> s(3, 0.0);
    auto uploads = db.Prepare(
        "SELECT u.payload FROM uploads u JOIN rounds r USING (job_id, "
        "round_id) WHERE r.state = 'committed'");
    ASSERT_TRUE(uploads.ok());
    for (;;) {
      auto row = uploads->Step();
      ASSERT_TRUE(row.ok());
      if (!*row) break;
      auto delta = store::DecodeFloats(uploads->ColumnBlob(0));
      ASSERT_TRUE(delta.ok());
      for (int j = 0; j < 3; ++j) s[j] += (*delta)[j] / kDevices;
    }
    auto model = db.Prepare(
        "SELECT server_state FROM models ORDER BY iteration DESC LIMIT 1");
    ASSERT_TRUE(model.ok());
    ASSERT_TRUE(model->StepRow().ok());
    auto stored = store::DecodeDoubles(model->ColumnBlob(0));
    ASSERT_TRUE(stored.ok());
    for (int j = 0; j < 3; ++j) EXPECT_NEAR((*stored)[j], s[j], 1e-9);
  }
};

TEST(CrashConsistencyTest, SigkillLoopKeepsInvariantsAndJobCompletes) {
  testing::TempDatabase t;
  testing::EnrollDevices(t.db(), kDevices);
  const std::string sampling =
      "[sampling]\nscheme = \"fixed\"\nm = 4\nm_min = 2\n"
      "deadline_seconds = 10\n";
  std::string toml = testing::JobToml("crash", "prox-admm",
                                      testing::DefaultPrivacyTable(), sampling);
  toml.replace(toml.find("rounds = 5"), 10,
               "rounds = " + std::to_string(kRounds));
  // 600 rounds pass ε = 600, the accountant's cap: only an unlimited budget
  // lets the job complete (this test is about consistency, not budgets:
  // an audit job, the only kind allowed an uncapped central ledger).
  for (const char* key :
       {"central_budget = 1000.0", "device_budget = 1000.0"}) {
    const std::string k = key;
    toml.replace(toml.find(k), k.size(), k.substr(0, k.find('=') + 2) + "inf");
  }
  toml.replace(toml.find("[sampling]"), 0, "audit = true\n");
  toml += "[validation]\ndata = \"/gateway/v.libsvm\"\n";
  const int64_t job_id = testing::CreateJobOrDie(t.db(), toml);
  ASSERT_TRUE(jobs::SetJobState(t.db(), job_id, jobs::JobState::kRunning).ok());

  Checker checker{t.db(), job_id};
  std::mt19937 delays(12345);  // test scheduling only, not privacy noise
  // Short delays: on an idle machine a child commits about one round per
  // millisecond, and the job must still be running after kKills kills.
  std::uniform_int_distribution<int> delay_us(1'000, 12'000);
  int kills = 0;
  for (int attempt = 0; attempt < 4 * kKills && kills < kKills; ++attempt) {
    if (RunChild(t.path(), job_id, delay_us(delays))) ++kills;
    checker.Check();
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GE(kills, 20);
  // The last restart runs to the end.
  EXPECT_FALSE(RunChild(t.path(), job_id, -1));
  checker.Check();
  auto job = jobs::LoadJob(t.db(), job_id);
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->state, jobs::JobState::kCompleted);
  EXPECT_EQ(checker.last_iteration, kRounds);
  std::printf("crash test: %d SIGKILLs, %lld lost rounds\n", kills,
              static_cast<long long>(
                  checker.Int("SELECT count(*) FROM rounds WHERE state = "
                              "'lost'")));
}

}  // namespace
}  // namespace edgeadmm::rounds
