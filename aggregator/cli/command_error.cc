#include "command_error.h"

#include <cstdio>

#include "edgeadmm/host/command_line.h"

namespace edgeadmm::cli {

void Exit(const std::string& command, const std::string& text, int exit_code) {
  std::fprintf(stderr, "%s: %s\n", command.c_str(), text.c_str());
  host::ExitCommandLine(exit_code);
}

void ExitOnError(const std::string& command, const host::Error& error) {
  if (!error.ok()) Exit(command, error.message(), 1);
}

host::Error Failed(const std::string& what, Status status) {
  return host::Error(status, what + ": " + status.str());
}

}  // namespace edgeadmm::cli
