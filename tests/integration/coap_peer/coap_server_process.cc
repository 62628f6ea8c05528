#include "coap_server_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <thread>

#ifndef EDGEADMM_COAP_SERVER
#define EDGEADMM_COAP_SERVER "/usr/bin/coap-server-openssl"
#endif

namespace edgeadmm::testing {
namespace {

int BindLoopback(uint16_t port) {
  const int fd = socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd >= 0 && bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0) {
    return fd;
  }
  if (fd >= 0) close(fd);
  return -1;
}

uint16_t PortOf(int fd) {
  sockaddr_in a{};
  socklen_t length = sizeof(a);
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &length);
  return ntohs(a.sin_port);
}

// True if something on 127.0.0.1:port holds the UDP port (bind fails).
// True once the server answers a CoAP ping (an empty confirmable message,
// answered with a reset, RFC 7252 section 4.3) on its plain UDP `port`;
// pings again every 100 ms, for up to `limit_ms`. Binding its ports is not
// enough: coap-server-openssl ignored a datagram that came right after it
// bound them (measured: 11 of 40 pings sent at once got no answer, none of
// 40 sent 0.5 s later).
bool AnswersPing(uint16_t port, int limit_ms) {
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(port);
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool answered = false;
  if (connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof(to)) == 0) {
    for (int waited = 0; !answered && waited < limit_ms; waited += 100) {
      const uint8_t ping[4] = {0x40, 0x00, static_cast<uint8_t>(waited >> 8),
                               static_cast<uint8_t>(waited)};
      if (send(fd, ping, sizeof(ping), 0) != sizeof(ping)) break;
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, 100) == 1) {
        uint8_t answer[16];
        answered = recv(fd, answer, sizeof(answer), 0) >= 4 &&
                   (answer[0] & 0x30) == 0x30;  // a reset
      }
    }
  }
  close(fd);
  return answered;
}

bool PortInUse(uint16_t port) {
  const int fd = BindLoopback(port);
  if (fd < 0) return true;
  close(fd);
  return false;
}

}  // namespace

uint16_t FreePortPair() {
  for (int attempt = 0; attempt < 64; ++attempt) {
    const int a = BindLoopback(0);
    if (a < 0) continue;
    const uint16_t port = PortOf(a);
    const int b =
        port < 65535 ? BindLoopback(static_cast<uint16_t>(port + 1)) : -1;
    close(a);
    if (b >= 0) {
      close(b);
      return port;
    }
  }
  return 0;
}

CoapServerProcess::CoapServerProcess(const std::vector<PskEntry>& entries,
                                     const std::string& default_key) {
  for (int attempt = 0; attempt < 3 && !Start(entries, default_key);
       ++attempt) {
  }
}

CoapServerProcess::~CoapServerProcess() {
  Stop();
  if (!dir_.empty()) {
    std::remove((dir_ + "/identities").c_str());
    std::remove(log_path_.c_str());
    rmdir(dir_.c_str());
  }
}

bool CoapServerProcess::Start(const std::vector<PskEntry>& entries,
                              const std::string& default_key) {
  if (dir_.empty()) {
    char pattern[] = "/tmp/edgeadmm-coap-peer-XXXXXX";
    if (mkdtemp(pattern) == nullptr) return false;
    dir_ = pattern;
    log_path_ = dir_ + "/server.log";
  }
  const std::string identities = dir_ + "/identities";
  {
    std::ofstream out(identities);
    // Lines "hint,identity,key"; the server's default hint is "CoAP".
    for (const PskEntry& e : entries) {
      out << "CoAP," << e.identity << "," << e.key << "\n";
    }
  }
  port_ = FreePortPair();
  if (port_ == 0) return false;
  const std::string port = std::to_string(port_);
  pid_ = fork();
  if (pid_ == 0) {
    const int log =
        open(log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (log >= 0) {
      dup2(log, 1);
      dup2(log, 2);
    }
    execl(EDGEADMM_COAP_SERVER, EDGEADMM_COAP_SERVER, "-A", "127.0.0.1", "-p",
          port.c_str(), "-k", default_key.c_str(), "-i", identities.c_str(),
          "-d", "64", "-v", "4", static_cast<char*>(nullptr));
    _exit(127);
  }
  if (pid_ < 0) return false;
  // Ready when the DTLS port is taken and the server answers a ping; give
  // up after 5 s each or if it exited.
  for (int i = 0; i < 500; ++i) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return false;
    }
    if (PortInUse(dtls_port())) {
      if (AnswersPing(port_, 5000)) return true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  Stop();
  return false;
}

void CoapServerProcess::Stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  for (int i = 0; i < 200; ++i) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

}  // namespace edgeadmm::testing
