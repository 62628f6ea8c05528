// `edgeadmm`: the admin CLI of the aggregator (devices, jobs, privacy, export).
#include <cstdio>

#include "cli_command.h"

int main(int argc, char** argv) {
  CLI::App app{"EdgeADMM admin CLI: private federated ADMM on constrained devices"};
  app.require_subcommand(1);
  edgeadmm::cli::AddRegisteredCommands(app);
  CLI11_PARSE(app, argc, argv);
  return 0;
}
