// The command line of `edgeadmm-fleet`: the App with every subcommand of
// fleet_commands.h, parsed. Compiled once for both executables (main.cc
// differs between them), since each source that includes CLI11 costs about
// 7 CPU-seconds at -O2 -g.
#include "edgeadmm/host/version.h"
#include "fleet_commands.h"

namespace edgeadmm::fleet {

int RunFleetCommandLine(int argc, char** argv) {
  CLI::App app{"EdgeADMM fleet: many virtual devices in one process"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "edgeadmm-fleet " EDGEADMM_VERSION);
  AddSimulatorCommands(app);
  AddConnectCommand(app);
  AddLoadCommand(app);
  CLI11_PARSE(app, argc, argv);
  return 0;
}

}  // namespace edgeadmm::fleet
