// Test helpers: a database in a fresh temporary folder, a text snapshot of
// every table (to prove that a refused request changed nothing), an enrolled
// fleet and a job config.
#pragma once

#include <string>
#include <vector>

#include "edgeadmm/jobs/job_config.h"
#include "edgeadmm/store/database.h"

namespace edgeadmm::testing {

// The store backends the tests run against.
enum class Backend { kSqlite, kPostgres };
// "sqlite" / "postgresql", for parameterized test names.
const char* BackendName(Backend backend);
// Both backends, for INSTANTIATE_TEST_SUITE_P.
inline constexpr Backend kBackends[] = {Backend::kSqlite, Backend::kPostgres};

// False, with the reason in *why_not, if `backend` cannot run here (the
// PostgreSQL server binaries are absent).
bool BackendAvailable(Backend backend, std::string* why_not);

// A fresh folder under $TMPDIR (or /tmp) of the test's own (aborts the
// test binary on failure).
std::string MakeTempDir();

class TempDatabase {
 public:
  // Creates a temporary folder and opens `aggregator.db` in it (aborts the
  // test binary on failure); on PostgreSQL, a fresh database in the test
  // binary's cluster (postgres_cluster.h) instead of the file.
  explicit TempDatabase(Backend backend = Backend::kSqlite);
  ~TempDatabase();
  store::Database& db() { return db_; }
  // The file, or the PostgreSQL URI.
  const std::string& path() const { return path_; }
  const std::string& dir() const { return dir_; }
  // Closes and reopens the connection (what a restart does).
  void Reopen();

 private:
  std::string dir_;
  std::string path_;
  store::Database db_;
};

// Every row of every table, in primary-key order, as text.
std::string Snapshot(store::Database& db);

// The first column of the first row of `sql` (aborts on an error).
int64_t QueryInt(store::Database& db, const std::string& sql);

// Writes `text` to `name` in the test's temporary folder; returns the path.
std::string WriteTestFile(const std::string& name, const std::string& text);

// Enrolls devices "dev-000" .. "dev-<n-1>" and returns their ids.
std::vector<std::string> EnrollDevices(store::Database& db, int n);

// A valid TOML job (p = 3, 5 rounds, L1) with the given [privacy] and
// [sampling] tables.
std::string JobToml(const std::string& name, const std::string& algorithm,
                    const std::string& privacy_table,
                    const std::string& sampling_table);

// The default privacy and sampling tables of JobToml.
std::string DefaultPrivacyTable();
std::string DefaultSamplingTable();

// A job under privacy.policy "secure-aggregation" (clip 1, delta 1e-5,
// budgets 1000) with fixed sampling; max_colluders and seed are written only
// when >= 0, phase_seconds only when > 0.
struct SecureJob {
  std::string name = "secure";
  std::string algorithm = "prox-admm";
  double target_epsilon = 8.0;
  int max_colluders = -1;
  int m = 20;
  int m_min = 18;
  int deadline_seconds = 10;
  int dropouts = 2;
  int phase_seconds = 0;
  int seed = -1;
};
std::string SecureJobToml(const SecureJob& job);

// SecureJobToml with target_epsilon 1, t = 1, m = 20, D = 2 (m_min = 18).
std::string SecureAggregationJobToml(const std::string& name,
                                     const std::string& algorithm);

// SecureJobToml of a prox-admm job at target_epsilon 8 with these values.
std::string SecureProxAdmmJobToml(int m, int m_min, int deadline_seconds,
                                  int dropouts, int phase_seconds,
                                  int seed = -1);

// `text` with the first `from` replaced by `to`; exits the test binary
// when `from` is absent.
std::string ReplaceOnce(std::string text, const std::string& from,
                        const std::string& to);

// DefaultPrivacyTable with policy `policy` and the extra lines `extra`.
std::string PrivacyTableWithPolicy(const std::string& policy,
                                   const std::string& extra = "");

// Creates and starts (state running) prox-admm job `name` with
// `privacy_table` and a cohort of every device (Poisson q = 1, m_min = 1,
// or 0 under trusted-aggregator);
// returns its id.
int64_t StartEveryoneJob(store::Database& db, const std::string& name,
                         const std::string& privacy_table);

// Creates and starts (state running) prox-admm job `name` of dimension
// `dimension` whose every round samples one device (fixed m = 1, m_min = 1,
// 60 s deadline, seed 5); returns its id.
int64_t StartOneDeviceJob(store::Database& db, const std::string& name,
                          int dimension = 3);

// Parses `toml` (must be valid) and creates the job; returns its id.
int64_t CreateJobOrDie(store::Database& db, const std::string& toml);

}  // namespace edgeadmm::testing
