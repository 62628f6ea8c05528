// What the networked firmware against the daemon shares (dtls_daemon_test.cc,
// round_benchmark.cc): the semihosting command line run_with_daemon.py
// passes ("<image> <port> <identity> <psk-hex> <job-id> [WORD]..."), the
// board's network, and the DTLS link's and CoAP client's settings.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "edgeadmm/board/board.h"
#include "edgeadmm/board/ethernet.h"
#include "edgeadmm/coap/coap_client.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/dtls/dtls_psk_link.h"
#include "edgeadmm/lwip/network.h"
#include "edgeadmm/result.h"
#include "edgeadmm/status.h"

namespace edgeadmm::daemon_session {

// The host's loopback as QEMU's user network shows it.
inline constexpr uint8_t kHost[4] = {10, 0, 2, 2};

struct Arguments {
  uint16_t port = 0;
  char identity[40] = {};
  uint8_t key[64] = {};
  size_t key_size = 0;
  uint64_t job_id = 0;
};

inline int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Bytes of `hex` into `out`; 0 if a digit is not hex.
inline size_t ParseHex(const char* hex, uint8_t* out, size_t capacity) {
  size_t n = 0;
  for (; hex[0] != '\0' && hex[1] != '\0' && n < capacity; hex += 2) {
    const int hi = HexDigit(hex[0]);
    const int lo = HexDigit(hex[1]);
    if (hi < 0 || lo < 0) return 0;
    out[n++] = static_cast<uint8_t>(hi * 16 + lo);
  }
  return n;
}

// Fills `args` from the command line and hands each further word to
// `extra(word)`. False if there is no command line.
template <typename Extra>
bool ParseCommandLine(Arguments& args, Extra&& extra) {
  char line[640];
  if (!board::CommandLine(line, sizeof(line))) return false;
  int index = 0;  // words after the image name (no strtok: it links malloc)
  for (char* p = line; *p != '\0';) {
    while (*p == ' ') ++p;
    char* word = p;
    while (*p != '\0' && *p != ' ') ++p;
    if (*p == ' ') *p++ = '\0';
    if (*word == '\0') continue;
    switch (index++) {
      case 0:
        break;  // the image
      case 1:
        args.port = static_cast<uint16_t>(std::strtoul(word, nullptr, 10));
        break;
      case 2:
        std::strncpy(args.identity, word, sizeof(args.identity) - 1);
        break;
      case 3:
        args.key_size = ParseHex(word, args.key, sizeof(args.key));
        break;
      case 4:
        args.job_id = std::strtoull(word, nullptr, 10);
        break;
      default:
        extra(word);
    }
  }
  return true;
}

inline uint64_t NowMs() { return board::NowMs(); }

// lwIP on the board's LAN9118, up within 10 s.
inline Status StartNetwork() {
  baremetal::EthernetMac* mac = board::Ethernet();
  if (mac == nullptr) return Status::Unavailable();
  lwip::NetworkConfig n;
  n.mac = mac;
  n.now_ms = &board::NowMs;
  EDGEADMM_TRY(lwip::StartNetwork(n));
  return lwip::WaitNetworkReady(10000);
}

// UNSAFE for a product: the board's seeded entropy has a fixed seed (every
// run has the same DTLS randoms). A real board's Entropy() reads its TRNG.
inline Status InitDrbg(Drbg& drbg, const char* personalization) {
  return drbg.Init(
      board::Entropy(),
      ConstByteSpan(reinterpret_cast<const std::byte*>(personalization),
                    std::strlen(personalization)));
}

// The DTLS-PSK link over `lower` with the provisioned identity and key.
inline dtls::DtlsPskLinkConfig DtlsConfig(const Arguments& args,
                                          coap::DatagramLink* lower,
                                          Drbg* random) {
  dtls::DtlsPskLinkConfig d;
  d.lower = lower;
  d.now_ms = &NowMs;
  d.random = random;
  d.identity = args.identity;
  d.key = ConstByteSpan(reinterpret_cast<const std::byte*>(args.key),
                        args.key_size);
  d.handshake_max_ms = 4000;
  return d;
}

// The CoAP client over `link` (2 s ACK timeout, a fixed message-id seed).
inline coap::CoapClientConfig CoapConfig(coap::DatagramLink* link, ByteSpan tx,
                                         ByteSpan rx) {
  coap::CoapClientConfig c;
  c.link = link;
  c.now_ms = &NowMs;
  c.tx_buffer = tx;
  c.rx_buffer = rx;
  c.ack_timeout_ms = 2000;
  c.seed = 12;
  return c;
}

}  // namespace edgeadmm::daemon_session
