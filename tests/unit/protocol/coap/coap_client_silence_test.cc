// The SDK's CoAP client when the server goes silent (it restarted and
// forgot the DTLS session): CoapClientConfig::silence_timeout_ms fails what
// waits for the server and drops the link's session, also while pushed
// notifications keep coming; Reconnect drops it on the client's word. A
// scripted link that answers only when told, on the fake clock.
#include <gtest/gtest.h>

#include <cstring>
#include <new>

#include "edgeadmm/coap/coap_client.h"
#include "fake_clock.h"
#include "scripted_link.h"

namespace edgeadmm::coap {
namespace {

// Puts a message in `link`'s inbox: `type`, `code`, `mid`, `token`, and
// the Observe option `observe` unless it is 0. False if it does not fit.
bool Put(ScriptedLink& link, MessageType type, uint8_t code, uint16_t mid,
         ConstByteSpan token, uint32_t observe) {
  MessageWriter w(
      ByteSpan(reinterpret_cast<std::byte*>(link.inbox), sizeof(link.inbox)));
  w.Begin(type, code, mid, token);
  if (observe != 0) w.AddUintOption(kOptionObserve, observe);
  const StatusWithSize n = w.Finish();
  link.inbox_size = n.ok() ? n.size() : 0;
  return n.ok();
}

// Puts a message answering the last one `link` saw sent (its id and token)
// in its inbox: `type` ACK or CON, `code` 0 (empty) or a response, with
// Observe 1 when `observe`.
void Answer(ScriptedLink& link, MessageType type, uint8_t code, bool observe) {
  const MessageView sent = link.Last();
  uint8_t token[4];
  std::memcpy(token, sent.token.data(), 4);
  const uint16_t mid = type == MessageType::kAcknowledgement
                           ? sent.message_id
                           : static_cast<uint16_t>(0x7000 + link.sent_count);
  ASSERT_TRUE(Put(
      link, type, code, mid,
      code == 0 ? ConstByteSpan()
                : ConstByteSpan(reinterpret_cast<const std::byte*>(token), 4),
      observe ? 1 : 0));
}

constexpr uint32_t kSilenceMs = 5000;
constexpr uint8_t kContent = (2 << 5) | 5;  // 2.05

class CoapClientSilenceTest : public ClientFixture {
 protected:
  void SetUp() override { MakeClient(6, kSilenceMs); }
  void StartGet() {
    TransportRequest request;
    request.path = "v1/task";
    ASSERT_TRUE(
        client_->StartRequest(request, ByteSpan(body_, sizeof(body_))).ok());
  }
  // Polls in 100-ms slices until the request finishes; its fake end time.
  uint64_t FinishTime(TransportResult& r) {
    EXPECT_TRUE(PollForResult(*client_, r));
    return g_now;
  }
};

TEST_F(CoapClientSilenceTest, ASilentServerFailsTheExchangeAndDropsTheSession) {
  StartGet();
  TransportResult r;
  const uint64_t end = FinishTime(r);
  EXPECT_EQ(r.status, Status::DeadlineExceeded());
  // After kSilenceMs (and within one poll slice), not after the 93 s of
  // the retransmissions: the first send and one retransmission (at 2–3 s;
  // the next would be at 6–9 s).
  EXPECT_GE(end - 1000, kSilenceMs);
  EXPECT_LE(end - 1000, kSilenceMs + 100);
  EXPECT_EQ(link_.sent_count, 2u);
  EXPECT_EQ(link_.resets, 1);
}

TEST_F(CoapClientSilenceTest, WithoutASilenceTimeoutTheRetransmissionsRunOut) {
  MakeClient(6, 0);  // the checker must see the difference
  StartGet();
  TransportResult r;
  const uint64_t end = FinishTime(r);
  EXPECT_EQ(r.status, Status::DeadlineExceeded());
  EXPECT_GT(end - 1000, 60000u);  // MAX_TRANSMIT_WAIT: 62–93 s here
  EXPECT_EQ(link_.resets, 0);
}

TEST_F(CoapClientSilenceTest, ADatagramFromTheServerRestartsTheClock) {
  StartGet();
  g_now += 3000;
  Answer(link_, MessageType::kAcknowledgement, 0, false);  // empty ACK at 3 s
  ASSERT_TRUE(client_->Poll(0).ok());
  TransportResult r;
  const uint64_t end = FinishTime(r);
  EXPECT_EQ(r.status, Status::DeadlineExceeded());
  EXPECT_GE(end - 1000, 3000 + kSilenceMs);
  EXPECT_LE(end - 1000, 3000 + kSilenceMs + 100);
  EXPECT_EQ(link_.resets, 1);
}

TEST_F(CoapClientSilenceTest, TheHandshakeIsNotSilence) {
  link_.connecting_until = 1000 + 20000;  // a 20-s handshake
  StartGet();
  TransportResult r;
  const uint64_t end = FinishTime(r);
  EXPECT_EQ(r.status, Status::DeadlineExceeded());
  EXPECT_GE(end - 1000, 20000 + kSilenceMs - 100);
  EXPECT_LE(end - 1000, 20000 + kSilenceMs + 100);
}

TEST_F(CoapClientSilenceTest, AQuietAnsweredObservationIsLeftAlone) {
  ASSERT_TRUE(
      client_->StartObserve("v1/task", ByteSpan(body_, sizeof(body_))).ok());
  Answer(link_, MessageType::kAcknowledgement, kContent, true);
  ASSERT_TRUE(client_->Poll(0).ok());
  TransportResult n;
  ASSERT_TRUE(client_->TakeNotification(n));
  ASSERT_EQ(n.status, Status::Ok());
  for (int i = 0; i < 600; ++i) ASSERT_TRUE(client_->Poll(100).ok());  // 60 s
  EXPECT_FALSE(client_->TakeNotification(n));
  EXPECT_EQ(link_.resets, 0);
  // A request on the same session that goes unanswered ends both.
  StartGet();
  TransportResult r;
  EXPECT_TRUE(PollForResult(*client_, r, kSilenceMs + 200));
  EXPECT_EQ(r.status, Status::DeadlineExceeded());
  ASSERT_TRUE(client_->TakeNotification(n));
  EXPECT_EQ(n.status, Status::DeadlineExceeded());
  EXPECT_EQ(link_.resets, 1);
}

// The gateway's heartbeat: notifications pushed every second on a live
// session prove the session, not the request in flight, which still fails
// after kSilenceMs, not after its retransmissions.
TEST_F(CoapClientSilenceTest, PushedNotificationsDoNotAnswerARequest) {
  ASSERT_TRUE(
      client_->StartObserve("v1/task", ByteSpan(body_, sizeof(body_))).ok());
  const MessageView registration = link_.Last();
  uint8_t token[4];
  std::memcpy(token, registration.token.data(), 4);
  Answer(link_, MessageType::kAcknowledgement, kContent, true);
  ASSERT_TRUE(client_->Poll(0).ok());
  TransportResult n;
  ASSERT_TRUE(client_->TakeNotification(n));
  const uint64_t start = g_now;
  StartGet();
  TransportResult r;
  int pushed = 0;
  bool ended = false;
  while (!ended && g_now < start + 3 * kSilenceMs) {
    ASSERT_TRUE(Put(link_, MessageType::kNonConfirmable, kContent,
                    static_cast<uint16_t>(0x6000 + pushed),
                    ConstByteSpan(reinterpret_cast<const std::byte*>(token), 4),
                    static_cast<uint32_t>(2 + pushed)));
    ++pushed;
    for (int slice = 0; slice < 10 && !ended; ++slice) {
      ASSERT_TRUE(client_->Poll(100).ok());
      ended = client_->TakeResult(r);
    }
  }
  ASSERT_TRUE(ended);
  EXPECT_EQ(r.status, Status::DeadlineExceeded());
  EXPECT_GE(g_now - start, kSilenceMs);
  EXPECT_LE(g_now - start, kSilenceMs + 200);
  EXPECT_GE(pushed, 5);
  EXPECT_EQ(link_.resets, 1);
}

TEST_F(CoapClientSilenceTest, AnUnansweredRegistrationTimesOut) {
  ASSERT_TRUE(
      client_->StartObserve("v1/task", ByteSpan(body_, sizeof(body_))).ok());
  TransportResult n;
  bool ended = false;
  for (int i = 0; i < 60 && !ended; ++i) {
    ASSERT_TRUE(client_->Poll(100).ok());
    ended = client_->TakeNotification(n);
  }
  ASSERT_TRUE(ended);
  EXPECT_EQ(n.status, Status::DeadlineExceeded());
  EXPECT_EQ(link_.resets, 1);
}

TEST_F(CoapClientSilenceTest,
       ReconnectAbandonsWithoutAReportAndDropsTheSession) {
  StartGet();
  ASSERT_TRUE(
      client_->StartObserve("v1/task", ByteSpan(body_, sizeof(body_))).ok());
  client_->Reconnect();
  EXPECT_EQ(link_.resets, 1);
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(client_->Poll(100).ok());
  TransportResult r;
  EXPECT_FALSE(client_->TakeResult(r));
  EXPECT_FALSE(client_->TakeNotification(r));
  EXPECT_EQ(link_.resets, 1);  // nothing in flight: no silence to time out
  StartGet();                  // a new exchange may start at once
}

}  // namespace
}  // namespace edgeadmm::coap
