// Job names (issue 32 item 6): before, a newline in a name injected a
// `#define` into the C-header export, made the JSON export invalid and
// reached the log. `job create` now takes 1..64 characters of
// [A-Za-z0-9._-]; a name stored before that rule still exports safely.
#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <string>

#include "edgeadmm/jobs/job_config.h"
#include "edgeadmm/jobs/job_report.h"
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
  const std::string header = jobs::ModelToCHeader(*model);
  EXPECT_EQ(header.find("\n#define EVIL"), std::string::npos) << header;
  WriteFile("model.h", header);
  const std::string c = WriteFile(
      "use.c",
      "#include \"model.h\"\n#ifdef EVIL\n#error injected\n#endif\n"
      "int main(void) { return kEdgeadmmModel[0] > 0 ? 0 : 1; }\n");
  const testing::CommandResult cc = testing::RunCommand(
      "cc -Wall -Werror -o " + t_.dir() + "/use " + c);
  EXPECT_EQ(cc.exit_code, 0) << cc.output << header;
}

}  // namespace
}  // namespace edgeadmm
