// The SDK's CoAP message codec (edgeadmm/coap/coap_message.h) against
// Debian's coap-server-openssl (libcoap 4.3.1) over plain UDP on loopback:
// requests written by MessageWriter are understood, and the server's
// answers parse, including Block1 and Block2 (RFC 7959) exchanges.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "coap_server_process.h"
#include "edgeadmm/coap/coap_message.h"

namespace edgeadmm::coap {
namespace {

ConstByteSpan Text(const char* text) {
  return ConstByteSpan(reinterpret_cast<const std::byte*>(text),
                       std::strlen(text));
}

class CoapCodecInteropTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<testing::CoapServerProcess>(
        std::vector<testing::PskEntry>{{"codec", "codec-key"}}, "unused-key");
    ASSERT_TRUE(server_->running());
    fd_ = socket(AF_INET, SOCK_DGRAM, 0);
    ASSERT_GE(fd_, 0);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(server_->udp_port());
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(connect(fd_, reinterpret_cast<sockaddr*>(&to), sizeof(to)), 0);
  }
  void TearDown() override {
    if (fd_ >= 0) close(fd_);
    if (HasFailure() && server_ != nullptr) {  // what the server saw
      std::ifstream log(server_->log_path());
      std::printf("server log:\n%s\n",
                  std::string(std::istreambuf_iterator<char>(log), {}).c_str());
    }
  }

  // Sends the message `w` holds; waits up to 3 s for the answer with the
  // same message id and parses it into `m` (a view into answer_).
  ::testing::AssertionResult Exchange(MessageWriter& w, uint16_t mid,
                                      MessageView& m) {
    const StatusWithSize n = w.Finish();
    if (!n.ok()) return ::testing::AssertionFailure() << n.status().str();
    if (send(fd_, request_, n.size(), 0) != static_cast<ssize_t>(n.size())) {
      return ::testing::AssertionFailure() << "send failed";
    }
    for (int waited = 0; waited < 3000; waited += 100) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      const ssize_t got = recv(fd_, answer_, sizeof(answer_), 0);
      if (got <= 0) continue;
      const Status parsed = ParseMessage(
          ConstByteSpan(reinterpret_cast<const std::byte*>(answer_),
                        static_cast<size_t>(got)),
          m);
      if (!parsed.ok()) {
        return ::testing::AssertionFailure() << "answer does not parse";
      }
      if (m.message_id == mid) return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure() << "no answer";
  }

  ByteSpan Request() {
    return ByteSpan(reinterpret_cast<std::byte*>(request_), sizeof(request_));
  }

  std::unique_ptr<testing::CoapServerProcess> server_;
  int fd_ = -1;
  uint8_t request_[1500];
  uint8_t answer_[1500];
};

TEST_F(CoapCodecInteropTest, GetIsAnsweredWithAPiggybackedAck) {
  const uint8_t token[] = {0xca, 0xfe};
  MessageWriter w(Request());
  w.Begin(MessageType::kConfirmable, 0x01, 0x1001,
          ConstByteSpan(reinterpret_cast<const std::byte*>(token), 2));
  w.AddOption(kOptionUriPath, Text(".well-known"));
  w.AddOption(kOptionUriPath, Text("core"));
  MessageView m;
  ASSERT_TRUE(Exchange(w, 0x1001, m));
  EXPECT_EQ(m.type, MessageType::kAcknowledgement);
  EXPECT_EQ(m.code, 0x45);  // 2.05 Content
  ASSERT_EQ(m.token.size(), 2u);
  EXPECT_EQ(std::memcmp(m.token.data(), token, 2), 0);
  uint32_t format = 0;
  ASSERT_TRUE(FindUintOption(m, kOptionContentFormat, format).ok());
  EXPECT_EQ(format, 40u);  // application/link-format
  const std::string body(reinterpret_cast<const char*>(m.payload.data()),
                         m.payload.size());
  EXPECT_NE(body.find("</example_data>"), std::string::npos) << body;
}

TEST_F(CoapCodecInteropTest, Block1UploadThenBlock2Download) {
  // PUT 150 bytes to example_data in 64-byte blocks (SZX 2), then read
  // them back one 64-byte block at a time.
  uint8_t body[150];
  for (size_t i = 0; i < sizeof(body); ++i) body[i] = static_cast<uint8_t>(i);
  uint16_t mid = 0x2000;
  for (uint32_t num = 0; num * 64 < sizeof(body); ++num) {
    const size_t offset = num * 64;
    const size_t length =
        sizeof(body) - offset < 64 ? sizeof(body) - offset : 64;
    const bool more = offset + length < sizeof(body);
    MessageWriter w(Request());
    w.Begin(MessageType::kConfirmable, 0x03, ++mid, {});
    w.AddOption(kOptionUriPath, Text("example_data"));
    w.AddUintOption(kOptionContentFormat, 42);
    w.AddUintOption(kOptionBlock1, EncodeBlock({num, more, 2}));
    if (num == 0) w.AddUintOption(kOptionSize1, sizeof(body));
    w.SetPayload(ConstByteSpan(
        reinterpret_cast<const std::byte*>(body + offset), length));
    MessageView m;
    ASSERT_TRUE(Exchange(w, mid, m)) << "block " << num;
    if (more) {
      // 2.31 Continue, echoing the block.
      EXPECT_EQ(m.code, 0x5f) << "block " << num;
      uint32_t value = 0;
      ASSERT_TRUE(FindUintOption(m, kOptionBlock1, value).ok());
      BlockValue echoed;
      ASSERT_TRUE(DecodeBlock(value, echoed).ok());
      EXPECT_EQ(echoed.num, num);
    } else {
      // 2.01 Created (the first PUT) or 2.04 Changed.
      EXPECT_TRUE(m.code == 0x41 || m.code == 0x44) << int{m.code};
    }
  }
  uint8_t read_back[sizeof(body)];
  size_t received = 0;
  bool more = true;
  for (uint32_t num = 0; more && num < 8; ++num) {
    MessageWriter w(Request());
    w.Begin(MessageType::kConfirmable, 0x01, ++mid, {});
    w.AddOption(kOptionUriPath, Text("example_data"));
    w.AddUintOption(kOptionBlock2, EncodeBlock({num, false, 2}));
    MessageView m;
    ASSERT_TRUE(Exchange(w, mid, m)) << "block " << num;
    ASSERT_EQ(m.code, 0x45);
    uint32_t value = 0;
    ASSERT_TRUE(FindUintOption(m, kOptionBlock2, value).ok());
    BlockValue block;
    ASSERT_TRUE(DecodeBlock(value, block).ok());
    ASSERT_EQ(block.num, num);
    ASSERT_EQ(block.size(), 64u);
    ASSERT_LE(block.offset() + m.payload.size(), sizeof(read_back));
    std::memcpy(read_back + block.offset(), m.payload.data(), m.payload.size());
    received = block.offset() + m.payload.size();
    more = block.more;
  }
  ASSERT_EQ(received, sizeof(body));
  EXPECT_EQ(std::memcmp(read_back, body, sizeof(body)), 0);
}

TEST_F(CoapCodecInteropTest, PingIsAnsweredWithAReset) {
  // An empty confirmable message is a CoAP ping: the answer is a Reset with
  // its message id (RFC 7252 section 4.3).
  MessageWriter w(Request());
  w.Begin(MessageType::kConfirmable, 0x00, 0x3003, {});
  MessageView m;
  ASSERT_TRUE(Exchange(w, 0x3003, m));
  EXPECT_EQ(m.type, MessageType::kReset);
  EXPECT_EQ(m.code, 0);
}

}  // namespace
}  // namespace edgeadmm::coap
