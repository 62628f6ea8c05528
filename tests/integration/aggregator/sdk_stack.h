// The SDK's own secure CoAP stack of one device for the daemon tests:
// CoapClient over DtlsPskLink (Mbed TLS, DTLS 1.2 PSK) over a UDP
// DatagramLink to the daemon on loopback — what a board without libcoap
// runs (issue 12), on the host.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "edgeadmm/coap/coap_client.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/dtls/dtls_psk_link.h"
#include "edgeadmm/posix/getrandom_entropy.h"
#include "edgeadmm/posix/monotonic_clock.h"
#include "edgeadmm/posix/udp_datagram_link.h"
#include "edgeadmm/transport.h"
#include "edgeadmm/wire/protocol.h"

namespace edgeadmm {

inline uint64_t NowMs() { return posix::MonotonicMs(); }

// The stack of one device (`identity` and `key` must outlive it). Its
// timers are RFC 7252's and Mbed TLS's defaults unless `ack_timeout_ms` and
// `handshake_min_ms` say otherwise (a lossy loopback link has no reason to
// wait seconds for a retransmission).
struct SdkStack {
  SdkStack(unsigned port, const char* identity, const std::vector<uint8_t>& key,
           uint32_t ack_timeout_ms = 2000, uint32_t handshake_min_ms = 1000) {
    EXPECT_TRUE(udp.Open("127.0.0.1", static_cast<uint16_t>(port)).ok());
    EXPECT_TRUE(
        drbg.Init(entropy, ConstByteSpan(reinterpret_cast<const std::byte*>(
                                             "sdk-client-test"),
                                         15))
            .ok());
    dtls::DtlsPskLinkConfig d;
    d.lower = &udp;
    d.now_ms = &NowMs;
    d.random = &drbg;
    d.identity = identity;
    d.key = ConstByteSpan(reinterpret_cast<const std::byte*>(key.data()),
                          key.size());
    d.handshake_min_ms = handshake_min_ms;
    d.handshake_max_ms = 4000;
    secure = std::make_unique<dtls::DtlsPskLink>(d);
    coap::CoapClientConfig c;
    c.link = secure.get();
    c.now_ms = &NowMs;
    c.tx_buffer = ByteSpan(tx, sizeof(tx));
    c.rx_buffer = ByteSpan(rx, sizeof(rx));
    c.ack_timeout_ms = ack_timeout_ms;
    client = std::make_unique<coap::CoapClient>(c);
  }

  TransportResult Get(const char* path) {
    TransportRequest request;
    request.path = path;
    TransportResult result;
    client->Request(request, ByteSpan(body, sizeof(body)), 20000, result)
        .IgnoreError();  // the outcome is result.status
    return result;
  }

  // POST v1/update with `update` (an encoded Update), waiting up to
  // `timeout_ms` for the answer.
  TransportResult Upload(const std::vector<uint8_t>& update,
                         uint32_t timeout_ms) {
    TransportRequest request;
    request.method = CoapMethod::kPost;
    request.path = "v1/update";
    request.content_format = wire::kUpdateFormat;
    request.payload = ConstByteSpan(
        reinterpret_cast<const std::byte*>(update.data()), update.size());
    TransportResult result;
    client->Request(request, ByteSpan(body, sizeof(body)), timeout_ms, result)
        .IgnoreError();  // the outcome is result.status
    return result;
  }

  posix::UdpDatagramLink udp;
  GetrandomEntropy entropy;
  Drbg drbg;
  std::unique_ptr<dtls::DtlsPskLink> secure;
  std::unique_ptr<coap::CoapClient> client;
  std::byte tx[1200];
  std::byte rx[1200];
  std::byte body[4096];
};

}  // namespace edgeadmm
