// `edgeadmm job create FILE | start NAME | stop NAME | list | status NAME |
// ledger NAME | export NAME --format bin|json|header [--round last|best|N]
// [--quantize none|int8] [--output F]`.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli_command.h"
#include "command_error.h"
#include "edgeadmm/algorithms/registry.h"
#include "edgeadmm/jobs/job_report.h"
#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/jobs/model_header.h"
#include "edgeadmm/jobs/secure_aggregation_report.h"
#include "edgeadmm/privacy/policy.h"
#include "edgeadmm/rounds/noise_planner.h"
#include "edgeadmm/rounds/validator.h"
#include "edgeadmm/store/database.h"
#include "owner_only_output.h"

namespace edgeadmm::cli {
namespace {

struct JobOptions {
  std::string db_path = store::DefaultDatabasePath();
  std::string name;  // job name, or the TOML file for `create`
  std::string format = "json";
  std::string round;  // export: last | best | N; empty: the job's default
  std::string quantize = "none";  // export --format header: none | int8
  std::string output;
};

constexpr const char* kCommand = "edgeadmm job";

host::ErrorOr<store::Database> Open(const JobOptions& o) {
  return Checked(store::Database::Open(o.db_path),
                 "cannot open database " + o.db_path);
}

struct JobFile {
  std::string text;
  jobs::JobConfig config;
};

// The job TOML named on the command line (a usage error if it is bad).
host::ErrorOr<JobFile> ReadJobFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return host::Error::NotFound("cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  auto parsed = jobs::ParseJobConfig(text.str());
  if (!parsed.ok()) {
    return host::Error(parsed.error().code(),
                       path + ": " + parsed.error().message());
  }
  if (!jobs::IsValidJobName(parsed->name)) {
    return host::Error::InvalidArgument(path + ": " + jobs::kJobNameRule);
  }
  return JobFile{text.str(), std::move(parsed).value()};
}

host::Error RunCreate(const JobOptions& o, JobFile file) {
  jobs::JobConfig& config = file.config;
  if (config.policy == privacy::Policy::kSecureAggregation) {
    // No Gaussian sigma: the plan's discrete Gaussian (docs/privacy.md).
    std::printf("%s", jobs::SecureAggregationSection(config).text.c_str());
  } else if (config.noise_planned()) {
    EDGEADMM_HOST_TRY_ASSIGN(
        config.sigma, Checked(rounds::PlanSigma(config), "cannot plan sigma"));
    std::printf("planned sigma %.6g for epsilon %.6g at delta %.3g\n",
                config.sigma, config.target_epsilon, config.delta);
  }
  EDGEADMM_HOST_TRY_ASSIGN(store::Database db, Open(o));
  EDGEADMM_HOST_TRY_ASSIGN(const int64_t id,
                           Checked(jobs::CreateJob(db, config, file.text),
                                   "cannot create job " + config.name));
  EDGEADMM_HOST_TRY_ASSIGN(const jobs::JobRecord job,
                           Checked(jobs::LoadJob(db, id), "cannot reload job"));
  const std::string members =
      config.device_prefix.empty()
          ? std::string()
          : " whose id begins \"" + config.device_prefix + "\"";
  std::printf(
      "created job %s (id %lld, n = %lld devices%s); start it with "
      "`edgeadmm job start %s`\n",
      config.name.c_str(), static_cast<long long>(id),
      static_cast<long long>(job.n), members.c_str(), config.name.c_str());
  if (config.sigma > 0 && config.rounds_may_be_colluders_only()) {
    // docs/privacy.md, "Colluding devices": a round of m_k <= t uploads
    // hides a device behind its own noise alone.
    std::printf(
        "note: sampling.m_min (%lld) <= privacy.max_colluders (%lld): a round "
        "of at most %lld accepted uploads is charged the device's own noise "
        "only (docs/privacy.md, \"Colluding devices\")\n",
        static_cast<long long>(config.m_min),
        static_cast<long long>(config.max_colluders),
        static_cast<long long>(config.max_colluders));
  }
  return host::Error::Ok();
}

host::Error RunSetState(const JobOptions& o, jobs::JobState state) {
  EDGEADMM_HOST_TRY_ASSIGN(store::Database db, Open(o));
  EDGEADMM_HOST_TRY_ASSIGN(const jobs::JobRecord job,
                           Checked(jobs::FindJob(db, o.name), o.name));
  const bool finished = job.state == jobs::JobState::kCompleted ||
                        job.state == jobs::JobState::kBudgetExhausted ||
                        job.state == jobs::JobState::kFailed;
  if (finished) {
    return Failed("job " + o.name + " is " + JobStateName(job.state),
                  Status::FailedPrecondition());
  }
  EDGEADMM_HOST_TRY(
      Failed("cannot change " + o.name, jobs::SetJobState(db, job.id, state)));
  std::printf("job %s: %s\n", o.name.c_str(), JobStateName(state));
  return host::Error::Ok();
}

host::Error RunList(const JobOptions& o) {
  EDGEADMM_HOST_TRY_ASSIGN(store::Database db, Open(o));
  EDGEADMM_HOST_TRY_ASSIGN(const std::vector<jobs::JobRecord> all,
                           Checked(jobs::ListJobs(db), "list"));
  for (const jobs::JobRecord& j : all) {
    std::printf("%lld\t%s\t%s\t%s\tn=%lld\n", static_cast<long long>(j.id),
                j.config.name.c_str(), JobStateName(j.state),
                algorithms::NameOf(j.config.algorithm),
                static_cast<long long>(j.n));
  }
  return host::Error::Ok();
}

// "last: round R (iteration I), validation (gateway) loss L objective O
// accuracy A [metric M]" (scores when validated).
void PrintModelLine(const char* which, const jobs::ModelRef& m,
                    const jobs::JobConfig& c) {
  if (m.iteration == 0) {
    std::printf("%s: none yet\n", which);
    return;
  }
  std::printf("%s: round %lld (iteration %lld)", which,
              static_cast<long long>(m.round_id),
              static_cast<long long>(m.iteration));
  if (m.scores.validated) {
    std::printf(", validation (%s) loss %.6g objective %.6g",
                jobs::ValidationHolderName(c.validation_held_by), m.scores.loss,
                m.scores.objective);
    if (m.scores.has_accuracy) {
      std::printf(" accuracy %.4f", m.scores.accuracy);
    }
    if (c.selects_on_validation()) {
      std::printf(" [metric %s]",
                  jobs::SelectionMetricName(c.selection_metric));
    }
  }
  if (m.scores.test_records > 0) {
    std::printf(
        ", test (gateway, from the parties' partial scores of %lld records) "
        "log loss %.6f accuracy %.4f",
        static_cast<long long>(m.scores.test_records), m.scores.test_log_loss,
        m.scores.test_accuracy);
  }
  std::printf("\n");
}

// An algorithm's own section (algorithms::UploadExtra::Report,
// algorithms::ReportSections::PlanSection), if any.
void PrintAlgorithmSection(const algorithms::ReportSection& section) {
  std::printf("%s", section.text.c_str());
}

// admm-sharing: the generic Gaussian ledgers do not apply (inf); each
// party's ε as charged (the per-party ledger, with what the device
// reported) and its plan, labelled (docs/privacy.md, "admm-sharing").
constexpr const char* kGenericLedgerNote =
    "generic ledgers (not the job's privacy: they charge privacy.sigma = 0 "
    "and do not model the share noise; the per-party epsilon below is the "
    "job's): ";
void PrintParties(const jobs::PartyLedgerReport& parties) {
  if (parties.applies) std::printf("%s", parties.ToText().c_str());
}

// Issue 35: a released model no better than a constant predictor on the
// validation data is named as such. The baselines are computed from the
// job's validation file here (the store keeps only the models' scores): the
// zero model (loss log 2 or the mean of b²/2) and, for accuracy, the
// majority class. Only gateway-held data (the operator's: reading it
// releases nothing).
void PrintBaselineWarning(const jobs::JobConfig& c, const jobs::ModelRef& m) {
  if (m.iteration == 0 || !m.scores.validated ||
      c.validation_held_by != jobs::ValidationHolder::kGateway) {
    return;
  }
  auto validator = rounds::Validator::Load(c);
  if (!validator.ok()) {
    std::printf("baseline: not computed (%s)\n",
                validator.error().message().c_str());
    return;
  }
  const rounds::ValidationMetrics zero = validator->Evaluate(
      std::vector<double>(static_cast<size_t>(c.dimension), 0.0));
  if (m.scores.has_accuracy && m.scores.accuracy < zero.majority) {
    std::printf(
        "warning: the released model's validation accuracy %.4f is below the "
        "majority class's %.4f (a constant predictor would do better)\n",
        m.scores.accuracy, zero.majority);
  }
  if (m.scores.loss > zero.loss) {
    std::printf(
        "warning: the released model's validation loss %.6g is above the zero "
        "model's %.6g\n",
        m.scores.loss, zero.loss);
  }
}

host::Error RunStatus(const JobOptions& o) {
  EDGEADMM_HOST_TRY_ASSIGN(store::Database db, Open(o));
  EDGEADMM_HOST_TRY_ASSIGN(const jobs::JobStatus s,
                           Checked(jobs::LoadJobStatus(db, o.name), o.name));
  std::printf(
      "job %s (id %lld): %s\n"
      "algorithm %s, policy %s, n = %lld devices\n"
      "iteration %lld / %lld, open round %lld\n"
      "last committed round %lld with %lld participants\n"
      "discarded rounds %lld, lost rounds %lld\n"
      "%scentral epsilon spent %.6g (delta %.3g, budget %.6g)\n"
      "  that is: %s\n",
      s.job.config.name.c_str(), static_cast<long long>(s.job.id),
      JobStateName(s.job.state), algorithms::NameOf(s.job.config.algorithm),
      privacy::PolicyName(s.job.config.policy), static_cast<long long>(s.job.n),
      static_cast<long long>(s.iteration),
      static_cast<long long>(s.job.config.rounds),
      static_cast<long long>(s.open_round),
      static_cast<long long>(s.last_round),
      static_cast<long long>(s.last_participants),
      static_cast<long long>(s.discarded_rounds),
      static_cast<long long>(s.lost_rounds),
      s.parties.applies ? kGenericLedgerNote : "", s.central.epsilon,
      s.job.config.delta, s.job.config.central_budget,
      s.central.ToText().c_str());
  if (s.job.config.audit) {
    std::printf(
        "audit job (privacy.audit = true): its central ledgers have no cap "
        "unless central_budget sets one; its models are a measurement, not a "
        "release\n");
  }
  if (!s.job.end_reason.empty()) {
    std::printf("ended: %s\n", s.job.end_reason.c_str());
  }
  PrintAlgorithmSection(s.algorithm_section);
  PrintParties(s.parties);
  PrintAlgorithmSection(s.plan_section);
  const jobs::JobConfig& c = s.job.config;
  const char* released =
      c.release == jobs::ReleaseChoice::kBest ? "best" : "last";
  PrintModelLine("last", s.last, c);
  if (c.selects_on_validation()) {
    PrintModelLine("best", s.best, c);
  } else {
    std::printf("best: none (%s)\n",
                c.validation_data.empty()
                    ? "no [validation] data"
                    : "validation data held by the devices: no selection");
  }
  std::printf("released model (export default): %s\n", released);
  PrintBaselineWarning(
      c, c.release == jobs::ReleaseChoice::kBest ? s.best : s.last);
  return host::Error::Ok();
}

host::Error RunLedger(const JobOptions& o) {
  EDGEADMM_HOST_TRY_ASSIGN(store::Database db, Open(o));
  EDGEADMM_HOST_TRY_ASSIGN(
      const jobs::PrivacyReport r,
      Checked(jobs::LoadPrivacyReport(db, o.name), o.name));
  std::printf("# privacy report of job %s: policy %s, delta %.3g\n",
              r.job.config.name.c_str(),
              privacy::PolicyName(r.job.config.policy), r.job.config.delta);
  std::string conversions;
  for (const std::string& c : r.conversions) {
    conversions += (conversions.empty() ? "" : ", ") + c;
  }
  std::printf("# conversions of the stored values: %s%s\n",
              conversions.empty() ? "none yet" : conversions.c_str(),
              r.conversions.size() > 2 ||
                      (r.conversions.size() == 2 &&
                       std::find(r.conversions.begin(), r.conversions.end(),
                                 "classic") != r.conversions.end())
                  ? " (classic rows predate schema version 2; classic is "
                    "never below improved)"
                  : "");
  for (const privacy::Conversion c :
       {privacy::Conversion::kPld, privacy::Conversion::kImproved}) {
    std::printf("# %s: %s\n", privacy::ConversionName(c),
                privacy::ConversionReference(c));
  }
  if (r.parties.applies) {
    std::printf(
        "# admm-sharing: the generic central and local ledgers below charge "
        "privacy.sigma = 0 (+inf: no guarantee claimed, the share noise is "
        "not modelled there); the job's privacy is the per-party epsilon "
        "further down\n");
  }
  for (const auto& [which, m] : {std::pair{"central", r.central_meaning},
                                 std::pair{"local", r.local_meaning}}) {
    std::printf("# %s epsilon: %s, %s neighbours, delta %.3g; against %s\n",
                which, m.mechanism.c_str(), m.neighbouring.c_str(),
                r.job.config.delta, m.observer.c_str());
  }
  std::printf("# central ledger (epsilon after each committed round)\n");
  for (const auto& [round, eps] : r.central) {
    std::printf("round\t%lld\t%.6g\n", static_cast<long long>(round), eps);
  }
  std::printf(
      "# per device: participations, central epsilon, local epsilon%s\n",
      r.parties.applies
          ? " (generic ledgers: not the job's privacy; they charge "
            "privacy.sigma = 0, +inf. The per-party epsilon below "
            "is the job's)"
          : "");
  for (const jobs::DeviceCharge& d : r.devices) {
    std::printf("device\t%s\t%lld\t%.6g\t%.6g\n", d.device_id.c_str(),
                static_cast<long long>(d.participations), d.central_epsilon,
                d.local_epsilon);
  }
  if (r.network_label != nullptr) {
    // random-walk-admm: computed here from the participations, never
    // charged, stored or sent (docs/privacy.md, "random-walk-admm").
    std::printf(
        "# per device: participations, %s: Gaussian per visit amplified by "
        "the uniform walk (Thm. 4, corrected condition; per visit at most "
        "the local curve), replace-one neighbours, improved conversion, "
        "delta %.3g\n",
        r.network_label, r.job.config.delta);
    for (const jobs::DeviceCharge& d : r.devices) {
      std::printf("network\t%s\t%lld\t%.6g\n", d.device_id.c_str(),
                  static_cast<long long>(d.participations), d.network_epsilon);
    }
  }
  PrintAlgorithmSection(r.algorithm_section);
  PrintParties(r.parties);
  PrintAlgorithmSection(r.plan_section);
  return host::Error::Ok();
}

bool KnownExportFormat(const std::string& format) {
  return format == "bin" || format == "json" || format == "header";
}

// o.format is one KnownExportFormat accepts; `weights` applies to header.
host::Error RunExport(const JobOptions& o, jobs::ModelChoice choice,
                      jobs::HeaderWeights weights) {
  EDGEADMM_HOST_TRY_ASSIGN(store::Database db, Open(o));
  EDGEADMM_HOST_TRY_ASSIGN(const jobs::ReleasedModelRecord m,
                           jobs::LoadReleasedModel(db, o.name, choice));
  std::string bytes;
  if (o.format == "bin") {
    const std::vector<uint8_t> bin = jobs::ModelToBinary(m);
    bytes.assign(bin.begin(), bin.end());
  } else if (o.format == "json") {
    bytes = jobs::ModelToJson(m);
  } else {
    EDGEADMM_HOST_TRY_ASSIGN(const jobs::ModelHeader h,
                             jobs::ModelToCHeader(m, weights));
    bytes = h.text;
    if (weights == jobs::HeaderWeights::kInt8) {
      std::fprintf(stderr,
                   "int8 weights: scale s = %.6g, max weight error "
                   "|w - s q| = %.6g over %zu weights\n",
                   h.scale, h.max_weight_error, m.z.size());
    }
  }
  if (o.output.empty() || o.output == "-") {
    std::fwrite(bytes.data(), 1, bytes.size(), stdout);
    return host::Error::Ok();
  }
  return WriteOwnerOnlyFile(o.output, bytes);
}

void AddJobCommands(host::Command& app) {
  auto o = std::make_shared<JobOptions>();
  host::Command job = app.AddSubcommand("job",
                                        "Training jobs: create, start, "
                                        "stop, status, ledger, export");
  job.RequireSubcommand();
  job.Fallthrough();
  job.AddOption("--db", o->db_path, "Aggregator database").CaptureDefault();

  host::Command create = job.AddSubcommand(
      "create", "Create a job from a TOML file (enrolls the enabled devices)");
  create.AddOption("file", o->name, "Job TOML").Required();
  create.OnRun([o] {
    auto file = ReadJobFile(o->name);
    if (!file.ok()) Exit(kCommand, file.error().message(), 2);
    ExitOnError(kCommand, RunCreate(*o, std::move(file).value()));
  });

  struct Simple {
    const char* name;
    const char* help;
    host::Error (*run)(const JobOptions&);
  };
  static const Simple kSimple[] = {
      {"start", "Start or resume a job (the daemon picks it up)",
       [](const JobOptions& x) {
         return RunSetState(x, jobs::JobState::kRunning);
       }},
      {"stop", "Stop a job (the open round is discarded)",
       [](const JobOptions& x) {
         return RunSetState(x, jobs::JobState::kStopped);
       }},
      {"status", "Job, round, participants, epsilon spent", &RunStatus},
      {"ledger", "Privacy report: central and per-device ledgers", &RunLedger},
  };
  for (const Simple& s : kSimple) {
    host::Command sub = job.AddSubcommand(s.name, s.help);
    sub.AddOption("name", o->name, "Job name").Required();
    auto run = s.run;
    sub.OnRun([o, run] { ExitOnError(kCommand, run(*o)); });
  }
  job.AddSubcommand("list", "List jobs").OnRun([o] {
    ExitOnError(kCommand, RunList(*o));
  });

  host::Command exp = job.AddSubcommand(
      "export", "Export the released model (bin: float32 LE; json; header)");
  exp.AddOption("name", o->name, "Job name").Required();
  exp.AddOption("--format", o->format, "bin | json | header").CaptureDefault();
  exp.AddOption("--round", o->round,
                "last | best (validated on gateway data) | N (round id); "
                "default: the job's [validation] release");
  exp.AddOption("--quantize", o->quantize,
                "header only: none (float32 weights) | int8 (one scale "
                "s = max|w|/127; the max weight error goes to stderr)")
      .CaptureDefault();
  exp.AddOption("--output,-o", o->output,
                "Output file (default stdout), written 0600 to a temporary "
                "file renamed over it (a symlink there is replaced)");
  exp.OnRun([o] {
    if (!KnownExportFormat(o->format)) {
      Exit(kCommand, "unknown format " + o->format, 2);
    }
    auto weights = jobs::ParseHeaderWeights(o->quantize);
    if (!weights.ok()) Exit(kCommand, weights.error().message(), 2);
    if (*weights != jobs::HeaderWeights::kFloat32 && o->format != "header") {
      Exit(kCommand, "--quantize applies to --format header only", 2);
    }
    jobs::ModelChoice choice;
    if (!o->round.empty()) {
      auto parsed = jobs::ParseModelChoice(o->round);
      if (!parsed.ok()) Exit(kCommand, parsed.error().message(), 2);
      choice = *parsed;
    }
    ExitOnError(kCommand, RunExport(*o, choice, *weights));
  });
}

}  // namespace

EDGEADMM_CLI_COMMAND(AddJobCommands);

}  // namespace edgeadmm::cli
