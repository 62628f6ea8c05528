// ProcessUsage: what another process (the daemon under load) uses, read from
// /proc/<pid>/stat and /proc/<pid>/status: CPU seconds (user + system, all
// threads) and resident memory now and at its peak. Linux only.
#pragma once

#include <cstddef>
#include <string>

namespace edgeadmm::fleet {

struct ProcessUsage {
  double cpu_seconds = 0;     // utime + stime
  size_t rss_bytes = 0;       // VmRSS
  size_t peak_rss_bytes = 0;  // VmHWM
};

// False if the process does not exist (or /proc cannot be read).
bool ReadProcessUsage(int pid, ProcessUsage* usage);

// ReadProcessUsage(`stat_path`'s and `status_path`'s contents): the parsing,
// testable on fixed text. False if a field is missing.
bool ParseProcessUsage(const std::string& stat, const std::string& status,
                       long ticks_per_second, ProcessUsage* usage);

}  // namespace edgeadmm::fleet
