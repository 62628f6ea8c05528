// `edgeadmm-fleet`'s command line (fleet_cli.cc), for the two executables'
// main.cc.
#pragma once

namespace edgeadmm::fleet {

// Parses argv, runs the chosen subcommand; returns the process's exit code
// (0, a command's own code, or CLI11's for a usage error or --help).
int RunFleetCommandLine(int argc, char** argv);

}  // namespace edgeadmm::fleet
