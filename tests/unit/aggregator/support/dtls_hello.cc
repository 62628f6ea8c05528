#include "dtls_hello.h"

#include <cstddef>

namespace edgeadmm::testing {
namespace {

void Put16(std::vector<uint8_t>& out, size_t value) {
  out.push_back(static_cast<uint8_t>(value >> 8));
  out.push_back(static_cast<uint8_t>(value));
}

void Put24(std::vector<uint8_t>& out, size_t value) {
  out.push_back(static_cast<uint8_t>(value >> 16));
  Put16(out, value);
}

}  // namespace

std::vector<uint8_t> ClientHello(const std::vector<uint8_t>& cookie,
                                 uint16_t message_seq, uint8_t record_seq,
                                 uint8_t random_seed, uint16_t cipher_suite) {
  std::vector<uint8_t> body = {0xfe, 0xfd};  // client_version DTLS 1.2
  for (int i = 0; i < 32; ++i) {
    body.push_back(static_cast<uint8_t>(i * 7 + random_seed));
  }
  body.push_back(0);  // session_id
  body.push_back(static_cast<uint8_t>(cookie.size()));
  body.insert(body.end(), cookie.begin(), cookie.end());
  Put16(body, 2);  // cipher_suites: one
  Put16(body, cipher_suite);
  body.push_back(1);  // compression_methods: null
  body.push_back(0);
  std::vector<uint8_t> handshake = {1};  // client_hello
  Put24(handshake, body.size());
  Put16(handshake, message_seq);
  Put24(handshake, 0);  // fragment_offset
  Put24(handshake, body.size());
  handshake.insert(handshake.end(), body.begin(), body.end());
  std::vector<uint8_t> record = {22, 0xfe, 0xfd, 0, 0,         0,
                                 0,  0,    0,    0, record_seq};
  Put16(record, handshake.size());
  record.insert(record.end(), handshake.begin(), handshake.end());
  return record;
}

std::vector<uint8_t> CookieOf(const std::vector<uint8_t>& record) {
  if (record.size() < 13 + 12 + 3 || record[0] != 22 || record[13] != 3) {
    return {};
  }
  const size_t length = record[27];
  if (record.size() < 28 + length) return {};
  return std::vector<uint8_t>(record.begin() + 28,
                              record.begin() + 28 + static_cast<long>(length));
}

}  // namespace edgeadmm::testing
