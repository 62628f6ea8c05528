#include "test_database.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/registry/device_registry.h"
#ifndef EDGEADMM_TEST_WITHOUT_POSTGRESQL
#include "postgres_cluster.h"
#endif

namespace edgeadmm::testing {
namespace {

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "test support: %s\n", what.c_str());
  std::abort();
}

store::Database OpenOrDie(const std::string& path) {
  auto db = store::Database::Open(path);
  if (!db.ok()) Die("cannot open " + path);
  return std::move(db).value();
}

std::string DatabasePath(Backend backend, const std::string& dir) {
  if (backend == Backend::kSqlite) return dir + "/aggregator.db";
#ifdef EDGEADMM_TEST_WITHOUT_POSTGRESQL
  Die("built without libpq");
#else
  std::string why_not;
  PostgresCluster* cluster = PostgresCluster::Shared(&why_not);
  if (cluster == nullptr) Die(why_not);
  return cluster->CreateDatabase();
#endif
}

}  // namespace

std::string MakeTempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string templ = std::string(base ? base : "/tmp") + "/edgeadmm-XXXXXX";
  if (mkdtemp(templ.data()) == nullptr) Die("mkdtemp failed");
  return templ;
}

const char* BackendName(Backend backend) {
  return backend == Backend::kSqlite ? "sqlite" : "postgresql";
}

bool BackendAvailable(Backend backend, std::string* why_not) {
  if (backend == Backend::kSqlite) return true;
#ifdef EDGEADMM_TEST_WITHOUT_POSTGRESQL
  *why_not = "built without libpq (libpq-dev absent)";
  return false;
#else
  return PostgresCluster::Shared(why_not) != nullptr;
#endif
}

TempDatabase::TempDatabase(Backend backend)
    : dir_(MakeTempDir()),
      path_(DatabasePath(backend, dir_)),
      db_(OpenOrDie(path_)) {}

TempDatabase::~TempDatabase() {
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

void TempDatabase::Reopen() { db_ = OpenOrDie(path_); }

int64_t QueryInt(store::Database& db, const std::string& sql) {
  auto stmt = db.Prepare(sql);
  if (!stmt.ok() || !stmt->StepRow().ok()) Die("query: " + sql);
  return stmt->ColumnInt(0);
}

std::string WriteTestFile(const std::string& name, const std::string& text) {
  const std::string path = std::filesystem::temp_directory_path().string() +
                           "/edgeadmm-" + std::to_string(getpid()) + "-" + name;
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr || std::fputs(text.c_str(), f) < 0 || std::fclose(f) != 0) {
    Die("cannot write " + path);
  }
  return path;
}

std::string Snapshot(store::Database& db) {
  static const char* const kQueries[] = {
      "SELECT id, hex(psk), enabled FROM devices ORDER BY id",
      "SELECT id, name, state, sigma, n FROM jobs ORDER BY id",
      "SELECT job_id, device_id FROM job_devices ORDER BY 1, 2",
      "SELECT job_id, round_id, state, iteration, cohort_size, participants "
      "FROM rounds ORDER BY 1, 2",
      "SELECT job_id, round_id, device_id, hex(digest) FROM uploads "
      "ORDER BY 1, 2, 3",
      "SELECT job_id, iteration, round_id, hex(z), hex(server_state) FROM "
      "models ORDER BY 1, 2",
      "SELECT job_id, scope, round_id, epsilon FROM ledger ORDER BY 1, 2, 3",
  };
  std::string out;
  for (const char* sql : kQueries) {
    auto stmt = db.Prepare(sql);
    if (!stmt.ok()) Die(std::string("snapshot: ") + sql);
    out += sql;
    out += "\n";
    for (;;) {
      auto row = stmt->Step();
      if (!row.ok()) Die("snapshot step");
      if (!*row) break;
      for (int c = 0; c < 6; ++c) out += stmt->ColumnText(c) + "|";
      out += "\n";
    }
  }
  return out;
}

std::vector<std::string> EnrollDevices(store::Database& db, int n) {
  registry::DeviceRegistry reg(db);
  std::vector<std::string> ids;
  for (int i = 0; i < n; ++i) {
    char id[16];
    std::snprintf(id, sizeof(id), "dev-%03d", i);
    if (!reg.Add(id).ok()) Die(std::string("enroll ") + id);
    ids.push_back(id);
  }
  return ids;
}

std::string DefaultPrivacyTable() {
  return "[privacy]\n"
         "policy = \"participation\"\n"
         "clip = 1.0\n"
         "sigma = 2.0\n"
         "delta = 1e-5\n"
         "central_budget = 1000.0\n"
         "device_budget = 1000.0\n";
}

std::string PrivacyTableWithPolicy(const std::string& policy,
                                   const std::string& extra) {
  std::string table = DefaultPrivacyTable();
  const std::string from = "policy = \"participation\"";
  table.replace(table.find(from), from.size(),
                "policy = \"" + policy + "\"\n" + extra);
  return table;
}

int64_t StartEveryoneJob(store::Database& db, const std::string& name,
                         const std::string& privacy_table) {
  // trusted-aggregator releases every round (m_min = 0).
  const bool trusted =
      privacy_table.find("trusted-aggregator") != std::string::npos;
  const int64_t job = CreateJobOrDie(
      db, JobToml(name, "prox-admm", privacy_table,
                  std::string("[sampling]\nscheme = \"poisson\"\nq = 1.0\n") +
                      (trusted ? "m_min = 0\n" : "m_min = 1\n") +
                      "deadline_seconds = 10\n"));
  if (!jobs::SetJobState(db, job, jobs::JobState::kRunning).ok()) {
    Die("start job " + name);
  }
  return job;
}

int64_t StartOneDeviceJob(store::Database& db, const std::string& name,
                          int dimension) {
  std::string toml =
      JobToml(name, "prox-admm", DefaultPrivacyTable(),
              "[sampling]\nscheme = \"fixed\"\nm = 1\nm_min = 1\n"
              "deadline_seconds = 60\nseed = 5\n");
  toml.replace(toml.find("dimension = 3"), 13,
               "dimension = " + std::to_string(dimension));
  const int64_t job = CreateJobOrDie(db, toml);
  if (!jobs::SetJobState(db, job, jobs::JobState::kRunning).ok()) {
    Die("start job " + name);
  }
  return job;
}

std::string DefaultSamplingTable() {
  return "[sampling]\n"
         "scheme = \"fixed\"\n"
         "m = 4\n"
         "m_min = 2\n"
         "deadline_seconds = 10\n"
         "seed = 7\n";
}

std::string JobToml(const std::string& name, const std::string& algorithm,
                    const std::string& privacy_table,
                    const std::string& sampling_table) {
  return "[job]\n"
         "name = \"" +
         name +
         "\"\n"
         "algorithm = \"" +
         algorithm +
         "\"\n"
         "loss = \"logistic\"\n"
         "dimension = 3\n"
         "rounds = 5\n"
         "[regularizer]\n"
         "kind = \"l1\"\n"
         "l1 = 0.01\n"
         "[step]\n"
         "lambda = 0.5\n"
         "gamma = 2.0\n"
         "rho = 1.0\n" +
         privacy_table + sampling_table;
}

namespace {

// A TOML float as a person writes it: 1.0, 8.0, 0.5.
std::string TomlFloat(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.15g", value);
  std::string out = text;
  if (out.find_first_of(".e") == std::string::npos) out += ".0";
  return out;
}

}  // namespace

std::string SecureJobToml(const SecureJob& job) {
  std::string sampling =
      "[sampling]\nscheme = \"fixed\"\nm = " + std::to_string(job.m) +
      "\nm_min = " + std::to_string(job.m_min) +
      "\ndeadline_seconds = " + std::to_string(job.deadline_seconds) + "\n";
  if (job.seed >= 0) sampling += "seed = " + std::to_string(job.seed) + "\n";
  std::string secure =
      "[secure_aggregation]\ndropouts = " + std::to_string(job.dropouts) + "\n";
  if (job.phase_seconds > 0) {
    secure += "phase_seconds = " + std::to_string(job.phase_seconds) + "\n";
  }
  std::string privacy =
      "[privacy]\npolicy = \"secure-aggregation\"\nclip = 1.0\n"
      "target_epsilon = " +
      TomlFloat(job.target_epsilon) +
      "\ndelta = 1e-5\ncentral_budget = 1000.0\ndevice_budget = 1000.0\n";
  if (job.max_colluders >= 0) {
    privacy += "max_colluders = " + std::to_string(job.max_colluders) + "\n";
  }
  return JobToml(job.name, job.algorithm, privacy, sampling) + secure;
}

std::string SecureAggregationJobToml(const std::string& name,
                                     const std::string& algorithm) {
  SecureJob job;
  job.name = name;
  job.algorithm = algorithm;
  job.target_epsilon = 1.0;
  job.max_colluders = 1;
  job.m = 20;
  job.m_min = 18;
  job.deadline_seconds = 10;
  job.dropouts = 2;
  return SecureJobToml(job);
}

std::string SecureProxAdmmJobToml(int m, int m_min, int deadline_seconds,
                                  int dropouts, int phase_seconds, int seed) {
  SecureJob job;
  job.m = m;
  job.m_min = m_min;
  job.deadline_seconds = deadline_seconds;
  job.dropouts = dropouts;
  job.phase_seconds = phase_seconds;
  job.seed = seed;
  return SecureJobToml(job);
}

std::string ReplaceOnce(std::string text, const std::string& from,
                        const std::string& to) {
  const size_t at = text.find(from);
  // A test whose text lacks `from` would not test what it says.
  if (at == std::string::npos)
    Die("ReplaceOnce: no \"" + from + "\" in the text");
  text.replace(at, from.size(), to);
  return text;
}

int64_t CreateJobOrDie(store::Database& db, const std::string& toml) {
  auto config = jobs::ParseJobConfig(toml);
  if (!config.ok()) Die("job config: " + config.error().message());
  auto id = jobs::CreateJob(db, *config, toml);
  if (!id.ok()) Die("create job");
  return *id;
}

}  // namespace edgeadmm::testing
