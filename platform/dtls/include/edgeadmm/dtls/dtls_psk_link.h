// DtlsPskLink: DTLS 1.2 with a pre-shared key (RFC 6347, RFC 4279) on Mbed
// TLS, as a DatagramLink over another DatagramLink — the secure channel
// under the SDK's own CoAP client (issue 12). Identity = the device id;
// cipher suites TLS_PSK_WITH_AES_128_CCM_8 (RFC 7925's), then AES-128-CCM
// and AES-128-GCM. Non-blocking: Receive and Wait drive the handshake and
// its retransmission timers; the latest datagram sent before the handshake
// completes is kept and sent after it (CoAP retransmits the same message).
// No heap of its own: the session state lives in the object; Mbed TLS's
// buffers come from its allocator (libc on Linux, the static pool of
// dtls_memory_pool.h on bare metal).
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/coap/datagram_link.h"
#include "edgeadmm/random_byte_source.h"

namespace edgeadmm::dtls {

struct DtlsPskLinkConfig {
  coap::DatagramLink* lower = nullptr;  // datagrams to and from the peer
  uint64_t (*now_ms)() = nullptr;       // monotonic milliseconds
  RandomByteSource* random = nullptr;   // a cryptographic DRBG
  const char* identity = "";
  ConstByteSpan key;
  // Handshake flight retransmission: first timeout, doubling up to max;
  // the handshake fails when a flight at max gets no answer.
  uint32_t handshake_min_ms = 1000;
  uint32_t handshake_max_ms = 8000;
};

class DtlsPskLink final : public coap::DatagramLink {
 public:
  explicit DtlsPskLink(const DtlsPskLinkConfig& config);
  ~DtlsPskLink();

  // Sends `datagram` as one record (kept, replacing an earlier one, until
  // the handshake completes).
  Status Send(ConstByteSpan datagram) override;
  // One application datagram, or size 0. The handshake's failure is
  // reported here: UNAUTHENTICATED once the server saw our key exchange
  // and never finished (a wrong key, an unknown identity), DEADLINE_EXCEEDED
  // if the server never answered, UNAVAILABLE if the lower link failed or
  // the server closed the session.
  StatusWithSize Receive(ByteSpan buffer) override;
  void Wait(uint32_t timeout_ms) override;

  bool established() const;
  // The negotiated suite's IANA name (e.g. "TLS-PSK-WITH-AES-128-CCM-8"),
  // "" before the handshake completes.
  const char* cipher_suite() const;
  // Drops the session; the next Send starts a new handshake.
  void Reset() override;
  // True from the first Send of a session until its handshake completes
  // or fails.
  bool connecting() const override;

 private:
  // The longest datagram kept while the handshake runs (one CoAP message
  // of a 1024-byte block).
  static constexpr size_t kMaxPendingBytes = 1200;

  struct Impl;
  StatusWithSize Drive();
  Status Open();

  DtlsPskLinkConfig config_;
  Impl* impl_ = nullptr;  // in impl_storage_ while a session exists
  // Mbed TLS's context and configuration plus the pending datagram; the
  // size (platform/dtls/CMakeLists.txt: 1,536 bytes needed with our
  // Cortex-M configuration, 2,392 with Debian's libmbedtls) is checked
  // against the Impl of the Mbed TLS build in the .cc.
  alignas(8) std::byte impl_storage_[EDGEADMM_DTLS_IMPL_BYTES];
};

}  // namespace edgeadmm::dtls
