// The scripted datagram link of the CoapClient tests (on the fake clock of
// fake_clock.h) and a fixture with a client on it.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <new>

#include "edgeadmm/coap/coap_client.h"
#include "fake_clock.h"

namespace edgeadmm::coap {

// Records what the client sends; hands it scripted datagrams; counts
// Resets and is "connecting" until a given fake time.
class ScriptedLink final : public DatagramLink {
 public:
  Status Send(ConstByteSpan d) override {
    if (sent_count < kMax) {
      std::memcpy(sent[sent_count], d.data(), d.size());
      sent_size[sent_count] = d.size();
      sent_at[sent_count] = g_now;
    }
    ++sent_count;
    return Status::Ok();
  }
  StatusWithSize Receive(ByteSpan buffer) override {
    if (inbox_size == 0) return StatusWithSize(0);
    std::memcpy(buffer.data(), inbox, inbox_size);
    const size_t n = inbox_size;
    inbox_size = 0;
    return StatusWithSize(n);
  }
  void Wait(uint32_t timeout_ms) override {
    if (inbox_size == 0) g_now += timeout_ms;  // time passes while waiting
  }
  void Reset() override { ++resets; }
  bool connecting() const override { return g_now < connecting_until; }
  // The last message the client sent.
  MessageView Last() const {
    MessageView m;
    EXPECT_TRUE(ParseMessage(ConstByteSpan(reinterpret_cast<const std::byte*>(
                                               sent[(sent_count - 1) % kMax]),
                                           sent_size[(sent_count - 1) % kMax]),
                             m)
                    .ok());
    return m;
  }
  void Deliver(MessageType type, uint8_t code, uint16_t mid,
               ConstByteSpan token, const char* payload = "") {
    MessageWriter w(
        ByteSpan(reinterpret_cast<std::byte*>(inbox), sizeof(inbox)));
    w.Begin(type, code, mid, token);
    w.SetPayload(ConstByteSpan(reinterpret_cast<const std::byte*>(payload),
                               std::strlen(payload)));
    const StatusWithSize n = w.Finish();
    ASSERT_TRUE(n.ok());
    inbox_size = n.size();
  }

  static constexpr size_t kMax = 8;
  uint8_t sent[kMax][256];
  size_t sent_size[kMax] = {};
  uint64_t sent_at[kMax] = {};
  size_t sent_count = 0;
  uint8_t inbox[256];
  size_t inbox_size = 0;
  int resets = 0;                 // Reset() calls
  uint64_t connecting_until = 0;  // connecting() before this fake time
};

// A client on the scripted link at fake time 1000, blocks of 2^(szx + 4),
// ACK_TIMEOUT 2 s, MAX_RETRANSMIT 4, the given silence timeout.
class ClientFixture : public ::testing::Test {
 protected:
  void MakeClient(uint8_t block_szx, uint32_t silence_timeout_ms = 0) {
    g_now = 1000;
    CoapClientConfig c;
    c.link = &link_;
    c.now_ms = &Now;
    c.tx_buffer = ByteSpan(tx_, sizeof(tx_));
    c.rx_buffer = ByteSpan(rx_, sizeof(rx_));
    c.ack_timeout_ms = 2000;
    c.max_retransmit = 4;
    c.block_szx = block_szx;
    c.silence_timeout_ms = silence_timeout_ms;
    client_ = new (storage_) CoapClient(c);
  }

  ScriptedLink link_;
  std::byte tx_[256];
  std::byte rx_[256];
  std::byte body_[64];
  alignas(CoapClient) unsigned char storage_[sizeof(CoapClient)];
  CoapClient* client_ = nullptr;
};

}  // namespace edgeadmm::coap
