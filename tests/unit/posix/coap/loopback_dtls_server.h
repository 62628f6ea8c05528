// LoopbackDtlsServer: a libcoap DTLS-PSK server inside the test process, on
// 127.0.0.1 and a port the kernel picks, for testing CoapDtlsTransport with
// whatever TLS library libcoap was built with (Mbed TLS on armhf, OpenSSL on
// the host) and no second process or thread: the test drives both event
// loops (Poll) from its own thread, which also works under qemu-user.
//
// Resources:
//   GET  v1/ping  2.05 "pong" (text/plain)
//   POST v1/echo  2.04 with the request body (same Content-Format)
//   PUT  v1/blob  Block1 upload (2.31 Continue per block, 2.01 at the end)
//   GET  v1/blob  the stored body, Block2 when larger than a block
// Unknown paths get 4.04 from libcoap.
#pragma once

#include <coap3/coap.h>

#include <cstdint>
#include <string>
#include <vector>

namespace edgeadmm::testing {

class LoopbackDtlsServer {
 public:
  // One known device (`identity`, `key`); any other identity gets
  // `default_key`, which no client knows, so its handshake cannot finish.
  LoopbackDtlsServer(const std::string& identity, const std::string& key,
                     const std::string& default_key);
  ~LoopbackDtlsServer();
  LoopbackDtlsServer(const LoopbackDtlsServer&) = delete;
  LoopbackDtlsServer& operator=(const LoopbackDtlsServer&) = delete;

  bool ok() const { return context_ != nullptr && port_ != 0; }
  uint16_t port() const { return port_; }
  // Processes the server's I/O and timers for at most `timeout_ms`.
  void Poll(uint32_t timeout_ms);

  // PSK identities the server was offered, in order.
  const std::vector<std::string>& identities() const {
    return state_.identities;
  }
  // The source address ("127.0.0.3:40001") of each of those handshakes.
  const std::vector<std::string>& peers() const { return state_.peers; }
  const std::vector<uint8_t>& blob() const { return state_.blob; }
  // Block1 datagrams received on v1/blob (the final one included).
  size_t blob_blocks() const { return state_.blob_blocks; }

  // What the libcoap callbacks (loopback_dtls_server.cc) read and record.
  struct State {
    std::string identity;
    std::string key;
    std::string default_key;
    coap_bin_const_t key_bin{};
    coap_bin_const_t default_key_bin{};
    std::vector<std::string> identities;
    std::vector<std::string> peers;
    std::vector<uint8_t> blob;
    size_t blob_blocks = 0;
  };

 private:
  coap_context_t* context_ = nullptr;
  uint16_t port_ = 0;
  State state_;
};

}  // namespace edgeadmm::testing
