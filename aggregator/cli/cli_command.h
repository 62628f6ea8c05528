// Self-registering subcommands of the `edgeadmm` admin CLI.
//
// Each command family lives in its own file and registers itself:
//   EDGEADMM_CLI_COMMAND(AddPrivacyCommands);
// where `void AddPrivacyCommands(host::Command& app)` adds subcommands and
// their callbacks (edgeadmm/host/command_line.h). A command's body returns
// host::Error; its callback reports a failure with cli::Exit
// (command_error.h), which prints a clear message to stderr and ends the
// command with its exit code.
#pragma once

#include "edgeadmm/host/command_line.h"

namespace edgeadmm::cli {

using CommandAdder = void (*)(host::Command& app);

// Registers an adder; returns true so it can initialise a static.
bool RegisterCommand(CommandAdder adder);

// Calls every registered adder on `app`.
void AddRegisteredCommands(host::Command& app);

}  // namespace edgeadmm::cli

#define EDGEADMM_CLI_COMMAND(adder)                                    \
  [[maybe_unused]] static const bool edgeadmm_cli_registered_##adder = \
      ::edgeadmm::cli::RegisterCommand(&adder)
