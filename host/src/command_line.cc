// The one source of the host programs that includes CLI11
// (command_line.h).
#include "edgeadmm/host/command_line.h"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <map>

namespace edgeadmm::host {

CommandOption& CommandOption::Required() {
  option_->required();
  return *this;
}

CommandOption& CommandOption::CaptureDefault() {
  option_->capture_default_str();
  return *this;
}

CommandOption& CommandOption::Delimiter(char split) {
  option_->delimiter(split);
  return *this;
}

CommandOption& CommandOption::Needs(const CommandOption& other) {
  option_->needs(other.option_);
  return *this;
}

CommandOption& CommandOption::Needs(const char* other_name) {
  option_->needs(std::string(other_name));
  return *this;
}

CommandOption& CommandOption::Excludes(const CommandOption& other) {
  option_->excludes(other.option_);
  return *this;
}

CommandOption& CommandOption::Positive() {
  option_->check(CLI::PositiveNumber);
  return *this;
}

CommandOption& CommandOption::NonNegative() {
  option_->check(CLI::NonNegativeNumber);
  return *this;
}

CommandOption& CommandOption::InRange(unsigned low, unsigned high) {
  option_->check(CLI::Range(low, high));
  return *this;
}

CommandOption& CommandOption::InRange(double low, double high) {
  option_->check(CLI::Range(low, high));
  return *this;
}

CommandOption& CommandOption::OneOf(std::vector<std::string> names) {
  option_->check(CLI::IsMember(std::move(names)));
  return *this;
}

CommandOption& CommandOption::Check(
    std::function<std::string(const std::string&)> check) {
  option_->check(CLI::Validator(
      [check = std::move(check)](std::string& text) { return check(text); },
      ""));
  return *this;
}

bool CommandOption::Given() const { return option_->count() != 0; }

Command Command::AddSubcommand(const std::string& name,
                               const std::string& description) {
  return Command(app_->add_subcommand(name, description));
}

template <typename T>
CommandOption Command::AddOption(const std::string& name, T& into,
                                 const std::string& description) {
  return CommandOption(app_->add_option(name, into, description));
}

// The value types the programs' options have (a missing one is a link
// error naming it).
#define EDGEADMM_COMMAND_OPTION_TYPE(T)                                \
  template CommandOption Command::AddOption<T>(const std::string&, T&, \
                                               const std::string&);    \
  template CommandOption Command::AddOption<std::vector<T>>(           \
      const std::string&, std::vector<T>&, const std::string&)
EDGEADMM_COMMAND_OPTION_TYPE(std::string);
EDGEADMM_COMMAND_OPTION_TYPE(int);
EDGEADMM_COMMAND_OPTION_TYPE(unsigned);
EDGEADMM_COMMAND_OPTION_TYPE(long);
EDGEADMM_COMMAND_OPTION_TYPE(unsigned long);
EDGEADMM_COMMAND_OPTION_TYPE(long long);
EDGEADMM_COMMAND_OPTION_TYPE(unsigned long long);
EDGEADMM_COMMAND_OPTION_TYPE(unsigned char);
EDGEADMM_COMMAND_OPTION_TYPE(unsigned short);
EDGEADMM_COMMAND_OPTION_TYPE(double);
#undef EDGEADMM_COMMAND_OPTION_TYPE

template <typename T>
CommandOption Command::AddOptionCalling(const std::string& name,
                                        std::function<void(const T&)> take,
                                        const std::string& description) {
  return CommandOption(
      app_->add_option_function<T>(name, std::move(take), description));
}
template CommandOption Command::AddOptionCalling<std::string>(
    const std::string&, std::function<void(const std::string&)>,
    const std::string&);
template CommandOption Command::AddOptionCalling<std::vector<std::string>>(
    const std::string&, std::function<void(const std::vector<std::string>&)>,
    const std::string&);

CommandOption Command::AddFlag(const std::string& name, bool& into,
                               const std::string& description) {
  return CommandOption(app_->add_flag(name, into, description));
}

CommandOption Command::AddNumberedChoice(
    const std::string& name, std::function<void(int)> take,
    std::vector<std::pair<std::string, int>> names,
    const std::string& description) {
  const std::map<std::string, int> map(names.begin(), names.end());
  CLI::Option* option =
      app_->add_option_function<int>(name, std::move(take), description);
  option->transform(CLI::CheckedTransformer(map, CLI::ignore_case));
  option->type_name("ENUM");  // as an option of the enum type would say
  return CommandOption(option);
}

CommandOption Command::Option(const std::string& name) {
  return CommandOption(app_->get_option(name));
}

Command& Command::RequireSubcommand() {
  app_->require_subcommand(1);
  return *this;
}

Command& Command::Fallthrough() {
  app_->fallthrough();
  return *this;
}

Command& Command::OnRun(std::function<void()> run) {
  app_->callback(std::move(run));
  return *this;
}

void ExitCommandLine(int exit_code) { throw CLI::RuntimeError(exit_code); }

int RunCommandLine(const std::string& description, const std::string& version,
                   const std::function<void(Command&)>& add, int argc,
                   char** argv, bool usage_error_two) {
  CLI::App app{description};
  app.require_subcommand(1);
  app.set_version_flag("--version", version);
  Command program(&app);
  add(program);
  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {
    return e.get_exit_code();  // a command's own exit (ExitCommandLine)
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);  // prints help, the version or the error
    return usage_error_two && code != 0 ? 2 : code;
  }
  return 0;
}

}  // namespace edgeadmm::host
