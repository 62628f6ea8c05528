// Hand-made DTLS 1.2 handshake records for the daemon's handshake admission
// tests: a first-flight ClientHello and the cookie of a HelloVerifyRequest
// (RFC 6347 section 4.2.1).
#pragma once

#include <cstdint>
#include <vector>

namespace edgeadmm::testing {

// TLS_PSK_WITH_AES_128_GCM_SHA256 (RFC 5487), which the daemon accepts.
constexpr uint16_t kPskAes128GcmSha256 = 0x00a8;

// A ClientHello record offering `cipher_suite` alone, with `cookie` (empty:
// none), handshake `message_seq`, record sequence number `record_seq` and a
// client random made from `random_seed` (a client that starts a new
// handshake picks a new random).
std::vector<uint8_t> ClientHello(const std::vector<uint8_t>& cookie,
                                 uint16_t message_seq, uint8_t record_seq,
                                 uint8_t random_seed = 0,
                                 uint16_t cipher_suite = kPskAes128GcmSha256);

// The cookie of a HelloVerifyRequest record; empty if `record` is not one.
std::vector<uint8_t> CookieOf(const std::vector<uint8_t>& record);

}  // namespace edgeadmm::testing
