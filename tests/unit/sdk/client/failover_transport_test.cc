// FailoverTransport: every call goes to the gateway in use; Reconnect drops
// that gateway's session and moves to the next, after the last to the first.
#include "edgeadmm/failover_transport.h"

#include <gtest/gtest.h>

#include "edgeadmm/wire/coap_code.h"

namespace edgeadmm {
namespace {

// Counts the calls it gets.
class CountingTransport final : public Transport {
 public:
  CountingTransport() = default;
  Status StartRequest(const TransportRequest&, ByteSpan) override {
    ++requests;
    return Status::Ok();
  }
  bool TakeResult(TransportResult& result) override {
    ++takes;
    result = next;
    return true;
  }
  void Cancel() override { ++cancels; }
  Status StartObserve(const char*, ByteSpan) override {
    ++observes;
    return Status::Ok();
  }
  bool TakeNotification(TransportResult&) override { return false; }
  void StopObserve() override { ++stops; }
  void Reconnect() override { ++reconnects; }
  StatusWithSize Poll(uint32_t) override {
    ++polls;
    return StatusWithSize(0);
  }
  TransportResult next;  // what TakeResult reports
  int requests = 0, takes = 0, cancels = 0, observes = 0, stops = 0,
      reconnects = 0, polls = 0;
};

TEST(FailoverTransportTest, UsesOneGatewayAndMovesOnReconnect) {
  CountingTransport a, b, c;
  Transport* const gateways[] = {&a, &b, &c};
  FailoverTransport t(gateways, 3);
  TransportRequest request;
  TransportResult result;
  ASSERT_TRUE(t.StartRequest(request, ByteSpan()).ok());
  EXPECT_TRUE(t.TakeResult(result));
  ASSERT_TRUE(t.StartObserve("task", ByteSpan()).ok());
  EXPECT_TRUE(t.Poll(0).ok());
  EXPECT_EQ(a.requests, 1);
  EXPECT_EQ(a.takes, 1);
  EXPECT_EQ(a.observes, 1);
  EXPECT_EQ(a.polls, 1);
  EXPECT_EQ(b.requests + b.observes + b.polls + c.requests, 0);

  // The gateway went silent: its session is dropped, the next one used.
  t.Reconnect();
  EXPECT_EQ(a.reconnects, 1);
  EXPECT_EQ(t.index(), 1u);
  ASSERT_TRUE(t.StartObserve("task", ByteSpan()).ok());
  t.StopObserve();
  t.Cancel();
  EXPECT_EQ(b.observes, 1);
  EXPECT_EQ(b.stops, 1);
  EXPECT_EQ(b.cancels, 1);
  EXPECT_EQ(a.observes, 1);  // unchanged

  // After the last gateway, the first again.
  t.Reconnect();
  EXPECT_EQ(b.reconnects, 1);
  EXPECT_EQ(t.index(), 2u);
  t.Reconnect();
  EXPECT_EQ(c.reconnects, 1);
  EXPECT_EQ(t.index(), 0u);
  EXPECT_EQ(t.switches(), 3u);
  ASSERT_TRUE(t.StartRequest(request, ByteSpan()).ok());
  EXPECT_EQ(a.requests, 2);
}

// A gateway that serves no job (4.04: a standby), cannot write its
// database (5.03), did not answer or could not be reached, is left at the
// next exchange; any other answer
// (a refusal included) keeps the device on it.
TEST(FailoverTransportTest, LeavesAGatewayThatCannotServe) {
  CountingTransport a, b;
  Transport* const gateways[] = {&a, &b};
  FailoverTransport t(gateways, 2);
  TransportRequest request;
  TransportResult result;
  const auto exchange = [&](CountingTransport& on, TransportResult answer) {
    on.next = answer;
    EXPECT_TRUE(t.StartRequest(request, ByteSpan()).ok());
    EXPECT_TRUE(t.TakeResult(result));
  };
  TransportResult refused;
  refused.code = wire::kCoapForbidden;
  exchange(a, refused);
  TransportResult stale;
  stale.code = wire::CoapCode(4, 12);
  exchange(a, stale);
  EXPECT_EQ(t.switches(), 0u);
  TransportResult no_job;
  no_job.code = wire::kCoapNotFound;
  exchange(a, no_job);
  EXPECT_EQ(t.index(), 0u);  // left at the next exchange, not before
  TransportResult silent;
  silent.status = Status::DeadlineExceeded();
  exchange(b, silent);
  EXPECT_EQ(a.reconnects, 1);
  EXPECT_EQ(b.requests, 1);
  TransportResult unreachable;
  unreachable.status = Status::Unavailable();
  exchange(a, unreachable);
  EXPECT_EQ(b.reconnects, 1);
  EXPECT_EQ(a.requests, 4);
  TransportResult store_failing;
  store_failing.code = wire::kCoapServiceUnavailable;
  exchange(b, store_failing);
  EXPECT_EQ(b.requests, 2);
  TransportResult content;
  content.code = wire::kCoapContent;
  exchange(a, content);
  ASSERT_TRUE(t.StartRequest(request, ByteSpan()).ok());
  EXPECT_EQ(t.index(), 0u);
  EXPECT_EQ(t.switches(), 4u);
}

// A Reconnect after the gateway answered keeps it (a new session); one
// with no answer since the last moves on.
TEST(FailoverTransportTest, ReconnectKeepsAGatewayThatAnswered) {
  CountingTransport a, b;
  Transport* const gateways[] = {&a, &b};
  FailoverTransport t(gateways, 2);
  TransportResult result;
  a.next.code = wire::kCoapContent;
  ASSERT_TRUE(t.StartRequest(TransportRequest(), ByteSpan()).ok());
  EXPECT_TRUE(t.TakeResult(result));
  t.Reconnect();
  EXPECT_EQ(a.reconnects, 1);
  EXPECT_EQ(t.index(), 0u);
  t.Reconnect();  // silent since
  EXPECT_EQ(a.reconnects, 2);
  EXPECT_EQ(t.index(), 1u);
  // An answer, then a failure: left at the next exchange all the same.
  b.next.code = wire::kCoapChanged;
  ASSERT_TRUE(t.StartRequest(TransportRequest(), ByteSpan()).ok());
  EXPECT_TRUE(t.TakeResult(result));
  b.next = TransportResult();
  b.next.status = Status::Unavailable();
  ASSERT_TRUE(t.StartRequest(TransportRequest(), ByteSpan()).ok());
  EXPECT_TRUE(t.TakeResult(result));
  ASSERT_TRUE(t.StartRequest(TransportRequest(), ByteSpan()).ok());
  EXPECT_EQ(t.index(), 0u);
  EXPECT_EQ(a.requests, 2);
}

TEST(FailoverTransportTest, StartsOnTheGivenGateway) {
  CountingTransport a, b, c;
  Transport* const gateways[] = {&a, &b, &c};
  FailoverTransport t(gateways, 3, /*first=*/5);
  EXPECT_EQ(t.index(), 2u);
  ASSERT_TRUE(t.StartRequest(TransportRequest(), ByteSpan()).ok());
  EXPECT_EQ(c.requests, 1);
  t.Reconnect();
  EXPECT_EQ(t.index(), 0u);
}

TEST(FailoverTransportTest, OneGatewayStaysOnIt) {
  CountingTransport a;
  Transport* const gateways[] = {&a};
  FailoverTransport t(gateways, 1);
  a.next.code = wire::kCoapNotFound;
  TransportResult result;
  ASSERT_TRUE(t.StartRequest(TransportRequest(), ByteSpan()).ok());
  EXPECT_TRUE(t.TakeResult(result));
  ASSERT_TRUE(t.StartRequest(TransportRequest(), ByteSpan()).ok());
  EXPECT_EQ(a.reconnects, 0);  // no other gateway to go to
  t.Reconnect();
  EXPECT_EQ(a.reconnects, 1);
  EXPECT_EQ(t.index(), 0u);
}

// One transport for every gateway (a device with RAM for one DTLS session):
// each move drops its session first, then the hook points it at the next
// gateway, in order, after the last the first.
TEST(FailoverTransportTest, SharedTransportMovesThroughTheHook) {
  CountingTransport shared;
  Transport* const gateways[] = {&shared, &shared, &shared};
  struct Seen {  // no heap: the test also runs on the MCU
    CountingTransport* transport;
    size_t moves;
    size_t indices[3];
    int reconnects_before[3];
  } seen{&shared, 0, {}, {}};
  FailoverMoveHook hook;
  hook.context = &seen;
  hook.fn = [](void* context, size_t index) {
    auto* s = static_cast<Seen*>(context);
    if (s->moves == 3) return;
    s->indices[s->moves] = index;
    s->reconnects_before[s->moves++] = s->transport->reconnects;
  };
  FailoverTransport t(gateways, 3, 0, hook);
  shared.next.status = Status::DeadlineExceeded();
  TransportResult result;
  ASSERT_TRUE(t.StartRequest(TransportRequest(), ByteSpan()).ok());
  EXPECT_TRUE(t.TakeResult(result));  // no answer: leave at the next one
  EXPECT_EQ(seen.moves, 0u);
  ASSERT_TRUE(t.StartRequest(TransportRequest(), ByteSpan()).ok());
  t.Reconnect();  // silent since: move again
  t.Reconnect();
  ASSERT_EQ(seen.moves, 3u);
  const size_t indices[] = {1, 2, 0};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(seen.indices[i], indices[i]);
    EXPECT_EQ(seen.reconnects_before[i], static_cast<int>(i) + 1);
  }
  EXPECT_EQ(t.switches(), 3u);
}

}  // namespace
}  // namespace edgeadmm
