// The SDK's CoAP message codec against RFC 7252's examples and rules.
#include "edgeadmm/coap/coap_message.h"

#include <gtest/gtest.h>

#include <cstring>

namespace edgeadmm::coap {
namespace {

ConstByteSpan Bytes(const uint8_t* data, size_t size) {
  return ConstByteSpan(reinterpret_cast<const std::byte*>(data), size);
}
ConstByteSpan Text(const char* text) {
  return Bytes(reinterpret_cast<const uint8_t*>(text), std::strlen(text));
}
bool Equal(ConstByteSpan a, const uint8_t* b, size_t size) {
  return a.size() == size && (size == 0 || std::memcmp(a.data(), b, size) == 0);
}

TEST(CoapMessageTest, EncodesTheRfcExampleGet) {
  // RFC 7252 appendix A, figure 16 style: CON GET, MID 0x7d34, token
  // 0x20, Uri-Path "temperature".
  uint8_t buffer[64];
  MessageWriter w(ByteSpan(reinterpret_cast<std::byte*>(buffer), 64));
  const uint8_t token[] = {0x20};
  w.Begin(MessageType::kConfirmable, 0x01, 0x7d34, Bytes(token, 1));
  w.AddOption(kOptionUriPath, Text("temperature"));
  w.SetPayload({});
  const StatusWithSize n = w.Finish();
  ASSERT_TRUE(n.ok());
  const uint8_t expected[] = {0x41, 0x01, 0x7d, 0x34, 0x20, 0xbb, 't', 'e', 'm',
                              'p',  'e',  'r',  'a',  't',  'u',  'r', 'e'};
  ASSERT_EQ(n.size(), sizeof(expected));
  EXPECT_EQ(std::memcmp(buffer, expected, sizeof(expected)), 0);
}

TEST(CoapMessageTest, RoundTripsExtendedDeltasLengthsAndPayload) {
  uint8_t buffer[512];
  uint8_t long_value[300];
  for (size_t i = 0; i < sizeof(long_value); ++i) {
    long_value[i] = static_cast<uint8_t>(i);
  }
  MessageWriter w(ByteSpan(reinterpret_cast<std::byte*>(buffer), 512));
  const uint8_t token[] = {1, 2, 3, 4, 5, 6, 7, 8};
  w.Begin(MessageType::kNonConfirmable, 0x45, 0xbeef, Bytes(token, 8));
  w.AddUintOption(kOptionObserve, 0);         // empty value
  w.AddOption(kOptionUriPath, Text("v1"));    // delta 5
  w.AddOption(kOptionUriPath, Text("task"));  // delta 0
  w.AddUintOption(kOptionContentFormat, 65101);
  w.AddUintOption(kOptionBlock2, EncodeBlock({3, true, 6}));  // delta 11
  w.AddUintOption(kOptionSize1, 4167);                        // delta 33
  w.AddOption(300, Bytes(long_value, 20));                    // delta 240
  w.AddOption(600, Bytes(long_value, 300));  // delta 300, length 300
  const uint8_t payload[] = {9, 9, 9};
  w.SetPayload(Bytes(payload, 3));
  const StatusWithSize n = w.Finish();
  ASSERT_TRUE(n.ok()) << n.status().str();

  MessageView m;
  ASSERT_TRUE(
      ParseMessage(
          ConstByteSpan(reinterpret_cast<std::byte*>(buffer), n.size()), m)
          .ok());
  EXPECT_EQ(m.type, MessageType::kNonConfirmable);
  EXPECT_EQ(m.code, 0x45);
  EXPECT_EQ(m.message_id, 0xbeef);
  EXPECT_TRUE(Equal(m.token, token, 8));
  EXPECT_TRUE(Equal(m.payload, payload, 3));
  OptionIterator it(m);
  Option o;
  const uint16_t numbers[] = {6, 11, 11, 12, 23, 60, 300, 600};
  const size_t sizes[] = {0, 2, 4, 2, 1, 2, 20, 300};
  for (size_t i = 0; i < 8; ++i) {
    ASSERT_TRUE(it.Next(o)) << i;
    EXPECT_EQ(o.number, numbers[i]);
    EXPECT_EQ(o.value.size(), sizes[i]);
  }
  EXPECT_TRUE(Equal(o.value, long_value, 300));
  EXPECT_FALSE(it.Next(o));
  uint32_t value = 0;
  ASSERT_TRUE(FindUintOption(m, kOptionContentFormat, value).ok());
  EXPECT_EQ(value, 65101u);
  ASSERT_TRUE(FindUintOption(m, kOptionBlock2, value).ok());
  BlockValue block;
  ASSERT_TRUE(DecodeBlock(value, block).ok());
  EXPECT_EQ(block.num, 3u);
  EXPECT_TRUE(block.more);
  EXPECT_EQ(block.size(), 1024u);
  EXPECT_EQ(block.offset(), 3072u);
  EXPECT_EQ(FindUintOption(m, kOptionBlock1, value), Status::NotFound());
  EXPECT_EQ(FindUintOption(m, 300, value), Status::DataLoss());  // 20 bytes
}

TEST(CoapMessageTest, WriterRefusesWhatTheFormatCannotCarry) {
  uint8_t buffer[16];
  const ByteSpan out(reinterpret_cast<std::byte*>(buffer), sizeof(buffer));
  const uint8_t token[9] = {};
  {
    MessageWriter w(out);
    w.Begin(MessageType::kConfirmable, 1, 1, Bytes(token, 9));
    EXPECT_EQ(w.Finish().status(), Status::InvalidArgument());
  }
  {
    MessageWriter w(out);
    w.Begin(MessageType::kConfirmable, 1, 1, {});
    w.AddOption(12, {});
    w.AddOption(11, {});  // out of order
    EXPECT_EQ(w.Finish().status(), Status::InvalidArgument());
  }
  {
    MessageWriter w(out);
    w.Begin(MessageType::kConfirmable, 1, 1, {});
    w.AddOption(11, Text("a path longer than the buffer"));
    EXPECT_EQ(w.Finish().status(), Status::ResourceExhausted());
  }
  {
    MessageWriter w(out);
    w.AddOption(11, {});  // before Begin
    EXPECT_EQ(w.Finish().status(), Status::InvalidArgument());
  }
}

TEST(CoapMessageTest, ParserRefusesFormatErrors) {
  const struct {
    const char* what;
    uint8_t bytes[8];
    size_t size;
  } bad[] = {
      {"short header", {0x40, 0x01, 0x00}, 3},
      {"version 2", {0x80, 0x01, 0x00, 0x01}, 4},
      {"token length 9", {0x49, 0x01, 0x00, 0x01, 1, 2, 3, 4}, 8},
      {"token past the end", {0x42, 0x01, 0x00, 0x01, 7}, 5},
      {"delta nibble 15", {0x40, 0x01, 0x00, 0x01, 0xf1, 0}, 6},
      {"length nibble 15", {0x40, 0x01, 0x00, 0x01, 0x1f, 0}, 6},
      {"option past the end", {0x40, 0x01, 0x00, 0x01, 0xb3, 'v', '1'}, 7},
      {"extended delta missing", {0x40, 0x01, 0x00, 0x01, 0xd0}, 5},
      {"marker without payload", {0x40, 0x01, 0x00, 0x01, 0xff}, 5},
      {"empty message with a token", {0x41, 0x00, 0x00, 0x01, 7}, 5},
      {"option number past 65535",
       {0x40, 0x01, 0x00, 0x01, 0xe0, 0xff, 0xff, 0},
       8},
  };
  for (const auto& b : bad) {
    MessageView m;
    EXPECT_EQ(ParseMessage(Bytes(b.bytes, b.size), m), Status::DataLoss())
        << b.what;
  }
  // And the smallest valid messages: an empty ACK, a reset.
  const uint8_t ack[] = {0x60, 0x00, 0x12, 0x34};
  MessageView m;
  ASSERT_TRUE(ParseMessage(Bytes(ack, 4), m).ok());
  EXPECT_EQ(m.type, MessageType::kAcknowledgement);
  EXPECT_EQ(m.message_id, 0x1234);
}

TEST(CoapMessageTest, BlockValues) {
  BlockValue b;
  EXPECT_EQ(DecodeBlock(0x07, b), Status::DataLoss());  // szx 7 reserved
  EXPECT_EQ(DecodeBlock(1u << 24, b), Status::DataLoss());
  ASSERT_TRUE(DecodeBlock(EncodeBlock({0xfffff, false, 0}), b).ok());
  EXPECT_EQ(b.num, 0xfffffu);
  EXPECT_FALSE(b.more);
  EXPECT_EQ(b.size(), 16u);
}

}  // namespace
}  // namespace edgeadmm::coap
