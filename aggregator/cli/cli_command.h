// Self-registering subcommands of the `edgeadmm` admin CLI.
//
// Each command family lives in its own file and registers itself:
//   EDGEADMM_CLI_COMMAND(AddPrivacyCommands);
// where `void AddPrivacyCommands(CLI::App& app)` adds subcommands and their
// callbacks. A command's body returns host::Error; its callback reports a
// failure with cli::Exit (command_error.h), which prints a clear message to
// stderr and throws CLI::RuntimeError(code).
#pragma once

// Only a reference to CLI::App crosses this header: the registry's own
// source does not parse CLI11 (about 7 CPU-seconds per source at -O2 -g).
namespace CLI {
class App;
}  // namespace CLI

namespace edgeadmm::cli {

using CommandAdder = void (*)(CLI::App& app);

// Registers an adder; returns true so it can initialise a static.
bool RegisterCommand(CommandAdder adder);

// Calls every registered adder on `app`.
void AddRegisteredCommands(CLI::App& app);

}  // namespace edgeadmm::cli

#define EDGEADMM_CLI_COMMAND(adder)                                    \
  [[maybe_unused]] static const bool edgeadmm_cli_registered_##adder = \
      ::edgeadmm::cli::RegisterCommand(&adder)
