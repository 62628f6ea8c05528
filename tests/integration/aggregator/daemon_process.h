// DaemonProcess: runs edgeadmm-aggregatord as a child process for a test,
// waits until it listens, and stops it with SIGTERM (or SIGKILL). The hook
// the fleet end-to-end and crash tests build on.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace edgeadmm::testing {

class DaemonProcess {
 public:
  // Starts `binary` with `args`; waits up to 10 s for its "listening on
  // port N" line. started() tells whether that worked.
  DaemonProcess(const std::string& binary,
                const std::vector<std::string>& args);
  ~DaemonProcess();
  bool started() const { return port_ != 0; }
  unsigned port() const { return port_; }
  pid_t pid() const { return pid_; }
  // SIGTERM, then waits up to `timeout_ms`; returns the exit code, or -1 if
  // it had to be killed or died from a signal.
  int Terminate(int timeout_ms = 5000);
  // SIGKILL without waiting for anything (a power cut).
  void Kill();

 private:
  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  unsigned port_ = 0;
};

// A "kB" field of /proc/<pid>/status ("VmRSS", "VmSize"); -1 if absent.
long ProcStatusKb(pid_t pid, const std::string& field);

// A UDP port on 127.0.0.1, below the ephemeral range, free a moment ago.
unsigned FreeUdpPort();
// True if UDP `port` on loopback is free (our own bind succeeds).
bool UdpPortFree(unsigned port);

// Writes `dir`/aggregatord.toml (database `database`, 127.0.0.1, a free
// port, then `server_lines` in its [server] table) and returns the
// daemon's arguments for it (with --db `database`, which beats
// $EDGEADMM_DB).
std::vector<std::string> DaemonArgs(const std::string& dir,
                                    const std::string& database,
                                    const std::string& server_lines = "");

}  // namespace edgeadmm::testing
