// Runs a shell command and captures its exit code and combined output.
#pragma once

#include <string>

namespace edgeadmm::testing {

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

CommandResult RunCommand(const std::string& command);

}  // namespace edgeadmm::testing
