#include "metrics_file.h"

#include <fstream>

namespace edgeadmm::testing {

int64_t MetricsFileValue(const std::string& path, const std::string& name) {
  std::ifstream in(path);
  const std::string prefix = name + " ";
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) == 0) {
      return std::stoll(line.substr(prefix.size()));
    }
  }
  return -1;
}

}  // namespace edgeadmm::testing
