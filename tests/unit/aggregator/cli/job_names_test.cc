// Job names (issue 32 item 6): before, a newline in a name injected a
// `#define` into the C-header export, made the JSON export invalid and
// reached the log. `job create` now takes 1..64 characters of
// [A-Za-z0-9._-]; a name stored before that rule still exports safely.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <initializer_list>
#include <string>

#include "edgeadmm/jobs/job_config.h"
#include "edgeadmm/jobs/job_report.h"
#include "edgeadmm/jobs/model_header.h"
#include "job_cli_fixture.h"

namespace edgeadmm {
namespace {

TEST_F(JobCliTest, CreateTakesOnlyNamesOfTheRule) {
  testing::EnrollDevices(t_.db(), 6);
  const auto create = [&](const std::string& name) {
    return Cli("create " + WriteFile("job.toml",
                                     testing::JobToml(
                                         name, "prox-admm",
                                         testing::DefaultPrivacyTable(),
                                         testing::DefaultSamplingTable())));
  };
  for (const std::string& bad : std::initializer_list<std::string>{
           "cli\\n#define EVIL 1", "a b", "x/y", "caf\\u00e9", "ok\\t",
        std::string(65, 'a')}) {
    const testing::CommandResult refused = create(bad);
    EXPECT_EQ(refused.exit_code, 2) << bad << ": " << refused.output;
    EXPECT_NE(refused.output.find(bad.size() > 64 ? "job.name: must be 1..64"
                                                  : jobs::kJobNameRule),
              std::string::npos)
        << refused.output;
  }
  EXPECT_FALSE(jobs::FindJob(t_.db(), "a b").ok());
  const testing::CommandResult ok = create("A-z_0.9" + std::string(57, 'x'));
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
}

TEST_F(JobCliTest, AnOldNameWithANewlineExportsEscaped) {
  CreateAndTrain(testing::DefaultPrivacyTable());
  // As a database from before the rule holds it.
  ASSERT_TRUE(t_.db()
                  .Exec("UPDATE jobs SET name = 'cli' || char(10) || "
                        "'#define EVIL 1', config = replace(config, "
                        "'name = \"cli\"', 'name = \"cli\\n#define EVIL 1\"')")
                  .ok());
  const std::string name = "cli\n#define EVIL 1";
  auto model = jobs::LoadReleasedModel(t_.db(), name);
  ASSERT_TRUE(model.ok()) << model.error().message();
  const std::string json = jobs::ModelToJson(*model);
  EXPECT_EQ(json.rfind("{\"job\": \"cli\\u000a#define EVIL 1\", ", 0), 0u)
      << json;
  EXPECT_EQ(std::count(json.begin(), json.end(), '\n'), 1) << json;
  auto exported = jobs::ModelToCHeader(*model);
  ASSERT_TRUE(exported.ok()) << exported.error().message();
  const std::string& header = exported->text;
  EXPECT_EQ(header.find("\n#define EVIL"), std::string::npos) << header;
  WriteFile("model.h", header);
  const std::string c = WriteFile(
      "use.c",
      "#include \"model.h\"\n#ifdef EVIL\n#error injected\n#endif\n"
      "int main(void) { return cli__define_EVIL_1_weights[0] > 0 ? 0 : 1; }\n");
  const testing::CommandResult cc = testing::RunCommand(
      "cc -std=c99 -pedantic -Wall -Werror -o " + t_.dir() + "/use " + c);
  EXPECT_EQ(cc.exit_code, 0) << cc.output << header;
}

// The longest name of the rule, starting with a digit: a C prefix with a
// letter in front, every header line within 100 characters, float and int8
// headers that compile as strict C99 with their predict function.
TEST_F(JobCliTest, ALongNameMakesAValidPrefixAndShortLines) {
  CreateAndTrain(testing::DefaultPrivacyTable());
  const std::string name = "9-" + std::string(62, 'x');
  ASSERT_TRUE(t_.db()
                  .Exec("UPDATE jobs SET name = '" + name +
                        "', config = replace(config, 'name = \"cli\"', "
                        "'name = \"" + name + "\"')")
                  .ok());
  const std::string prefix = "m_9_" + std::string(62, 'x');
  EXPECT_EQ(jobs::CModelPrefix(name), prefix);
  EXPECT_EQ(jobs::CModelPrefix("a9a.v2"), "a9a_v2");
  for (const char* quantize : {"none", "int8"}) {
    const std::string h = t_.dir() + "/long.h";
    const testing::CommandResult exported = Cli(
        "export " + name + " --format header -o " + h + " --quantize " +
        quantize);
    ASSERT_EQ(exported.exit_code, 0) << exported.output;
    EXPECT_EQ(exported.output.find("max weight error") != std::string::npos,
              std::string(quantize) == "int8")
        << exported.output;
    std::ifstream in(h);
    std::string line, header;
    size_t longest = 0;
    while (std::getline(in, line)) {
      longest = std::max(longest, line.size());
      header += line + "\n";
    }
    EXPECT_LE(longest, 100u) << header;
    const std::string c = WriteFile(
        "long.c", "#include \"long.h\"\nint main(void) {\n"
                  "  const float x[3] = {1.0f, 0.0f, 0.0f};\n"
                  "  return " + prefix + "_predict(x) == 1 ? 0 : 1;\n}\n");
    const testing::CommandResult cc = testing::RunCommand(
        "cc -std=c99 -pedantic -Wall -Werror -o " + t_.dir() + "/long " + c +
        " && " + t_.dir() + "/long");
    EXPECT_EQ(cc.exit_code, 0) << quantize << ": " << cc.output << header;
  }
}

// Squared loss: predict returns the value w.x (a float), not a label.
TEST_F(JobCliTest, ASquaredLossHeaderPredictsTheValue) {
  CreateAndTrain(testing::DefaultPrivacyTable());
  ASSERT_TRUE(t_.db()
                  .Exec("UPDATE jobs SET config = replace(config, "
                        "'loss = \"logistic\"', 'loss = \"squared\"')")
                  .ok());
  auto model = jobs::LoadReleasedModel(t_.db(), "cli");
  ASSERT_TRUE(model.ok()) << model.error().message();
  ASSERT_EQ(model->job.config.loss, jobs::Loss::kSquared);
  auto exported = jobs::ModelToCHeader(*model);
  ASSERT_TRUE(exported.ok()) << exported.error().message();
  EXPECT_NE(exported->text.find("static inline float cli_predict("),
            std::string::npos)
      << exported->text;
  WriteFile("sq.h", exported->text);
  const std::string c = WriteFile(
      "sq.c", "#include \"sq.h\"\nint main(void) {\n"
              "  const float x[3] = {2.0f, 0.0f, 0.0f};\n"
              "  return cli_predict(x) == 2.0f * cli_weights[0] ? 0 : 1;\n}\n");
  const testing::CommandResult cc = testing::RunCommand(
      "cc -std=c99 -pedantic -Wall -Werror -o " + t_.dir() + "/sq " + c +
      " && " + t_.dir() + "/sq");
  EXPECT_EQ(cc.exit_code, 0) << cc.output << exported->text;
}

// A released vector that is not one weight per feature (a broadcast
// rather than a model) or has a coordinate float32 cannot hold gets no
// header.
TEST_F(JobCliTest, AHeaderNeedsOneFiniteWeightPerFeature) {
  CreateAndTrain(testing::DefaultPrivacyTable());
  auto model = jobs::LoadReleasedModel(t_.db(), "cli");
  ASSERT_TRUE(model.ok()) << model.error().message();
  ASSERT_TRUE(jobs::ModelToCHeader(*model).ok());
  jobs::ReleasedModelRecord wide = *model;
  wide.z.push_back(0.5);
  auto refused = jobs::ModelToCHeader(wide);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message().find("4 values"), std::string::npos)
      << refused.error().message();
  jobs::ReleasedModelRecord huge = *model;
  huge.z[1] = 1e39;
  EXPECT_FALSE(jobs::ModelToCHeader(huge).ok());
  jobs::ReleasedModelRecord nan = *model;
  nan.z[2] = std::nan("");
  EXPECT_FALSE(jobs::ModelToCHeader(nan, jobs::HeaderWeights::kInt8).ok());
}

}  // namespace
}  // namespace edgeadmm
