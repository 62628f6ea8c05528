// `edgeadmm-fleet`: virtual devices on a host, for the demo, the paper
// reproductions and load tests (docs/device.md). Device-side tooling: it
// links the SDK, the POSIX port and the test doubles of testing/, which the
// admin CLI (`edgeadmm`) does not.
#include "edgeadmm/host/version.h"
#include "fleet_commands.h"

#ifdef EDGEADMM_AUDIT_NOISELESS
#include <cstdio>
#endif

int main(int argc, char** argv) {
#ifdef EDGEADMM_AUDIT_NOISELESS
  std::fprintf(stderr,
               "edgeadmm-fleet-noiseless: AUDIT BUILD, the devices add NO "
               "noise although they report it; for the privacy audit only\n");
#endif
  CLI::App app{"EdgeADMM fleet: many virtual devices in one process"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "edgeadmm-fleet " EDGEADMM_VERSION);
  edgeadmm::fleet::AddSimulatorCommands(app);
  edgeadmm::fleet::AddConnectCommand(app);
  edgeadmm::fleet::AddLoadCommand(app);
  CLI11_PARSE(app, argc, argv);
  return 0;
}
