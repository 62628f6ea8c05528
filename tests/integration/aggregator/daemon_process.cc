#include "daemon_process.h"

#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>

#include "edgeadmm/posix/monotonic_clock.h"

namespace edgeadmm::testing {

DaemonProcess::DaemonProcess(const std::string& binary,
                             const std::vector<std::string>& args) {
  int fds[2];
  if (pipe(fds) != 0) return;
  pid_ = fork();
  if (pid_ == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(binary.c_str()));
    for (const std::string& a : args)
      argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  close(fds[1]);
  stdout_fd_ = fds[0];
  std::string text;
  const uint64_t start = posix::MonotonicMs();
  while (posix::MonotonicMs() - start < 10'000 && port_ == 0) {
    pollfd pfd{stdout_fd_, POLLIN, 0};
    if (poll(&pfd, 1, 100) <= 0) continue;
    char buffer[256];
    const ssize_t n = read(stdout_fd_, buffer, sizeof(buffer));
    if (n <= 0) break;
    text.append(buffer, static_cast<size_t>(n));
    const size_t at = text.find("listening on port ");
    if (at != std::string::npos && text.find('\n', at) != std::string::npos) {
      port_ = static_cast<unsigned>(std::atoi(text.c_str() + at + 18));
    }
  }
}

DaemonProcess::~DaemonProcess() {
  if (pid_ > 0) Kill();
  if (stdout_fd_ >= 0) close(stdout_fd_);
}

int DaemonProcess::Terminate(int timeout_ms) {
  if (pid_ <= 0) return -1;
  kill(pid_, SIGTERM);
  const uint64_t start = posix::MonotonicMs();
  const uint64_t limit = static_cast<uint64_t>(std::max(timeout_ms, 0));
  int status = 0;
  while (posix::MonotonicMs() - start < limit) {
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    usleep(10'000);
  }
  Kill();
  return -1;
}

void DaemonProcess::Kill() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

// A port below the kernel's ephemeral range (20000..32767): the daemon binds
// it a moment later, and again after RestartDaemon, and a port of the
// ephemeral range could be handed to another process's socket in between.
unsigned FreeUdpPort() {
  std::random_device seed;
  std::mt19937 rng(seed());
  std::uniform_int_distribution<unsigned> pick(20000, 32767);
  for (int attempt = 0; attempt < 1000; ++attempt) {
    const unsigned port = pick(rng);
    if (UdpPortFree(port)) return port;
  }
  return 0;
}

bool UdpPortFree(unsigned port) {
  const int fd = socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  const bool free =
      bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  return free;
}

std::vector<std::string> DaemonArgs(const std::string& dir,
                                    const std::string& database,
                                    const std::string& server_lines) {
  const std::string config = dir + "/aggregatord.toml";
  std::ofstream(config) << "[store]\ndatabase = \"" << database
                        << "\"\n[server]\naddress = \"127.0.0.1\"\nport = "
                        << FreeUdpPort() << "\n"
                        << server_lines;
  // --db as well: an EDGEADMM_DB of the caller's shell would otherwise win
  // over the config (docs/aggregator.md, "The daemon").
  return {"--config", config, "--db", database};
}

long ProcStatusKb(pid_t pid, const std::string& field) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  const std::string prefix = field + ":";
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(prefix, 0) == 0)
      return std::stol(line.substr(prefix.size()));
  }
  return -1;
}

}  // namespace edgeadmm::testing
