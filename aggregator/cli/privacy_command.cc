// `edgeadmm privacy report|plan`: the privacy accountant from the command
// line, so that anyone can check a number against another library.
//   edgeadmm privacy report --sampling poisson --q 0.01 --noise-multiplier 1
//       --rounds 1000 --delta 1e-5 --conversion improved --json
//   edgeadmm privacy plan --sampling poisson --q 0.01 --rounds 1000
//       --epsilon 1 --delta 1e-5 [--policy trusted-aggregator --clip 1]
//   --accountant pld reads epsilon off the composed privacy-loss
//   distribution instead of converting RDP (default rdp).
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "cli_command.h"
#include "command_error.h"
#include "edgeadmm/device_privacy_ledger.h"
#include "edgeadmm/privacy/calibration.h"
#include "edgeadmm/privacy/composition.h"
#include "edgeadmm/privacy/epsilon_report.h"
#include "edgeadmm/privacy/paper_accountants.h"
#include "edgeadmm/privacy/pld_accountant.h"
#include "edgeadmm/privacy/pld_calibration.h"
#include "edgeadmm/privacy/pld_report.h"
#include "edgeadmm/privacy/policy.h"

namespace edgeadmm::cli {
namespace {

using host::Error;
using privacy::FormatNumber;
using privacy::JsonString;

struct PrivacyOptions {
  std::string sampling = "none";
  double q = 1.0;
  double noise_multiplier = 0.0;
  uint64_t rounds = 0;
  double delta = 1e-5;
  double epsilon = 0.0;
  double delta_at_epsilon = 0.0;  // report only: also print delta(epsilon)
  std::optional<host::CommandOption> delta_at_epsilon_option;
  std::string conversion = "improved";
  std::string accountant = "rdp";  // rdp or pld
  bool json = false;
  // plan only: translate the noise multiplier into a policy's sigma.
  std::string policy;
  double clip = 1.0;
  uint64_t cohort = 0;
  uint64_t colluders = 1;
};

// The schedule described by the options; the neighbouring relation follows
// from the sampling (add/remove for none and poisson, replace-one for fixed).
host::ErrorOr<privacy::Schedule> MakeSchedule(const PrivacyOptions& o) {
  privacy::Schedule schedule;
  EDGEADMM_HOST_TRY_ASSIGN(schedule.kind,
                           privacy::ParseMechanismKind(o.sampling));
  schedule.neighbouring =
      schedule.kind ==
              privacy::MechanismKind::kSampledWithoutReplacementGaussian
          ? privacy::Neighbouring::kReplaceOne
          : privacy::Neighbouring::kAddRemove;
  schedule.sampling_rate = o.q;
  schedule.rounds = o.rounds;
  if (schedule.kind == privacy::MechanismKind::kGaussian && o.q != 1.0) {
    return Error::InvalidArgument(
        "--q needs --sampling poisson or fixed (sampling none is the plain "
        "Gaussian)");
  }
  if (schedule.kind != privacy::MechanismKind::kGaussian &&
      !(o.q > 0.0 && o.q <= 1.0)) {
    return Error::InvalidArgument("--q must be in (0, 1], got " +
                                  std::to_string(o.q));
  }
  if (o.rounds == 0) {
    return Error::InvalidArgument("--rounds must be >= 1");
  }
  return schedule;
}

std::string ScheduleFields(const privacy::Schedule& s, double z) {
  return "\"q\": " + FormatNumber(s.sampling_rate) +
         ", \"noise_multiplier\": " + FormatNumber(z) +
         ", \"rounds\": " + std::to_string(s.rounds);
}

// Prints one report (JSON with the schedule's fields, or text) with the
// optional delta(epsilon) answer: `delta` < 0 when none was asked; `how`
// labels it ("order 7.8" for RDP, "pld" for the PLD accountant).
template <typename Report>
void PrintReport(const PrivacyOptions& o, const privacy::Schedule& schedule,
                 const Report& report, double delta, const std::string& how,
                 const std::string& how_json) {
  std::string delta_field, delta_text;
  if (delta >= 0.0) {
    delta_field = ", \"delta_at_epsilon\": {\"epsilon\": " +
                  FormatNumber(o.delta_at_epsilon) +
                  ", \"delta\": " + FormatNumber(delta) + how_json + "}";
    delta_text = "\ndelta = " + FormatNumber(delta) +
                 " at epsilon = " + FormatNumber(o.delta_at_epsilon) + " (" +
                 how + ")";
  }
  // Above the cap the devices' and the daemon's ledgers report +inf: the
  // samplers' bounded tails are no longer negligible (docs/privacy.md,
  // "Sampler tails"). The mathematical number is printed, labelled.
  if (report.epsilon > DevicePrivacyLedger::kMaxReportableEpsilon) {
    delta_field += ", \"beyond_sampler_range\": true";
    delta_text +=
        "\nbeyond the samplers' range: epsilon above 600 is not a bound for "
        "the deployed samplers (their bounded tails); devices and the "
        "daemon report it as inf";
  }
  if (o.json) {
    std::printf(
        "%s\n",
        report
            .ToJson(ScheduleFields(schedule, o.noise_multiplier) + delta_field)
            .c_str());
  } else {
    std::printf("%s%s\n", report.ToText().c_str(), delta_text.c_str());
  }
}

bool DeltaAtEpsilonAsked(const PrivacyOptions& o) {
  return o.delta_at_epsilon_option && o.delta_at_epsilon_option->Given();
}

// OK for the accountants' names; INVALID_ARGUMENT for another name, or for
// pld with sampling without replacement (no PLD for it yet).
Error CheckAccountant(const PrivacyOptions& o,
                      const privacy::Schedule& schedule) {
  if (o.accountant != "rdp" && o.accountant != "pld") {
    return Error::InvalidArgument("unknown accountant '" + o.accountant +
                                  "' (expected rdp or pld)");
  }
  if (o.accountant == "pld" &&
      schedule.kind ==
          privacy::MechanismKind::kSampledWithoutReplacementGaussian) {
    return Error::InvalidArgument(
        "--accountant pld supports --sampling none or poisson (add/remove); "
        "use --accountant rdp for fixed");
  }
  return Error::Ok();
}

// The labels of a PLD number. The plain Gaussian's PLD is that of N(0, nu^2)
// vs N(1, nu^2) under whichever relation nu is relative to; Poisson sampling
// is add/remove.
privacy::PldReport MakePldReport(const privacy::PldAccountant& accountant,
                                 const privacy::Schedule& schedule,
                                 double epsilon, double delta) {
  privacy::PldReport report;
  report.epsilon = epsilon;
  report.delta = delta;
  report.mechanism = accountant.MechanismLabel();
  report.neighbouring = privacy::NeighbouringName(schedule.neighbouring);
  report.step = accountant.answer_step();
  report.compositions = accountant.compositions();
  return report;
}

// `report --accountant pld`: the PLD accountant (Poisson-subsampled or plain
// Gaussian; --conversion does not apply).
Error RunPldReport(const PrivacyOptions& o, const privacy::Schedule& schedule) {
  privacy::PldAccountant accountant;
  EDGEADMM_HOST_TRY(accountant.Compose(schedule.sampling_rate,
                                       o.noise_multiplier, schedule.rounds));
  EDGEADMM_HOST_TRY_ASSIGN(const double epsilon, accountant.Epsilon(o.delta));
  const privacy::PldReport report =
      MakePldReport(accountant, schedule, epsilon, o.delta);
  double delta = -1.0;
  if (DeltaAtEpsilonAsked(o)) {
    EDGEADMM_HOST_TRY_ASSIGN(delta, accountant.Delta(o.delta_at_epsilon));
  }
  PrintReport(o, schedule, report, delta, "pld", "");
  return Error::Ok();
}

Error RunReport(const PrivacyOptions& o) {
  EDGEADMM_HOST_TRY_ASSIGN(const privacy::Schedule schedule, MakeSchedule(o));
  EDGEADMM_HOST_TRY(CheckAccountant(o, schedule));
  if (o.accountant == "pld") return RunPldReport(o, schedule);
  EDGEADMM_HOST_TRY_ASSIGN(const privacy::Conversion conversion,
                           privacy::ParseConversion(o.conversion));
  const privacy::Target target{0.0, o.delta, conversion};
  EDGEADMM_HOST_TRY_ASSIGN(
      const privacy::EpsilonReport report,
      privacy::ScheduleEpsilon(schedule, o.noise_multiplier, target));
  privacy::ConvertedDelta d{-1.0, 0.0};
  if (DeltaAtEpsilonAsked(o)) {
    privacy::Mechanism m;
    m.kind = schedule.kind;
    m.neighbouring = schedule.neighbouring;
    m.sampling_rate = schedule.sampling_rate;
    m.noise_std = o.noise_multiplier;
    privacy::Accountant accountant;
    EDGEADMM_HOST_TRY(accountant.Compose(m, schedule.rounds));
    EDGEADMM_HOST_TRY_ASSIGN(
        d, accountant.Delta(o.delta_at_epsilon, target.conversion));
  }
  PrintReport(o, schedule, report, d.delta, "order " + FormatNumber(d.order),
              ", \"order\": " + FormatNumber(d.order));
  return Error::Ok();
}

// With --policy, the schedule must be what the policy charges: the
// trusted-aggregator a Poisson-subsampled (or, at q = 1, plain) Gaussian under
// add/remove, the others a plain Gaussian (no sampling amplification) under
// their own neighbouring relation.
Error MatchPolicy(const std::string& name, privacy::Schedule* schedule) {
  EDGEADMM_HOST_TRY_ASSIGN(const privacy::Policy policy,
                           privacy::ParsePolicy(name));
  const bool sampled = schedule->kind != privacy::MechanismKind::kGaussian;
  switch (policy) {
    case privacy::Policy::kTrustedAggregator:
      if (schedule->kind ==
          privacy::MechanismKind::kSampledWithoutReplacementGaussian) {
        return Error::InvalidArgument(
            "the trusted-aggregator policy samples Poisson cohorts: use "
            "--sampling poisson or none");
      }
      return Error::Ok();
    case privacy::Policy::kLocalDp:
      schedule->neighbouring = privacy::Neighbouring::kReplaceOne;
      break;
    case privacy::Policy::kParticipation:
    case privacy::Policy::kParticipationOwnNoise:
      schedule->neighbouring = privacy::Neighbouring::kZeroOut;
      break;
    case privacy::Policy::kSecureAggregation:
      return Error::InvalidArgument(
          "the secure-aggregation policy charges the distributed discrete "
          "Gaussian, not a Gaussian schedule: its plan comes from the job's "
          "target epsilon (job create prints it)");
  }
  if (sampled) {
    return Error::InvalidArgument(
        "policy " + name +
        " charges the plain Gaussian (no amplification by sampling is "
        "claimed for device-side noise): use --sampling none");
  }
  return Error::Ok();
}

Error RunPlan(const PrivacyOptions& o) {
  EDGEADMM_HOST_TRY_ASSIGN(privacy::Schedule schedule, MakeSchedule(o));
  if (!o.policy.empty()) EDGEADMM_HOST_TRY(MatchPolicy(o.policy, &schedule));
  EDGEADMM_HOST_TRY(CheckAccountant(o, schedule));
  EDGEADMM_HOST_TRY_ASSIGN(const privacy::Conversion conversion,
                           privacy::ParseConversion(o.conversion));
  const privacy::Target target{o.epsilon, o.delta, conversion};
  EDGEADMM_HOST_TRY_ASSIGN(const privacy::Calibration plan,
                           privacy::CalibrateNoiseMultiplier(schedule, target));
  double noise_multiplier = plan.noise_multiplier;
  std::string achieved_json, achieved_text;
  const std::string target_field =
      ", \"target_epsilon\": " + FormatNumber(o.epsilon);
  if (o.accountant == "pld") {
    // Start from the RDP answer: the PLD epsilon is never above it.
    EDGEADMM_HOST_TRY_ASSIGN(const privacy::PldCalibration pld,
                             privacy::CalibratePldNoiseMultiplier(
                                 schedule.sampling_rate, schedule.rounds,
                                 o.epsilon, o.delta, plan.noise_multiplier));
    noise_multiplier = pld.noise_multiplier;
    privacy::PldAccountant accountant;
    EDGEADMM_HOST_TRY(accountant.Compose(schedule.sampling_rate,
                                         noise_multiplier, schedule.rounds));
    // The reported ε and grid are the accountant's answer for this ν.
    EDGEADMM_HOST_TRY_ASSIGN(const double epsilon, accountant.Epsilon(o.delta));
    const privacy::PldReport report =
        MakePldReport(accountant, schedule, epsilon, o.delta);
    achieved_json = report.ToJson(
        ScheduleFields(schedule, noise_multiplier) + target_field +
        ", \"rdp_noise_multiplier\": " + FormatNumber(plan.noise_multiplier));
    achieved_text = report.ToText() + "\n(rdp would need noise multiplier " +
                    FormatNumber(plan.noise_multiplier) + ")";
  } else {
    achieved_json = plan.achieved.ToJson(
        ScheduleFields(schedule, noise_multiplier) + target_field);
    achieved_text = plan.achieved.ToText();
  }
  std::string sigma_field;
  std::string sigma_text;
  if (!o.policy.empty()) {
    EDGEADMM_HOST_TRY_ASSIGN(const privacy::Policy policy,
                             privacy::ParsePolicy(o.policy));
    EDGEADMM_HOST_TRY_ASSIGN(
        const double sigma,
        privacy::SigmaForNoiseMultiplier(policy, noise_multiplier, o.clip,
                                         o.cohort, o.colluders));
    const bool splits = policy == privacy::Policy::kParticipation;
    sigma_field =
        ", \"policy_sigma\": " + FormatNumber(sigma) +
        ", \"policy\": " + JsonString(o.policy) +
        (splits ? ", \"max_colluders\": " + std::to_string(o.colluders)
                : std::string());
    sigma_text =
        "\nsigma for policy " + o.policy + " (C = " + FormatNumber(o.clip) +
        (splits ? ", m = " + std::to_string(o.cohort) + ", t = " +
                      std::to_string(o.colluders) + " colluding devices"
                : std::string()) +
        "): " + FormatNumber(sigma);
  }
  if (o.json) {
    // Splice the policy fields before the closing brace.
    achieved_json.pop_back();
    std::printf("%s%s}\n", achieved_json.c_str(), sigma_field.c_str());
  } else {
    std::printf("noise multiplier %.6g meets epsilon <= %g\n%s%s\n",
                noise_multiplier, o.epsilon, achieved_text.c_str(),
                sigma_text.c_str());
  }
  return Error::Ok();
}

struct Paper004Options {
  double step_epsilon = 0.0;
  double step_delta = 1e-3;
  uint64_t rounds = 0;
  std::string conversion = "improved";
  bool json = false;
};

// Paper 004's own record-level bound next to the RDP epsilon of the same
// mechanism: T Gaussians with noise multiplier z0 = sqrt(2 ln(1.25/d))/e
// relative to the replace-one sensitivity of ONE RECORD (Lemma 1), composed
// exactly in RDP and converted at the same delta. Neither is what a dp-admm
// job is charged (that is device-level: docs/privacy.md, "dp-admm").
Error RunPaper004(const Paper004Options& o) {
  EDGEADMM_HOST_TRY_ASSIGN(const privacy::MomentsAccountantResult paper,
                           privacy::Paper004MomentsAccountant(
                               o.step_epsilon, o.step_delta, o.rounds));
  const double z0 =
      std::sqrt(2.0 * std::log(1.25 / o.step_delta)) / o.step_epsilon;
  privacy::Schedule schedule;
  schedule.kind = privacy::MechanismKind::kGaussian;
  schedule.neighbouring = privacy::Neighbouring::kReplaceOne;
  schedule.rounds = o.rounds;
  EDGEADMM_HOST_TRY_ASSIGN(const privacy::Conversion conversion,
                           privacy::ParseConversion(o.conversion));
  const privacy::Target target{0.0, o.step_delta, conversion};
  EDGEADMM_HOST_TRY_ASSIGN(const privacy::EpsilonReport rdp,
                           privacy::ScheduleEpsilon(schedule, z0, target));
  const std::string paper_fields =
      "\"paper_epsilon_bar\": " + FormatNumber(paper.epsilon) +
      ", \"paper_tau\": " + std::to_string(paper.tau) +
      ", \"paper_accountant\": \"paper 004 Thm 2 / App. A moments "
      "accountant (integer tau), record-level replace-one, per-step "
      "classic Gaussian calibration\", \"step_epsilon\": " +
      FormatNumber(o.step_epsilon) +
      ", \"step_delta\": " + FormatNumber(o.step_delta) + ", ";
  if (o.json) {
    std::printf("{%s\"rdp\": %s}\n", paper_fields.c_str(),
                rdp.ToJson(ScheduleFields(schedule, z0)).c_str());
  } else {
    std::printf(
        "paper 004 moments accountant (the paper's bound, record-level): "
        "epsilon-bar %s (tau %lld) at delta %s\nRDP of the same mechanism "
        "(one record, noise multiplier %s, %llu steps):\n%s\n",
        FormatNumber(paper.epsilon).c_str(), static_cast<long long>(paper.tau),
        FormatNumber(o.step_delta).c_str(), FormatNumber(z0).c_str(),
        static_cast<unsigned long long>(o.rounds), rdp.ToText().c_str());
  }
  return Error::Ok();
}

// The callbacks' end: "edgeadmm privacy <command>: CODE: message", exit 1.
void ExitOnPrivacyError(const char* command, const Error& error) {
  if (!error.ok()) {
    Exit(std::string("edgeadmm privacy ") + command, error.ToString(), 1);
  }
}

void AddScheduleOptions(host::Command& sub, PrivacyOptions* o) {
  sub.AddOption("--sampling", o->sampling,
                "none (plain Gaussian, add/remove), poisson (Poisson rate q, "
                "add/remove) or fixed (m of n without replacement, q = m/n, "
                "replace-one)")
      .CaptureDefault();
  sub.AddOption("--q", o->q, "sampling rate q in (0, 1]").CaptureDefault();
  sub.AddOption("--rounds", o->rounds, "number of rounds (compositions)")
      .Required();
  sub.AddOption("--delta", o->delta, "delta in (0, 1)").CaptureDefault();
  sub.AddOption("--conversion", o->conversion,
                "RDP to (epsilon, delta): classic or improved")
      .CaptureDefault();
  sub.AddOption("--accountant", o->accountant,
                "rdp (RDP + --conversion) or pld (privacy-loss "
                "distribution, FFT composition; none/poisson only)")
      .CaptureDefault();
  sub.AddFlag("--json", o->json, "print one JSON object");
}

void AddPrivacyCommands(host::Command& app) {
  host::Command privacy = app.AddSubcommand(
      "privacy",
      "privacy accounting: epsilon of a schedule, noise for a target");
  privacy.RequireSubcommand();
  auto options = std::make_shared<PrivacyOptions>();

  host::Command report =
      privacy.AddSubcommand("report", "epsilon spent by a schedule of rounds");
  AddScheduleOptions(report, options.get());
  report
      .AddOption("--noise-multiplier", options->noise_multiplier,
                 "noise std / sensitivity")
      .Required();
  options->delta_at_epsilon_option =
      report.AddOption("--delta-at-epsilon", options->delta_at_epsilon,
                       "also print the smallest delta for this epsilon");
  report.OnRun(
      [options] { ExitOnPrivacyError("report", RunReport(*options)); });

  host::Command plan = privacy.AddSubcommand(
      "plan", "smallest noise multiplier for a target (epsilon, delta)");
  AddScheduleOptions(plan, options.get());
  plan.AddOption("--epsilon", options->epsilon, "target epsilon").Required();
  plan.AddOption("--policy", options->policy,
                 "also print sigma for participation, "
                 "participation-own-noise, trusted-aggregator or local-dp");
  plan.AddOption("--clip", options->clip, "clipping norm C (with --policy)")
      .CaptureDefault();
  plan.AddOption("--cohort", options->cohort,
                 "accepted uploads per round m (participation policy)");
  plan.AddOption("--colluders", options->colluders,
                 "devices of the cohort that may pool their own noise, t "
                 "(participation policy: sigma for m - t unknown noises)")
      .CaptureDefault();
  plan.OnRun([options] { ExitOnPrivacyError("plan", RunPlan(*options)); });

  auto p004 = std::make_shared<Paper004Options>();
  host::Command paper = privacy.AddSubcommand(
      "paper-004",
      "paper 004's record-level epsilon-bar (its moments accountant) and the "
      "RDP epsilon of the same per-record Gaussian mechanism");
  paper
      .AddOption("--step-epsilon", p004->step_epsilon,
                 "per-iteration epsilon (dp_admm.step_epsilon)")
      .Required();
  paper
      .AddOption("--step-delta", p004->step_delta,
                 "per-iteration delta, also the final delta")
      .CaptureDefault();
  paper.AddOption("--rounds", p004->rounds, "iterations T").Required();
  paper
      .AddOption("--conversion", p004->conversion,
                 "RDP conversion of the second number: classic or "
                 "improved")
      .CaptureDefault();
  paper.AddFlag("--json", p004->json, "print one JSON object");
  paper.OnRun([p004] { ExitOnPrivacyError("paper-004", RunPaper004(*p004)); });
}

}  // namespace

EDGEADMM_CLI_COMMAND(AddPrivacyCommands);

}  // namespace edgeadmm::cli
