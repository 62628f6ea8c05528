// Fuzzes HandshakeAdmission::Judge, which reads every datagram that reaches
// the daemon's endpoint from an address without a session (unauthenticated
// network input). The input is a datagram from one fixed peer. Invariants:
// a verdict is one of the three; an answer is a well-formed
// HelloVerifyRequest whose cookie, put back into the datagram in place of
// its own (when the datagram is a ClientHello), passes for that peer and
// nobody else.
#include <netinet/in.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "edgeadmm/server/handshake_admission.h"
#include "fuzz_check.h"

namespace edgeadmm::server {
namespace {

sockaddr_in Peer(uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(0x0A000001);
  a.sin_port = htons(port);
  return a;
}

// The offset of the cookie length byte of a ClientHello datagram (the
// admission's own parse, redone here), or 0 if it is not one.
size_t CookieAt(const std::vector<uint8_t>& d) {
  if (d.size() < 25 + 35 || d[0] != 22 || d[13] != 1) return 0;
  const size_t at = 25 + 34 + 1 + d[25 + 34];
  return at < d.size() ? at : 0;
}

}  // namespace

// C linkage inside the namespace: libFuzzer finds the unqualified name.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::optional<HandshakeAdmission> admission;
  if (!admission) {
    auto made = HandshakeAdmission::Create({}, 0);
    FUZZ_CHECK(made.ok());
    admission.emplace(std::move(made).value());
  }
  const sockaddr_in peer = Peer(40000);
  const auto* address = reinterpret_cast<const sockaddr*>(&peer);
  std::array<uint8_t, HandshakeAdmission::kReplySize> reply{};
  const HandshakeAdmission::Verdict verdict =
      admission->Judge(data, size, address, sizeof(peer), 0, reply);
  if (verdict != HandshakeAdmission::Verdict::kAnswer) {
    FUZZ_CHECK(verdict == HandshakeAdmission::Verdict::kPass ||
               verdict == HandshakeAdmission::Verdict::kDrop);
    return 0;
  }
  // A HelloVerifyRequest: header lengths consistent, cookie inside.
  FUZZ_CHECK(reply[0] == 22 && reply[13] == 3);
  FUZZ_CHECK((size_t{reply[11]} << 8 | reply[12]) == reply.size() - 13);
  FUZZ_CHECK(reply[27] == HandshakeAdmission::kCookieSize);
  // Its cookie in place of the datagram's: passes for this peer only.
  std::vector<uint8_t> again(data, data + size);
  const size_t at = CookieAt(again);
  if (at == 0 || at + 1 + again[at] > again.size()) return 0;
  again.erase(again.begin() + static_cast<long>(at) + 1,
              again.begin() + static_cast<long>(at) + 1 + again[at]);
  again[at] = HandshakeAdmission::kCookieSize;
  again.insert(again.begin() + static_cast<long>(at) + 1, reply.begin() + 28,
               reply.end());
  std::array<uint8_t, HandshakeAdmission::kReplySize> second{};
  const sockaddr_in other = Peer(40001);
  FUZZ_CHECK(admission->Judge(again.data(), again.size(),
                              reinterpret_cast<const sockaddr*>(&other),
                              sizeof(other), 0,
                              second) != HandshakeAdmission::Verdict::kPass);
  const HandshakeAdmission::Verdict back = admission->Judge(
      again.data(), again.size(), address, sizeof(peer), 0, second);
  // The cookie passes unless the peer is at its handshake limit (never
  // here: no session is ever reported) or the datagram stopped being a
  // ClientHello the admission can read (its lengths did not cover it).
  if (back == HandshakeAdmission::Verdict::kPass) {
    FUZZ_CHECK(HandshakeAdmission::VerifyPassedCookie(
        reply.data() + 28, HandshakeAdmission::kCookieSize));
  }
  return 0;
}

}  // namespace edgeadmm::server
