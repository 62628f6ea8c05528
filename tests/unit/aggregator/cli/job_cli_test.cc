// `edgeadmm job ...` against a database in which the engine ran rounds.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "edgeadmm/jobs/job_report.h"
#include "edgeadmm/penalty_perturbation_extra.h"
#include "job_cli_fixture.h"

namespace edgeadmm {
namespace {

TEST_F(JobCliTest, CreateStartStatusLedgerExportStop) {
  testing::EnrollDevices(t_.db(), 6);
  std::string toml =
      testing::JobToml("cli", "prox-admm", testing::DefaultPrivacyTable(),
                       testing::DefaultSamplingTable());
  toml.replace(toml.find("sigma = 2.0"), 11, "target_epsilon = 8.0");
  const testing::CommandResult create =
      Cli("create " + WriteFile("job.toml", toml));
  ASSERT_EQ(create.exit_code, 0) << create.output;
  EXPECT_NE(create.output.find("planned sigma"), std::string::npos);
  EXPECT_NE(create.output.find("n = 6 devices"), std::string::npos);
  auto job = jobs::FindJob(t_.db(), "cli");
  ASSERT_TRUE(job.ok());
  EXPECT_GT(job->config.sigma, 0);

  EXPECT_NE(Cli("export cli").exit_code, 0) << "nothing released yet";
  ASSERT_EQ(Cli("start cli").exit_code, 0);
  Train("cli", 2);

  const testing::CommandResult status = Cli("status cli");
  ASSERT_EQ(status.exit_code, 0) << status.output;
  EXPECT_NE(status.output.find("iteration 2 / 5"), std::string::npos)
      << status.output;
  EXPECT_NE(status.output.find("with 4 participants"), std::string::npos);

  const testing::CommandResult ledger = Cli("ledger cli");
  ASSERT_EQ(ledger.exit_code, 0);
  std::istringstream lines(ledger.output);
  std::string line;
  int rounds = 0;
  int participations = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("round\t", 0) == 0) ++rounds;
    if (line.rfind("device\t", 0) == 0) {
      participations += std::stoi(line.substr(line.find('\t', 7) + 1));
    }
  }
  EXPECT_EQ(rounds, 2);
  EXPECT_EQ(participations, 8);

  auto model = jobs::LoadReleasedModel(t_.db(), "cli");
  ASSERT_TRUE(model.ok());
  const std::string bin = t_.dir() + "/model.bin";
  ASSERT_EQ(Cli("export cli --format bin -o " + bin).exit_code, 0);
  std::ifstream in(bin, std::ios::binary);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
  auto z = store::DecodeFloats(bytes);
  ASSERT_TRUE(z.ok());
  ASSERT_EQ(z->size(), 3u);
  for (int j = 0; j < 3; ++j) {
    EXPECT_FLOAT_EQ(static_cast<float>((*z)[j]),
                    static_cast<float>(model->z[j]));
  }
  const testing::CommandResult json = Cli("export cli --format json");
  ASSERT_EQ(json.exit_code, 0);
  EXPECT_NE(json.output.find("\"dimension\": 3"), std::string::npos);
  EXPECT_NE(json.output.find("\"iteration\": 2"), std::string::npos);
  const testing::CommandResult header = Cli("export cli --format header");
  ASSERT_EQ(header.exit_code, 0);
  EXPECT_NE(header.output.find("#define CLI_FEATURES 3"), std::string::npos);
  // The header compiles as C and holds the model.
  const std::string h = WriteFile("model.h", header.output);
  const std::string c =
      WriteFile("use.c",
                "#include \"model.h\"\nint main(void) { return "
                "cli_weights[0] > 0 ? 0 : 1; }\n");
  EXPECT_EQ(testing::RunCommand("cc -Wall -Werror -o " + t_.dir() + "/use " + c)
                .exit_code,
            0);
  EXPECT_EQ(Cli("export cli --format yaml").exit_code, 2);
  EXPECT_EQ(Cli("export cli --format header --quantize int4").exit_code, 2);
  EXPECT_EQ(Cli("export cli --format json --quantize int8").exit_code, 2);

  ASSERT_EQ(Cli("stop cli").exit_code, 0);
  auto stopped = jobs::FindJob(t_.db(), "cli");
  ASSERT_TRUE(stopped.ok());
  EXPECT_EQ(stopped->state, jobs::JobState::kStopped);
  EXPECT_NE(Cli("start nosuchjob").exit_code, 0);
}

// Every ε the CLI prints or exports says its mechanism, neighbouring
// relation, conversion, δ and observer (docs/privacy.md, "What each ε
// means"). The devices' noise is on the grid, so this participation job's
// central ε is RDP (improved) as the local ledgers' (docs/privacy.md).
TEST_F(JobCliTest, EveryEpsilonSaysWhatItBounds) {
  CreateAndTrain(testing::DefaultPrivacyTable());
  auto released = jobs::LoadReleasedModel(t_.db(), "cli");
  ASSERT_TRUE(released.ok());
  EXPECT_GT(released->epsilon, 0);
  EXPECT_EQ(released->central.conversion, privacy::Conversion::kImproved);
  EXPECT_GT(released->central.order, 0) << "the Rényi order of the ε";

  const testing::CommandResult status = Cli("status cli");
  ASSERT_EQ(status.exit_code, 0);
  for (const char* label :
       {"improved conversion", "zero-out one device's data", "delta = 1e-05",
        "policy participation", "against whoever sees the released models",
        "gaussian per accepted upload", "2 compositions"}) {
    EXPECT_NE(status.output.find(label), std::string::npos)
        << label << " missing from\n"
        << status.output;
  }
  const testing::CommandResult ledger = Cli("ledger cli");
  ASSERT_EQ(ledger.exit_code, 0);
  for (const char* label :
       {"# conversions of the stored values: ", "# improved: Canonne",
        "# central epsilon: gaussian", "# local epsilon: gaussian",
        "replace-one", "against the gateway"}) {
    EXPECT_NE(ledger.output.find(label), std::string::npos)
        << label << " missing from\n"
        << ledger.output;
  }
  const testing::CommandResult json = Cli("export cli --format json");
  ASSERT_EQ(json.exit_code, 0);
  EXPECT_NE(json.output.find("\"epsilon_meaning\": {\"epsilon\": "),
            std::string::npos);
  EXPECT_NE(json.output.find("\"conversion\": \"improved\""),
            std::string::npos);
  EXPECT_NE(json.output.find("\"neighbouring\": \"zero-out"),
            std::string::npos);
}

// accountant = "rdp": the stored ε is the improved conversion of the stored
// curve, and the report recomputes its order; a row from before schema
// version 2 (classic) is named as such.
// random-walk-admm: `job ledger` shows the charged ε (central = local, the
// local guarantee) and, on separate `network` lines, paper 002 Thm. 4's
// network value with its label; that value is never above the charged one.
TEST_F(JobCliTest, RandomWalkLedgerChargesLocalAndLabelsTheNetworkBound) {
  testing::EnrollDevices(t_.db(), 5);
  ASSERT_EQ(
      Cli("create " +
          WriteFile("walk.toml",
                    testing::JobToml(
                        "walk", "random-walk-admm",
                        "[privacy]\npolicy = \"participation-own-noise\"\n"
                        "clip = 1.0\nsigma = 10.0\ndelta = 1e-5\n"
                        "central_budget = 1000.0\ndevice_budget = 1000.0\n",
                        "[sampling]\nscheme = \"fixed\"\nm = 1\nm_min = 1\n"
                        "deadline_seconds = 10\n")))
          .exit_code,
      0);
  ASSERT_EQ(Cli("start walk").exit_code, 0);
  Train("walk", 4, /*close_last=*/true);
  const testing::CommandResult ledger = Cli("ledger walk");
  ASSERT_EQ(ledger.exit_code, 0) << ledger.output;
  for (const char* label :
       {"# central epsilon: gaussian per accepted upload (the device's own "
        "noise; the local guarantee",
        "paper 002 Thm. 4 network bound, valid only for an observer with "
        "Def. 3's view (no step counts), not charged",
        // Every printed ε names its relation and conversion.
        "replace-one neighbours, improved conversion, delta 1e-05"}) {
    EXPECT_NE(ledger.output.find(label), std::string::npos)
        << label << " missing from\n"
        << ledger.output;
  }
  std::istringstream lines(ledger.output);
  std::string line;
  std::map<std::string, double> charged;
  int visits = 0, networks = 0;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string kind, id;
    int participations = 0;
    fields >> kind >> id >> participations;
    if (kind == "device") {
      double central = 0, local = 0;
      fields >> central >> local;
      EXPECT_EQ(central, local) << line;  // the same curve, printed alike
      charged[id] = central;
      visits += participations;
    } else if (kind == "network") {
      double network = 0;
      fields >> network;
      ++networks;
      if (participations > 0) {
        EXPECT_GT(network, 0) << line;
        EXPECT_LE(network, charged.at(id)) << line;
      }
    }
  }
  EXPECT_EQ(visits, 4);
  EXPECT_EQ(networks, 5);
}

TEST_F(JobCliTest, PpAdmmReportsMaxPiLabelledAndAFailedJobItsReason) {
  testing::EnrollDevices(t_.db(), 5);
  ASSERT_EQ(Cli("create " +
                WriteFile("pp.toml",
                          "[job]\nname = \"pp\"\nalgorithm = \"pp-admm\"\n"
                          "loss = \"logistic\"\ndimension = 3\nrounds = 2\n"
                          "[pp_admm]\nnodes = 5\ntheta = 0.5\n"
                          "loss_weight = 1.0\nreg_weight = 0.1\n"
                          "min_samples = 10\n[sampling]\n"
                          "deadline_seconds = 10\n"))
                .exit_code,
            0);
  ASSERT_EQ(Cli("start pp").exit_code, 0);
  const testing::CommandResult before = Cli("status pp");
  EXPECT_NE(before.output.find("pp-admm privacy: not reported yet"),
            std::string::npos)
      << before.output;
  auto job = jobs::FindJob(t_.db(), "pp");
  ASSERT_TRUE(job.ok());
  rounds::PrivacyRoundAccountant accountant;
  auto engine = rounds::RoundEngine::Open(t_.db(), job->id, accountant);
  ASSERT_TRUE(engine.ok());
  rounds::RoundEngine& e = **engine;
  for (int k = 0; k < 2; ++k) {
    ASSERT_TRUE(e.Advance(0).ok());
    int node = 0;
    for (const std::string& d : e.CohortForTesting()) {
      rounds::Upload u{d,
                       job->id,
                       e.round_id(),
                       store::EncodeFloats({0.5, -0.25, 0.125}),
                       {}};
      // pp-admm's (ε_i, δ_i) in its own bytes; the last iteration's count.
      u.extra.resize(kPpLossExtraBytes);
      ++node;
      EncodePpLossExtra(0.25 * node, 1e-5 * (6 - node), u.extra.data());
      ASSERT_TRUE(rounds::IsSuccess(e.Submit(d, u, 0)));
    }
  }
  ASSERT_TRUE(e.Advance(0).ok());
  for (const char* command : {"status pp", "ledger pp"}) {
    const testing::CommandResult r = Cli(command);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    // The max of each (ε from node 5, δ from node 1), and the label says
    // what they are; the old "claim, not proven as run" is gone.
    EXPECT_NE(r.output.find("pp-admm privacy: max_i epsilon_i = 1.25, "
                            "max_i delta_i = 5e-05 from 5 of 5 nodes\n"
                            "  that is: (epsilon, delta)-DP per node, one "
                            "sample of one node replaced"),
              std::string::npos)
        << command << "\n"
        << r.output;
  }
  const testing::CommandResult json = Cli("export pp --format json");
  ASSERT_EQ(json.exit_code, 0) << json.output;
  EXPECT_NE(json.output.find("\"pp_loss\": {\"epsilon\": 1.25, \"delta\": "
                             "5.0000000000000002e-05, \"reported\": 5, "
                             "\"nodes\": 5, \"meaning\": \"(epsilon, delta)"),
            std::string::npos)
      << json.output;

  // A failed job shows its reason and cannot be started again.
  ASSERT_TRUE(jobs::SetJobState(t_.db(), job->id, jobs::JobState::kFailed,
                                "barrier: round 9 missed 1 of 5 nodes after "
                                "3 deadlines")
                  .ok());
  const testing::CommandResult failed = Cli("status pp");
  EXPECT_NE(failed.output.find("job pp (id " + std::to_string(job->id) +
                               "): failed\n"),
            std::string::npos)
      << failed.output;
  EXPECT_NE(failed.output.find("ended: barrier: round 9 missed 1 of 5 nodes "
                               "after 3 deadlines"),
            std::string::npos)
      << failed.output;
  EXPECT_NE(Cli("start pp").exit_code, 0);
}

TEST_F(JobCliTest, RdpAccountantReportsTheImprovedConversionAndItsOrder) {
  CreateAndTrain(testing::PrivacyTableWithPolicy("participation",
                                                 "accountant = \"rdp\"\n"));
  auto released = jobs::LoadReleasedModel(t_.db(), "cli");
  ASSERT_TRUE(released.ok());
  EXPECT_EQ(released->central.conversion, privacy::Conversion::kImproved);
  EXPECT_GT(released->central.order, 1.0) << "the order is recomputed from "
                                             "the stored curve and agrees";
  const testing::CommandResult status = Cli("status cli");
  for (const char* label : {"improved conversion", "(order "}) {
    EXPECT_NE(status.output.find(label), std::string::npos)
        << label << " missing from\n"
        << status.output;
  }
  EXPECT_NE(Cli("ledger cli").output.find("stored values: improved\n"),
            std::string::npos);
  ASSERT_TRUE(t_.db()
                  .Exec("UPDATE ledger SET conversion = 'classic' WHERE "
                        "round_id = (SELECT min(round_id) FROM ledger)")
                  .ok());
  const testing::CommandResult mixed = Cli("ledger cli");
  EXPECT_NE(mixed.output.find("stored values: classic, improved (classic"),
            std::string::npos)
      << mixed.output;
}

TEST_F(JobCliTest, CreateExplainsInvalidConfig) {
  testing::EnrollDevices(t_.db(), 6);
  std::string toml =
      testing::JobToml("bad", "prox-admm", testing::DefaultPrivacyTable(),
                       testing::DefaultSamplingTable());
  toml.replace(toml.find("lambda = 0.5"), 12, "lambda = 2.0");
  const testing::CommandResult r = Cli("create " + WriteFile("bad.toml", toml));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("step.lambda: must be in (0, 1]"), std::string::npos)
      << r.output;
  EXPECT_EQ(jobs::FindJob(t_.db(), "bad").status(), Status::NotFound());
}

// docs/privacy.md, "Colluding devices": with a given σ, m_min <= t is
// accepted and `job create` says what such a round is charged.
TEST_F(JobCliTest, CreateNotesRoundsNoLargerThanTheColluders) {
  testing::EnrollDevices(t_.db(), 6);
  std::string toml =
      testing::JobToml("small", "prox-admm", testing::DefaultPrivacyTable(),
                       testing::DefaultSamplingTable());
  toml.replace(toml.find("m_min = 2"), 9, "m_min = 1");
  const testing::CommandResult r =
      Cli("create " + WriteFile("small.toml", toml));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("note: sampling.m_min (1) <= privacy.max_colluders "
                          "(1): a round of at most 1 accepted uploads is "
                          "charged the device's own noise only"),
            std::string::npos)
      << r.output;
  // m_min > t: no note.
  const testing::CommandResult quiet = Cli(
      "create " + WriteFile("quiet.toml",
                            testing::JobToml("quiet", "prox-admm",
                                             testing::DefaultPrivacyTable(),
                                             testing::DefaultSamplingTable())));
  EXPECT_EQ(quiet.exit_code, 0) << quiet.output;
  EXPECT_EQ(quiet.output.find("note:"), std::string::npos) << quiet.output;
}

TEST_F(JobCliTest, CreateRefusesParticipationWithNoiseInState) {
  testing::EnrollDevices(t_.db(), 6);
  std::string toml =
      testing::JobToml("sticky", "prox-admm", testing::DefaultPrivacyTable(),
                       testing::DefaultSamplingTable());
  toml.replace(toml.find("clip = 1.0"), 10,
               "clip = 1.0\nnoise_in_state = true");
  const testing::CommandResult r =
      Cli("create " + WriteFile("sticky.toml", toml));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("privacy.noise_in_state: must be false under policy "
                          "participation"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("participation-own-noise"), std::string::npos);
  EXPECT_EQ(jobs::FindJob(t_.db(), "sticky").status(), Status::NotFound());
  // The own-noise policy accepts the same flag.
  const std::string participation = "policy = \"participation\"";
  toml.replace(toml.find(participation), participation.size(),
               "policy = \"participation-own-noise\"");
  const testing::CommandResult ok =
      Cli("create " + WriteFile("sticky.toml", toml));
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  auto job = jobs::FindJob(t_.db(), "sticky");
  ASSERT_TRUE(job.ok());
  EXPECT_TRUE(job->config.noise_in_state);
  EXPECT_EQ(job->config.policy, privacy::Policy::kParticipationOwnNoise);
}

// One validation record (a = e1, label +1, metric loss):
// z[0] rises for two rounds and falls in the third, so the best model is
// iteration 2. Export gives it by default and any other on request; status
// shows both last and best; bad choices are named.
TEST_F(JobCliTest, ExportReleasesTheBestValidatedModelByDefault) {
  testing::EnrollDevices(t_.db(), 6);
  const std::string validation = WriteFile("v.libsvm", "+1 1:1\n");
  ASSERT_EQ(Cli("create " +
                WriteFile("job.toml",
                          testing::JobToml("cli", "prox-admm",
                                           testing::DefaultPrivacyTable(),
                                           testing::DefaultSamplingTable()) +
                              "[validation]\ndata = \"" + validation +
                              "\"\nmetric = \"loss\"\n"))
                .exit_code,
            0);
  ASSERT_EQ(Cli("start cli").exit_code, 0);
  DenseDataset one;
  one.dim = 3;
  one.samples = 1;
  one.features = {1, 0, 0};
  one.labels = {1};
  const rounds::Validator validator(jobs::Loss::kLogistic, one);
  TrainValidated("cli", {1.0, 1.0, -1.0}, validator);
  // A discarded round has no model.
  ASSERT_TRUE(t_.db()
                  .Exec("INSERT INTO rounds(job_id, round_id, state, "
                        "cohort_size, started_at) VALUES (1, 50, "
                        "'discarded', 0, 0)")
                  .ok());

  const testing::CommandResult json = Cli("export cli --format json");
  ASSERT_EQ(json.exit_code, 0) << json.output;
  EXPECT_NE(json.output.find("\"selection\": \"best\", \"iteration\": 2,"),
            std::string::npos)
      << json.output;
  EXPECT_NE(json.output.find("\"validation\": {\"metric\": \"loss\", "
                             "\"held_by\": \"gateway\""),
            std::string::npos)
      << json.output;
  struct Case {
    std::string round;
    std::string expected;
  };
  for (const Case& c :
       std::vector<Case>{{"best", "\"selection\": \"best\", \"iteration\": 2,"},
                         {"last", "\"selection\": \"last\", \"iteration\": 3,"},
                         {std::to_string(RoundOf(1)),
                          "\"selection\": \"round\", \"iteration\": 1,"}}) {
    const testing::CommandResult r =
        Cli("export cli --format json --round " + c.round);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(c.expected), std::string::npos)
        << c.round << ": " << r.output;
  }
  const testing::CommandResult header =
      Cli("export cli --format header --round last");
  EXPECT_NE(header.output.find("(last model)"), std::string::npos)
      << header.output;
  // The binary export of the default is the best model's coordinates.
  auto best =
      jobs::LoadReleasedModel(t_.db(), "cli", jobs::ModelChoice::Best());
  ASSERT_TRUE(best.ok());
  const std::string bin = t_.dir() + "/best.bin";
  ASSERT_EQ(Cli("export cli --format bin -o " + bin).exit_code, 0);
  std::ifstream in(bin, std::ios::binary);
  auto z = store::DecodeFloats(std::vector<uint8_t>(
      (std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
  ASSERT_TRUE(z.ok());
  ASSERT_EQ(z->size(), 3u);
  EXPECT_FLOAT_EQ(static_cast<float>((*z)[0]), static_cast<float>(best->z[0]));

  for (const char* bad : {"0", "-1", "first", "2x"}) {
    const testing::CommandResult r =
        Cli(std::string("export cli --round '") + bad + "'");
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.output;
    EXPECT_NE(r.output.find("--round"), std::string::npos) << r.output;
  }
  const testing::CommandResult missing = Cli("export cli --round 99");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.output.find("round 99 of job cli has no stored model (no "
                                "such round)"),
            std::string::npos)
      << missing.output;
  const testing::CommandResult discarded = Cli("export cli --round 50");
  EXPECT_EQ(discarded.exit_code, 1);
  EXPECT_NE(discarded.output.find("(the round is discarded)"),
            std::string::npos)
      << discarded.output;

  const testing::CommandResult status = Cli("status cli");
  ASSERT_EQ(status.exit_code, 0) << status.output;
  for (const std::string& line :
       {"last: round " + std::to_string(RoundOf(3)) + " (iteration 3)",
        "best: round " + std::to_string(RoundOf(2)) + " (iteration 2)",
        std::string("released model (export default): best"),
        std::string("[metric loss]")}) {
    EXPECT_NE(status.output.find(line), std::string::npos)
        << line << " missing from\n"
        << status.output;
  }
}

// Issue 35: a released model below a constant predictor is named. On three
// records (+1, +1 on feature 1; -1 on feature 2) the majority class is
// 2/3; the model z = (-c, 0, 0) gets 1/3 and a loss above log 2 (the zero
// model's), the model (+c, 0, 0) all three, and no warning.
TEST_F(JobCliTest, StatusWarnsWhenTheReleasedModelIsBelowTheBaselines) {
  testing::EnrollDevices(t_.db(), 6);
  const std::string validation =
      WriteFile("v3.libsvm", "+1 1:1\n+1 1:1\n-1 2:1\n");
  ASSERT_EQ(Cli("create " +
                WriteFile("job.toml",
                          testing::JobToml("cli", "prox-admm",
                                           testing::DefaultPrivacyTable(),
                                           testing::DefaultSamplingTable()) +
                              "[validation]\ndata = \"" + validation + "\"\n"))
                .exit_code,
            0);
  ASSERT_EQ(Cli("start cli").exit_code, 0);
  auto config = jobs::FindJob(t_.db(), "cli");
  ASSERT_TRUE(config.ok());
  auto validator = rounds::Validator::Load(config->config);
  ASSERT_TRUE(validator.ok()) << validator.error().message();
  TrainValidated("cli", {-1.0}, *validator);
  testing::CommandResult status = Cli("status cli");
  ASSERT_EQ(status.exit_code, 0) << status.output;
  EXPECT_NE(status.output.find("warning: the released model's validation "
                               "accuracy 0.3333 is below the majority "
                               "class's 0.6667"),
            std::string::npos)
      << status.output;
  EXPECT_NE(status.output.find("is above the zero model's 0.693147"),
            std::string::npos)
      << status.output;
  TrainValidated("cli", {4.0}, *validator);
  status = Cli("status cli");
  ASSERT_EQ(status.exit_code, 0) << status.output;
  EXPECT_EQ(status.output.find("warning:"), std::string::npos) << status.output;
}

// A job that validates on the devices' data has no best model: export
// releases the last one and refuses --round best, naming why.
TEST_F(JobCliTest, ExportRefusesBestOnDeviceHeldValidationData) {
  testing::EnrollDevices(t_.db(), 6);
  const std::string validation = WriteFile("v.libsvm", "+1 1:1\n");
  const std::string toml =
      testing::JobToml("cli", "prox-admm", testing::DefaultPrivacyTable(),
                       testing::DefaultSamplingTable()) +
      "[validation]\ndata = \"" + validation + "\"\nheld_by = \"devices\"\n";
  const testing::CommandResult refused =
      Cli("create " + WriteFile("best.toml", toml + "release = \"best\"\n"));
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.output.find("validation.release"), std::string::npos)
      << refused.output;
  ASSERT_EQ(Cli("create " + WriteFile("job.toml", toml)).exit_code, 0);
  ASSERT_EQ(Cli("start cli").exit_code, 0);
  DenseDataset one;
  one.dim = 3;
  one.samples = 1;
  one.features = {1, 0, 0};
  one.labels = {1};
  const rounds::Validator validator(jobs::Loss::kLogistic, one);
  TrainValidated("cli", {1.0, -1.0}, validator);
  const testing::CommandResult best = Cli("export cli --round best");
  EXPECT_EQ(best.exit_code, 1);
  EXPECT_NE(best.output.find("validation.held_by = \"devices\""),
            std::string::npos)
      << best.output;
  const testing::CommandResult json = Cli("export cli --format json");
  ASSERT_EQ(json.exit_code, 0) << json.output;
  EXPECT_NE(json.output.find("\"selection\": \"last\", \"iteration\": 2,"),
            std::string::npos)
      << json.output;
  const testing::CommandResult status = Cli("status cli");
  EXPECT_NE(status.output.find("best: none (validation data held by the "
                               "devices"),
            std::string::npos)
      << status.output;
}

}  // namespace
}  // namespace edgeadmm

namespace edgeadmm {
namespace {

// secure-aggregation: `job create` plans no Gaussian sigma and prints the
// plan; `job status` prints it with the epsilon's meaning (mechanism,
// neighbouring, conversion, delta, observer), and so does the export.
TEST_F(JobCliTest, SecureAggregationJobPrintsItsPlan) {
  testing::EnrollDevices(t_.db(), 20);
  const testing::CommandResult create =
      Cli("create " + WriteFile("job.toml", testing::SecureAggregationJobToml(
                                                "sa", "prox-admm")));
  ASSERT_EQ(create.exit_code, 0) << create.output;
  EXPECT_EQ(create.output.find("planned sigma"), std::string::npos);
  const testing::CommandResult status = Cli("status sa");
  ASSERT_EQ(status.exit_code, 0) << status.output;
  for (const testing::CommandResult* out : {&create, &status}) {
    for (const char* label :
         {"secure aggregation plan (m = 20, D = 2 dropouts, t = 1 colluders)",
          "masking graph: k = ", "threshold s = ",
          "distributed discrete gaussian: b = ", " bits, gamma = ", "sigma = ",
          "n_h = 17 honest devices (m - D - t)",
          "predicted epsilon over 5 rounds: ",
          "RDP with the improved "
          "conversion, delta 1e-05, against the gateway and any 1 colluding "
          "devices",
          "wrap bound per round: P(wrap) <= 2^-"}) {
      EXPECT_NE(out->output.find(label), std::string::npos)
          << label << " missing from\n"
          << out->output;
    }
  }
  EXPECT_NE(status.output.find("policy secure-aggregation"), std::string::npos);
  EXPECT_NE(status.output.find("the gateway and any 1 colluding devices"),
            std::string::npos);
  auto job = jobs::FindJob(t_.db(), "sa");
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->config.sigma, 0.0);
}

}  // namespace
}  // namespace edgeadmm
