#include "edgeadmm/fleet/process_usage.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace edgeadmm::fleet {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// The value in kB of the `key:` line of /proc/<pid>/status, in bytes.
bool StatusBytes(const std::string& status, const char* key, size_t* bytes) {
  const std::string needle = std::string("\n") + key + ":";
  const size_t at = ("\n" + status).find(needle);
  if (at == std::string::npos) return false;
  const char* value = status.c_str() + at + needle.size() - 1;
  char* end = nullptr;
  const unsigned long long kb = std::strtoull(value, &end, 10);
  if (end == value) return false;
  *bytes = static_cast<size_t>(kb) * 1024;
  return true;
}

}  // namespace

bool ParseProcessUsage(const std::string& stat, const std::string& status,
                       long ticks_per_second, ProcessUsage* usage) {
  // Fields after the command name (which may hold spaces and parentheses):
  // 3 state, ..., 14 utime, 15 stime.
  const size_t close = stat.rfind(')');
  if (close == std::string::npos || ticks_per_second <= 0) return false;
  std::istringstream fields(stat.substr(close + 1));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; i <= 15; ++i) {
    if (!(fields >> field)) return false;
    if (i == 14) utime = std::strtoull(field.c_str(), nullptr, 10);
    if (i == 15) stime = std::strtoull(field.c_str(), nullptr, 10);
  }
  ProcessUsage u;
  u.cpu_seconds = static_cast<double>(utime + stime) /
                  static_cast<double>(ticks_per_second);
  if (!StatusBytes(status, "VmRSS", &u.rss_bytes) ||
      !StatusBytes(status, "VmHWM", &u.peak_rss_bytes)) {
    return false;
  }
  *usage = u;
  return true;
}

bool ReadProcessUsage(int pid, ProcessUsage* usage) {
  if (pid <= 0) return false;
  const std::string dir = "/proc/" + std::to_string(pid);
  return ParseProcessUsage(ReadAll(dir + "/stat"), ReadAll(dir + "/status"),
                           sysconf(_SC_CLK_TCK), usage);
}

}  // namespace edgeadmm::fleet
