// The SDK's CoAP client against a scripted peer (an in-memory link and a
// fake clock): the RFC 7252 retransmission schedule, separate responses,
// duplicates, resets. Also runs on the MCU.
#include "edgeadmm/coap/coap_client.h"

#include <gtest/gtest.h>

#include <cstring>
#include <new>

#include "fake_clock.h"
#include "scripted_link.h"

namespace edgeadmm::coap {
namespace {

class CoapClientTest : public ClientFixture {
 protected:
  void SetUp() override {
    MakeClient(6);
    TransportRequest request;
    request.path = "v1/task";
    ASSERT_TRUE(
        client_->StartRequest(request, ByteSpan(body_, sizeof(body_))).ok());
  }
  bool Result(TransportResult& r) { return PollForResult(*client_, r); }
};

TEST_F(CoapClientTest, RetransmitsWithBackOffThenGivesUp) {
  TransportResult r;
  ASSERT_TRUE(Result(r));
  EXPECT_EQ(r.status, Status::DeadlineExceeded());
  // One send and MAX_RETRANSMIT = 4 resends of the same message id; the
  // gaps start in [ACK_TIMEOUT, 1.5 ACK_TIMEOUT) and double.
  ASSERT_EQ(link_.sent_count, 5u);
  const uint64_t first = link_.sent_at[1] - link_.sent_at[0];
  EXPECT_GE(first, 2000u);
  EXPECT_LT(first, 3000u + 100u);  // + one poll slice
  for (size_t i = 2; i < 5; ++i) {
    const uint64_t gap = link_.sent_at[i] - link_.sent_at[i - 1];
    const uint64_t expected = first << (i - 1);
    EXPECT_GE(gap + 100, expected) << i;
    EXPECT_LE(gap, expected + 100) << i;
  }
  MessageView a, b;
  ASSERT_TRUE(ParseMessage(ConstByteSpan(reinterpret_cast<const std::byte*>(
                                             link_.sent[0]),
                                         link_.sent_size[0]),
                           a)
                  .ok());
  ASSERT_TRUE(ParseMessage(ConstByteSpan(reinterpret_cast<const std::byte*>(
                                             link_.sent[4]),
                                         link_.sent_size[4]),
                           b)
                  .ok());
  EXPECT_EQ(a.message_id, b.message_id);
  EXPECT_EQ(client_->retransmissions(), 4u);
}

TEST_F(CoapClientTest, SeparateResponseIsAcknowledgedOnceAndDuplicatesAgain) {
  const MessageView request = link_.Last();
  uint8_t token[4];
  std::memcpy(token, request.token.data(), 4);
  const ConstByteSpan t(reinterpret_cast<const std::byte*>(token), 4);
  // Empty ACK: no more retransmissions, the response comes separately.
  link_.Deliver(MessageType::kAcknowledgement, 0, request.message_id, {});
  ASSERT_TRUE(client_->Poll(0).ok());
  g_now += 10000;  // past every retransmission time
  ASSERT_TRUE(client_->Poll(0).ok());
  EXPECT_EQ(link_.sent_count, 1u);
  // The response as a CON: acknowledged with its message id.
  link_.Deliver(MessageType::kConfirmable, (2 << 5) | 5, 0x4242, t, "hello");
  TransportResult r;
  ASSERT_TRUE(client_->Poll(0).ok());
  ASSERT_TRUE(client_->TakeResult(r));
  EXPECT_TRUE(r.status.ok());
  EXPECT_EQ(r.payload_size, 5u);
  EXPECT_EQ(std::memcmp(body_, "hello", 5), 0);
  MessageView ack = link_.Last();
  EXPECT_EQ(ack.type, MessageType::kAcknowledgement);
  EXPECT_EQ(ack.message_id, 0x4242);
  // Its duplicate (our ACK was lost): acknowledged again, not delivered.
  link_.Deliver(MessageType::kConfirmable, (2 << 5) | 5, 0x4242, t, "hello");
  ASSERT_TRUE(client_->Poll(0).ok());
  EXPECT_EQ(link_.sent_count, 3u);
  ack = link_.Last();
  EXPECT_EQ(ack.type, MessageType::kAcknowledgement);
  EXPECT_EQ(ack.message_id, 0x4242);
  EXPECT_FALSE(client_->TakeResult(r));
}

TEST_F(CoapClientTest, ResetFailsTheExchange) {
  link_.Deliver(MessageType::kReset, 0, link_.Last().message_id, {});
  TransportResult r;
  ASSERT_TRUE(client_->Poll(0).ok());
  ASSERT_TRUE(client_->TakeResult(r));
  EXPECT_EQ(r.status, Status::Unavailable());
}

TEST_F(CoapClientTest, UnknownResponsesAreReset) {
  const uint8_t other[4] = {9, 9, 9, 9};
  link_.Deliver(MessageType::kConfirmable, (2 << 5) | 5, 0x0101,
                ConstByteSpan(reinterpret_cast<const std::byte*>(other), 4));
  ASSERT_TRUE(client_->Poll(0).ok());
  const MessageView rst = link_.Last();
  EXPECT_EQ(rst.type, MessageType::kReset);
  EXPECT_EQ(rst.message_id, 0x0101);
  TransportResult r;
  EXPECT_FALSE(client_->TakeResult(r));
}

// Observe with Block2 (RFC 7959 section 3.4): 16-byte blocks so that a
// scripted notification spans two.
class CoapClientObserveTest : public ClientFixture {
 protected:
  void SetUp() override {
    MakeClient(0);  // 16-byte blocks
    ASSERT_TRUE(
        client_->StartObserve("v1/task", ByteSpan(body_, sizeof(body_))).ok());
    const MessageView registration = link_.Last();
    std::memcpy(token_, registration.token.data(), 4);
    uint32_t observe = 1;
    EXPECT_TRUE(FindUintOption(registration, kOptionObserve, observe).ok());
    EXPECT_EQ(observe, 0u);
  }
  ConstByteSpan RegistrationToken() const {
    return ConstByteSpan(reinterpret_cast<const std::byte*>(token_), 4);
  }
  // Delivers a 2.05 with ETag `etag`, Block2 (num, more, 16-byte blocks),
  // Observe `observe` unless negative, Size2 `size2` unless 0, and
  // `payload`.
  void Respond(MessageType type, uint16_t mid, ConstByteSpan token, int observe,
               const char* etag, uint32_t num, bool more, const char* payload,
               uint32_t size2 = 0) {
    MessageWriter w(ByteSpan(reinterpret_cast<std::byte*>(link_.inbox),
                             sizeof(link_.inbox)));
    w.Begin(type, (2 << 5) | 5, mid, token);
    w.AddOption(kOptionETag,
                ConstByteSpan(reinterpret_cast<const std::byte*>(etag),
                              std::strlen(etag)));
    if (observe >= 0) {
      w.AddUintOption(kOptionObserve, static_cast<uint32_t>(observe));
    }
    w.AddUintOption(kOptionBlock2, EncodeBlock({num, more, 0}));
    if (size2 != 0) w.AddUintOption(kOptionSize2, size2);
    w.SetPayload(ConstByteSpan(reinterpret_cast<const std::byte*>(payload),
                               std::strlen(payload)));
    const StatusWithSize n = w.Finish();
    ASSERT_TRUE(n.ok());
    link_.inbox_size = n.size();
    ASSERT_TRUE(client_->Poll(0).ok());
  }
  // The last message sent is a GET of block `num` (no Block2 option for
  // block 0) without Observe, on a token other than the registration's.
  void ExpectBlockGet(uint32_t num) {
    const MessageView get = link_.Last();
    EXPECT_EQ(get.type, MessageType::kConfirmable);
    EXPECT_EQ(get.code, 1);  // GET
    uint32_t value = 0;
    EXPECT_EQ(FindUintOption(get, kOptionObserve, value), Status::NotFound());
    EXPECT_NE(std::memcmp(get.token.data(), token_, 4), 0);
    const Status block2 = FindUintOption(get, kOptionBlock2, value);
    if (num == 0) {
      EXPECT_EQ(block2, Status::NotFound());
    } else {
      ASSERT_TRUE(block2.ok());
      EXPECT_EQ(value, EncodeBlock({num, false, 0}));
    }
  }
  // Answers the last GET (piggybacked in its ACK).
  void AnswerBlock(const char* etag, uint32_t num, bool more,
                   const char* payload) {
    const MessageView get = link_.Last();
    uint8_t token[4];
    std::memcpy(token, get.token.data(), 4);
    Respond(MessageType::kAcknowledgement, get.message_id,
            ConstByteSpan(reinterpret_cast<const std::byte*>(token), 4), -1,
            etag, num, more, payload);
  }

  uint8_t token_[4] = {};
};

// The registration's response and a later notification, each two blocks:
// each reported once, whole, after the GET of its second block.
TEST_F(CoapClientObserveTest, NotificationsLargerThanOneBlockAreReassembled) {
  Respond(MessageType::kAcknowledgement, link_.Last().message_id,
          RegistrationToken(), 1, "A", 0, true, "0123456789abcdef");
  TransportResult r;
  EXPECT_FALSE(client_->TakeNotification(r));  // not whole yet
  ExpectBlockGet(1);
  AnswerBlock("A", 1, false, "ghij");
  ASSERT_TRUE(client_->TakeNotification(r));
  EXPECT_TRUE(r.status.ok());
  EXPECT_EQ(r.code, (2 << 5) | 5);
  ASSERT_EQ(r.payload_size, 20u);
  EXPECT_EQ(std::memcmp(body_, "0123456789abcdefghij", 20), 0);
  // A confirmable notification: acknowledged, then its second block.
  Respond(MessageType::kConfirmable, 0x5000, RegistrationToken(), 2, "B", 0,
          true, "ABCDEFGHIJKLMNOP");
  EXPECT_FALSE(client_->TakeNotification(r));
  ExpectBlockGet(1);
  AnswerBlock("B", 1, false, "Q");
  ASSERT_TRUE(client_->TakeNotification(r));
  ASSERT_EQ(r.payload_size, 17u);
  EXPECT_EQ(std::memcmp(body_, "ABCDEFGHIJKLMNOPQ", 17), 0);
  EXPECT_FALSE(client_->TakeNotification(r));
}

// The resource changed between two blocks (another ETag): the blocks are
// not mixed; the body is fetched again from block 0 (RFC 7959 section 2.4).
TEST_F(CoapClientObserveTest, AnETagChangeMidwayRestartsAtBlockZero) {
  Respond(MessageType::kAcknowledgement, link_.Last().message_id,
          RegistrationToken(), 1, "A", 0, true, "0123456789abcdef");
  ExpectBlockGet(1);
  AnswerBlock("C", 1, false, "zz");
  TransportResult r;
  EXPECT_FALSE(client_->TakeNotification(r));
  ExpectBlockGet(0);
  AnswerBlock("C", 0, true, "abcdefghijklmnop");
  ExpectBlockGet(1);
  AnswerBlock("C", 1, false, "zz");
  ASSERT_TRUE(client_->TakeNotification(r));
  ASSERT_EQ(r.payload_size, 18u);
  EXPECT_EQ(std::memcmp(body_, "abcdefghijklmnopzz", 18), 0);
}

// A new notification while the previous one's blocks are being fetched
// replaces it; a late block of the old one is ignored.
TEST_F(CoapClientObserveTest, ANewNotificationReplacesOneBeingFetched) {
  Respond(MessageType::kAcknowledgement, link_.Last().message_id,
          RegistrationToken(), 1, "A", 0, true, "0123456789abcdef");
  ExpectBlockGet(1);
  const MessageView old_get = link_.Last();
  uint8_t old_token[4];
  std::memcpy(old_token, old_get.token.data(), 4);
  const uint16_t old_mid = old_get.message_id;
  Respond(MessageType::kNonConfirmable, 0x5001, RegistrationToken(), 2, "B", 0,
          false, "small");
  TransportResult r;
  ASSERT_TRUE(client_->TakeNotification(r));
  ASSERT_EQ(r.payload_size, 5u);
  EXPECT_EQ(std::memcmp(body_, "small", 5), 0);
  Respond(MessageType::kAcknowledgement, old_mid,
          ConstByteSpan(reinterpret_cast<const std::byte*>(old_token), 4), -1,
          "A", 1, false, "ghij");
  EXPECT_FALSE(client_->TakeNotification(r));
  EXPECT_EQ(std::memcmp(body_, "small", 5), 0);
}

// A notification larger than the 64-byte notification buffer is reported
// at once (RESOURCE_EXHAUSTED, its code, no body) when its Size2 says so,
// or when a block overflows the buffer, without fetching more blocks; the
// observation goes on (a streaming client GETs the body into a sink).
TEST_F(CoapClientObserveTest,
       ANotificationTooLargeIsReportedAndObservingGoesOn) {
  const size_t before = link_.sent_count;
  Respond(MessageType::kAcknowledgement, link_.Last().message_id,
          RegistrationToken(), 1, "A", 0, true, "0123456789abcdef", 100);
  TransportResult r;
  ASSERT_TRUE(client_->TakeNotification(r));
  EXPECT_EQ(r.status, Status::ResourceExhausted());
  EXPECT_EQ(r.code, (2 << 5) | 5);
  EXPECT_EQ(r.payload_size, 0u);
  EXPECT_EQ(link_.sent_count, before);  // no GET of block 1
  // No Size2: the blocks are fetched until the fifth overflows.
  Respond(MessageType::kNonConfirmable, 0x5002, RegistrationToken(), 2, "B", 0,
          true, "ABCDEFGHIJKLMNOP");
  for (uint32_t num = 1; num <= 3; ++num) {
    ExpectBlockGet(num);
    AnswerBlock("B", num, true, "abcdefghijklmnop");
    EXPECT_FALSE(client_->TakeNotification(r));
  }
  ExpectBlockGet(4);
  AnswerBlock("B", 4, false, "!");
  ASSERT_TRUE(client_->TakeNotification(r));
  EXPECT_EQ(r.status, Status::ResourceExhausted());
  EXPECT_EQ(r.code, (2 << 5) | 5);
  EXPECT_EQ(r.payload_size, 0u);
  // Still observing: the next notification arrives.
  const size_t sent = link_.sent_count;
  Respond(MessageType::kNonConfirmable, 0x5003, RegistrationToken(), 3, "C", 0,
          false, "small");
  ASSERT_TRUE(client_->TakeNotification(r));
  EXPECT_TRUE(r.status.ok());
  ASSERT_EQ(r.payload_size, 5u);
  EXPECT_EQ(std::memcmp(body_, "small", 5), 0);
  EXPECT_EQ(link_.sent_count, sent);  // no Reset: the token is still known
}

// A first block that fills the whole buffer while more blocks follow: the
// body cannot fit, known without Size2 and without fetching block 1.
TEST_F(CoapClientObserveTest, AFullFirstBlockWithMoreIsTooLarge) {
  client_->StopObserve();
  ASSERT_TRUE(client_->StartObserve("v1/task", ByteSpan(body_, 16)).ok());
  std::memcpy(token_, link_.Last().token.data(), 4);
  const size_t before = link_.sent_count;
  Respond(MessageType::kAcknowledgement, link_.Last().message_id,
          RegistrationToken(), 1, "A", 0, true, "0123456789abcdef");
  TransportResult r;
  ASSERT_TRUE(client_->TakeNotification(r));
  EXPECT_EQ(r.status, Status::ResourceExhausted());
  EXPECT_EQ(r.payload_size, 0u);
  EXPECT_EQ(link_.sent_count, before);  // no GET of block 1
  // One block that fits exactly, nothing after it: reported whole.
  Respond(MessageType::kNonConfirmable, 0x5004, RegistrationToken(), 2, "B", 0,
          false, "ABCDEFGHIJKLMNOP");
  ASSERT_TRUE(client_->TakeNotification(r));
  EXPECT_TRUE(r.status.ok());
  ASSERT_EQ(r.payload_size, 16u);
  EXPECT_EQ(std::memcmp(body_, "ABCDEFGHIJKLMNOP", 16), 0);
}

}  // namespace
}  // namespace edgeadmm::coap
