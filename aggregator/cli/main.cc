// `edgeadmm`: the admin CLI of the aggregator (devices, jobs, privacy, export).
#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli_command.h"
#include "edgeadmm/host/version.h"

int main(int argc, char** argv) {
  CLI::App app{
      "EdgeADMM admin CLI: private federated ADMM on constrained devices"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "edgeadmm " EDGEADMM_VERSION);
  edgeadmm::cli::AddRegisteredCommands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {
    return e.get_exit_code();  // a command's own exit (command_error.h)
  } catch (const CLI::ParseError& e) {
    // --help exits 0; a value CLI11 cannot read is a usage error: 2.
    return app.exit(e) == 0 ? 0 : 2;
  }
  return 0;
}
