// The command lines of the host programs (`edgeadmm`, `edgeadmm-fleet`):
// subcommands, options and flags described through this header and parsed
// by CLI11 in one source (command_line.cc), so a command's own source does
// not include CLI11 (about 4 CPU-seconds for the include alone and 7-14 per
// source at -O2 -g; docs/architecture.md, "Build time"). The help text,
// error messages and exit codes are CLI11's: the names below say which of
// its calls each one makes.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace edgeadmm::host {

// One option or flag of a Command. A copy refers to the same option.
class CommandOption {
 public:
  explicit CommandOption(CLI::Option* option) : option_(option) {}

  CommandOption& Required();             // ->required()
  CommandOption& CaptureDefault();       // ->capture_default_str()
  CommandOption& Delimiter(char split);  // ->delimiter(split)
  // Only with `other` (->needs); never with it (->excludes).
  CommandOption& Needs(const CommandOption& other);
  CommandOption& Needs(const char* other_name);
  CommandOption& Excludes(const CommandOption& other);
  // CLI::PositiveNumber, CLI::NonNegativeNumber, CLI::Range(low, high) of
  // the type given, CLI::IsMember(names).
  CommandOption& Positive();
  CommandOption& NonNegative();
  CommandOption& InRange(unsigned low, unsigned high);
  CommandOption& InRange(double low, double high);
  CommandOption& OneOf(std::vector<std::string> names);
  // A check of the text given: "" accepts it, anything else is the error.
  CommandOption& Check(std::function<std::string(const std::string&)> check);

  // Whether the command line gave it (->count() != 0).
  bool Given() const;

 private:
  CLI::Option* option_;
};

// The program or one of its subcommands. A copy refers to the same one.
class Command {
 public:
  explicit Command(CLI::App* app) : app_(app) {}

  Command AddSubcommand(const std::string& name,
                        const std::string& description);
  // ->add_option(name, into, description) for the value types that
  // command_line.cc instantiates (integers, floating point, std::string and
  // std::vector of those).
  template <typename T>
  CommandOption AddOption(const std::string& name, T& into,
                          const std::string& description);
  // ->add_option_function<T>: `take` gets the value given, T being
  // std::string or std::vector<std::string> (a repeatable option).
  template <typename T>
  CommandOption AddOptionCalling(const std::string& name,
                                 std::function<void(const T&)> take,
                                 const std::string& description);
  CommandOption AddFlag(const std::string& name, bool& into,
                        const std::string& description);
  // An option whose text is one of `names`, in any case, and sets `into` to
  // the value named (CLI::CheckedTransformer with CLI::ignore_case).
  template <typename Enum>
  CommandOption AddChoice(
      const std::string& name, Enum& into,
      const std::vector<std::pair<std::string, Enum>>& names,
      const std::string& description) {
    std::vector<std::pair<std::string, int>> numbered;
    for (const auto& [text, value] : names) {
      numbered.emplace_back(text, static_cast<int>(value));
    }
    return AddNumberedChoice(
        name, [&into](int value) { into = static_cast<Enum>(value); },
        std::move(numbered), description);
  }
  // AddChoice's work: `take` gets the number of the name given.
  CommandOption AddNumberedChoice(
      const std::string& name, std::function<void(int)> take,
      std::vector<std::pair<std::string, int>> names,
      const std::string& description);
  // An option added before, by name (->get_option).
  CommandOption Option(const std::string& name);

  Command& RequireSubcommand();  // ->require_subcommand(1)
  Command& Fallthrough();        // ->fallthrough()
  // What the subcommand does once its options are parsed (->callback).
  // It may end the program with ExitCommandLine.
  Command& OnRun(std::function<void()> run);

 private:
  CLI::App* app_;
};

// Ends the command that runs with `exit_code` (CLI::RuntimeError): the
// program's RunCommandLine returns it. The caller has printed why.
[[noreturn]] void ExitCommandLine(int exit_code);

// The program: its description, its `--version` text, its subcommands
// (`add` describes them; exactly one is required), then argv parsed and the
// chosen subcommand run. Returns the exit code: 0, a command's
// ExitCommandLine code, 0 for --help and --version, and CLI11's code for
// a usage error, or 2 for every usage error with `usage_error_two`.
int RunCommandLine(const std::string& description, const std::string& version,
                   const std::function<void(Command&)>& add, int argc,
                   char** argv, bool usage_error_two = false);

}  // namespace edgeadmm::host
