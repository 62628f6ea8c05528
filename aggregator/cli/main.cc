// `edgeadmm`: the admin CLI of the aggregator (devices, jobs, privacy, export).
#include "cli_command.h"
#include "edgeadmm/host/command_line.h"
#include "edgeadmm/host/version.h"

int main(int argc, char** argv) {
  // --help and --version exit 0; a value that cannot be read is a usage
  // error: 2.
  return edgeadmm::host::RunCommandLine(
      "EdgeADMM admin CLI: private federated ADMM on constrained devices",
      "edgeadmm " EDGEADMM_VERSION, edgeadmm::cli::AddRegisteredCommands, argc,
      argv, /*usage_error_two=*/true);
}
