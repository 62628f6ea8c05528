#include "cli_command.h"

#include <vector>

namespace edgeadmm::cli {
namespace {
std::vector<CommandAdder>& Registry() {
  static std::vector<CommandAdder> adders;
  return adders;
}
}  // namespace

bool RegisterCommand(CommandAdder adder) {
  Registry().push_back(adder);
  return true;
}

void AddRegisteredCommands(host::Command& app) {
  for (CommandAdder adder : Registry()) adder(app);
}

}  // namespace edgeadmm::cli
