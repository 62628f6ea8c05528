// Runs the real `edgeadmm devices` CLI (EDGEADMM_CLI_PATH) on database `db`.
#pragma once

#include <string>

#include "run_command.h"

namespace edgeadmm::registry {

inline testing::CommandResult RunCli(const std::string& db,
                                     const std::string& args) {
  return testing::RunCommand(std::string(EDGEADMM_CLI_PATH) + " devices " +
                             args + " --db " + db);
}

}  // namespace edgeadmm::registry
