// The command line of `edgeadmm-fleet`: every subcommand of
// fleet_commands.h, parsed by edgeadmm/host/command_line.h. Compiled once
// for both executables (main.cc differs between them).
#include "fleet_cli.h"

#include "edgeadmm/host/command_line.h"
#include "edgeadmm/host/version.h"
#include "fleet_commands.h"

namespace edgeadmm::fleet {

int RunFleetCommandLine(int argc, char** argv) {
  return host::RunCommandLine(
      "EdgeADMM fleet: many virtual devices in one process",
      "edgeadmm-fleet " EDGEADMM_VERSION,
      [](host::Command& app) {
        AddSimulatorCommands(app);
        AddConnectCommand(app);
        AddLoadCommand(app);
      },
      argc, argv);
}

}  // namespace edgeadmm::fleet
