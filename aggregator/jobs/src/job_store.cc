#include "edgeadmm/jobs/job_store.h"

#include <ctime>

#include "edgeadmm/algorithms/registry.h"
#include "edgeadmm/log.h"
#include "edgeadmm/store/blob.h"
#include "edgeadmm/store/transaction.h"

namespace edgeadmm::jobs {
namespace {

// The devices a new job enrols: enabled, id beginning with job.device_prefix
// (bound twice; "" matches every id). CAST: PostgreSQL cannot type a bare
// parameter of length().
constexpr const char* kJobMembers =
    "WHERE enabled = 1 AND substr(id, 1, length(CAST(? AS TEXT))) = ?";

constexpr const char* kStateNames[] = {
    "created", "running", "stopped", "completed", "budget-exhausted", "failed"};

constexpr const char* kSelectJob =
    "SELECT id, config, state, sigma, n, end_reason FROM jobs ";

Result<JobRecord> ReadJob(const store::Statement& stmt) {
  JobRecord job;
  job.id = stmt.ColumnInt(0);
  job.config_text = stmt.ColumnText(1);
  auto config = ParseJobConfig(job.config_text, UnknownKeys::kIgnore);
  if (!config.ok()) {
    EDGEADMM_LOG_ERROR("jobs: stored config of job %lld: %s",
                       static_cast<long long>(job.id),
                       config.error().message().c_str());
    return Status::DataLoss();
  }
  job.config = std::move(config).value();
  EDGEADMM_TRY_ASSIGN(job.state, ParseJobState(stmt.ColumnText(2)));
  job.config.sigma = stmt.ColumnDouble(3);
  job.n = stmt.ColumnInt(4);
  if (!stmt.ColumnIsNull(5)) job.end_reason = stmt.ColumnText(5);
  return job;
}

}  // namespace

Result<JobState> ParseJobState(const std::string& text) {
  for (size_t i = 0; i < sizeof(kStateNames) / sizeof(kStateNames[0]); ++i) {
    if (text == kStateNames[i]) return static_cast<JobState>(i);
  }
  return Status::DataLoss();
}

const char* JobStateName(JobState s) {
  return kStateNames[static_cast<int>(s)];
}

Result<int64_t> CreateJob(store::Database& db, const JobConfig& config,
                          std::string_view config_text) {
  if (!IsValidJobName(config.name)) return Status::InvalidArgument();
  if (config.sigma < 0) return Status::FailedPrecondition();
  EDGEADMM_TRY_ASSIGN(store::Transaction tx, store::Transaction::Begin(db));
  EDGEADMM_TRY_ASSIGN(
      store::Statement count,
      db.Prepare(std::string("SELECT count(*) FROM devices ") + kJobMembers));
  count.Bind(1, config.device_prefix).Bind(2, config.device_prefix);
  EDGEADMM_TRY(count.StepRow());
  const int64_t n = count.ColumnInt(0);
  if (n == 0 || (config.sampling == SamplingScheme::kFixed && config.m > n)) {
    EDGEADMM_LOG_ERROR(
        "jobs: %lld enabled devices%s%s%s are too few for job %s",
        static_cast<long long>(n),
        config.device_prefix.empty() ? "" : " with ids beginning \"",
        config.device_prefix.c_str(), config.device_prefix.empty() ? "" : "\"",
        config.name.c_str());
    return Status::FailedPrecondition();
  }
  EDGEADMM_TRY_ASSIGN(
      store::Statement insert,
      db.Prepare("INSERT INTO jobs(name, config, state, sigma, n, dimension, "
                 "created_at) VALUES (?, ?, 'created', ?, ?, ?, ?)"));
  insert.Bind(1, config.name)
      .Bind(2, config_text)
      .Bind(3, config.sigma)
      .Bind(4, n)
      .Bind(5, config.dimension)
      .Bind(6, static_cast<int64_t>(time(nullptr)));
  EDGEADMM_TRY(insert.Run());
  const int64_t id = db.LastInsertId();
  EDGEADMM_TRY_ASSIGN(
      store::Statement enroll,
      db.Prepare(std::string("INSERT INTO job_devices(job_id, device_id) "
                             "SELECT ?, id FROM devices ") +
                 kJobMembers));
  enroll.Bind(1, id)
      .Bind(2, config.device_prefix)
      .Bind(3, config.device_prefix);
  EDGEADMM_TRY(enroll.Run());
  // The released model vector's length (Algorithm::ModelLength: p, or the
  // algorithm's own).
  const algorithms::Algorithm* algorithm = algorithms::Find(config.algorithm);
  const int64_t length =
      algorithm != nullptr ? algorithm->ModelLength(config) : config.dimension;
  const std::vector<double> zeros(static_cast<size_t>(length), 0.0);
  EDGEADMM_TRY_ASSIGN(
      store::Statement model,
      db.Prepare("INSERT INTO models(job_id, iteration, round_id, z, "
                 "server_state) VALUES (?, 0, 0, ?, ?)"));
  model.Bind(1, id)
      .BindBlob(2, store::EncodeDoubles(zeros))
      .BindBlob(3, store::EncodeDoubles(zeros));
  EDGEADMM_TRY(model.Run());
  EDGEADMM_TRY(tx.Commit());
  return id;
}

Result<JobRecord> FindJob(store::Database& db, std::string_view name) {
  EDGEADMM_TRY_ASSIGN(store::Statement stmt,
                      db.Prepare(std::string(kSelectJob) + "WHERE name = ?"));
  stmt.Bind(1, name);
  EDGEADMM_TRY(stmt.StepRow());
  return ReadJob(stmt);
}

Result<JobRecord> LoadJob(store::Database& db, int64_t id) {
  EDGEADMM_TRY_ASSIGN(store::Statement stmt,
                      db.Prepare(std::string(kSelectJob) + "WHERE id = ?"));
  stmt.Bind(1, id);
  EDGEADMM_TRY(stmt.StepRow());
  return ReadJob(stmt);
}

Result<std::vector<JobRecord>> ListJobs(store::Database& db) {
  EDGEADMM_TRY_ASSIGN(store::Statement stmt,
                      db.Prepare(std::string(kSelectJob) + "ORDER BY id"));
  std::vector<JobRecord> jobs;
  EDGEADMM_TRY(stmt.ForEachRow([&]() -> Status {
    EDGEADMM_TRY_ASSIGN(JobRecord job, ReadJob(stmt));
    jobs.push_back(std::move(job));
    return Status::Ok();
  }));
  return jobs;
}

Result<std::vector<JobStateRow>> ListJobStates(store::Database& db) {
  EDGEADMM_TRY_ASSIGN(store::Statement stmt,
                      db.Prepare("SELECT id, state FROM jobs ORDER BY id"));
  std::vector<JobStateRow> rows;
  EDGEADMM_TRY(stmt.ForEachRow([&]() -> Status {
    JobStateRow row;
    row.id = stmt.ColumnInt(0);
    EDGEADMM_TRY_ASSIGN(row.state, ParseJobState(stmt.ColumnText(1)));
    rows.push_back(row);
    return Status::Ok();
  }));
  return rows;
}

Status SetJobState(store::Database& db, int64_t id, JobState state,
                   std::string_view end_reason) {
  EDGEADMM_TRY_ASSIGN(
      store::Statement stmt,
      db.Prepare("UPDATE jobs SET state = ?, end_reason = ? WHERE id = ?"));
  stmt.Bind(1, JobStateName(state));
  if (end_reason.empty()) {
    stmt.BindNull(2);
  } else {
    stmt.Bind(2, end_reason);
  }
  stmt.Bind(3, id);
  EDGEADMM_TRY(stmt.Run());
  return db.Changes() == 1 ? Status::Ok() : Status::NotFound();
}

Result<std::vector<std::string>> JobDevices(store::Database& db, int64_t id) {
  EDGEADMM_TRY_ASSIGN(
      store::Statement stmt,
      db.Prepare("SELECT device_id FROM job_devices WHERE job_id = ? "
                 "ORDER BY device_id"));
  stmt.Bind(1, id);
  std::vector<std::string> ids;
  EDGEADMM_TRY(stmt.ForEachRow([&] {
    ids.push_back(stmt.ColumnText(0));
    return Status::Ok();
  }));
  return ids;
}

}  // namespace edgeadmm::jobs
