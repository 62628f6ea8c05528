// The programs' command-line layer over CLI11 (edgeadmm/host/command_line.h):
// values reach their variables, each check refuses what it should, a
// command's exit code and a usage error come back from RunCommandLine.
#include "edgeadmm/host/command_line.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace edgeadmm::host {
namespace {

enum class Mode : uint8_t { kFirst, kSecond };

// What the one subcommand `go` saw.
struct Seen {
  bool ran = false;
  int count = 0;
  double share = 0.5;
  std::vector<unsigned> sizes;
  std::string name = "none";
  Mode mode = Mode::kFirst;
  bool flag = false;
  bool count_given = false;
  std::string called;
  int exit_code = 0;  // the run ends with this code when not 0
};

int RunProgram(std::vector<std::string> args, Seen& seen,
               bool usage_error_two = false) {
  args.insert(args.begin(), "program");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return RunCommandLine(
      "test program", "program 1.0",
      [&seen](Command& app) {
        Command go = app.AddSubcommand("go", "the one command");
        const CommandOption count =
            go.AddOption("--count", seen.count, "a positive count").Positive();
        go.AddOption("--share", seen.share, "in [0, 1]").InRange(0.0, 1.0);
        go.AddOption("--sizes", seen.sizes, "comma list").Delimiter(',');
        go.AddOption("--name", seen.name, "one of a, b").OneOf({"a", "b"});
        go.AddChoice("--mode", seen.mode,
                     {{"first", Mode::kFirst}, {"second", Mode::kSecond}},
                     "first or second")
            .Needs(count);
        go.AddFlag("--flag", seen.flag, "a flag");
        go.AddOptionCalling<std::string>(
              "--call", [&seen](const std::string& v) { seen.called = v; },
              "called with the text")
            .Check([](const std::string& v) {
              return v.size() == 2 ? "" : "two characters";
            });
        go.OnRun([&seen, count] {
          seen.ran = true;
          seen.count_given = count.Given();
          if (seen.exit_code != 0) ExitCommandLine(seen.exit_code);
        });
      },
      static_cast<int>(argv.size()), argv.data(), usage_error_two);
}

TEST(CommandLineTest, ValuesReachTheirVariables) {
  Seen seen;
  EXPECT_EQ(
      RunProgram({"go", "--count", "3", "--share", "0.25", "--sizes", "4,5,6",
                  "--name", "b", "--mode", "SECOND", "--flag", "--call", "xy"},
                 seen),
      0);
  EXPECT_TRUE(seen.ran);
  EXPECT_EQ(seen.count, 3);
  EXPECT_TRUE(seen.count_given);
  EXPECT_DOUBLE_EQ(seen.share, 0.25);
  EXPECT_EQ(seen.sizes, (std::vector<unsigned>{4, 5, 6}));
  EXPECT_EQ(seen.name, "b");
  EXPECT_EQ(seen.mode, Mode::kSecond);  // any case
  EXPECT_TRUE(seen.flag);
  EXPECT_EQ(seen.called, "xy");

  Seen defaults;
  EXPECT_EQ(RunProgram({"go"}, defaults), 0);
  EXPECT_TRUE(defaults.ran);
  EXPECT_FALSE(defaults.count_given);
  EXPECT_EQ(defaults.mode, Mode::kFirst);
  EXPECT_FALSE(defaults.flag);
}

TEST(CommandLineTest, ChecksRefuseAndTheCommandDoesNotRun) {
  const std::vector<std::vector<std::string>> refused = {
      {"go", "--count", "0"},                     // Positive
      {"go", "--share", "1.5"},                   // InRange
      {"go", "--name", "c"},                      // OneOf
      {"go", "--mode", "third", "--count", "1"},  // AddChoice
      {"go", "--mode", "first"},                  // Needs --count
      {"go", "--call", "xyz"},                    // Check
      {"go", "--count", "x"},                     // not an integer
      {"elsewhere"},                              // no such subcommand
      {},                                         // a subcommand is required
  };
  for (const auto& args : refused) {
    Seen seen;
    const int code = RunProgram(args, seen);
    EXPECT_NE(code, 0) << args.size();
    EXPECT_FALSE(seen.ran) << args.size();
    Seen two;
    EXPECT_EQ(RunProgram(args, two, /*usage_error_two=*/true), 2);
  }
}

TEST(CommandLineTest, ACommandsOwnExitCodeAndTheBuiltInFlags) {
  Seen seen;
  seen.exit_code = 7;
  EXPECT_EQ(RunProgram({"go"}, seen, /*usage_error_two=*/true), 7);
  EXPECT_TRUE(seen.ran);
  Seen help;
  EXPECT_EQ(RunProgram({"--help"}, help, /*usage_error_two=*/true), 0);
  Seen version;
  EXPECT_EQ(RunProgram({"--version"}, version), 0);
  EXPECT_FALSE(help.ran || version.ran);
}

}  // namespace
}  // namespace edgeadmm::host
