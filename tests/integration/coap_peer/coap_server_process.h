// CoapServerProcess: runs Debian's coap-server-openssl on 127.0.0.1 with
// DTLS-PSK for one test: picks a free port pair (plain UDP on port, DTLS on
// port + 1), writes the identity file, starts the server, waits until it
// answers, and stops it (SIGTERM, then SIGKILL) by its pid.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace edgeadmm::testing {

struct PskEntry {
  std::string identity;
  std::string key;
};

class CoapServerProcess {
 public:
  // `default_key` is what an identity not in `entries` gets: a key no client
  // knows, so an unknown identity cannot complete the handshake.
  CoapServerProcess(const std::vector<PskEntry>& entries,
                    const std::string& default_key);
  ~CoapServerProcess();
  CoapServerProcess(const CoapServerProcess&) = delete;
  CoapServerProcess& operator=(const CoapServerProcess&) = delete;

  // True once the server runs and its DTLS port accepts datagrams.
  bool running() const { return pid_ > 0; }
  uint16_t dtls_port() const { return static_cast<uint16_t>(port_ + 1); }
  // The same server's plain CoAP (UDP, no DTLS) port.
  uint16_t udp_port() const { return port_; }
  const std::string& log_path() const { return log_path_; }

 private:
  bool Start(const std::vector<PskEntry>& entries,
             const std::string& default_key);
  void Stop();

  pid_t pid_ = -1;
  uint16_t port_ = 0;
  std::string dir_;
  std::string log_path_;
};

// A UDP port p on 127.0.0.1 such that p and p + 1 were free just now.
uint16_t FreePortPair();

}  // namespace edgeadmm::testing
