// The fleet's byte counter (byte_count_transport.h): the bodies of requests
// the inner transport accepted and of responses and notifications that
// arrived are counted; refused requests and failed exchanges are not.
#include "edgeadmm/fleet/byte_count_transport.h"

#include <gtest/gtest.h>

#include <deque>

namespace edgeadmm::fleet {
namespace {

// Answers with the queued outcomes; refuses a request when told to.
class ScriptedTransport final : public Transport {
 public:
  Status StartRequest(const TransportRequest&, ByteSpan) override {
    return start;
  }
  bool TakeResult(TransportResult& r) override { return Pop(results, r); }
  void Cancel() override {}
  Status StartObserve(const char*, ByteSpan) override { return Status::Ok(); }
  bool TakeNotification(TransportResult& r) override {
    return Pop(notifications, r);
  }
  void StopObserve() override {}
  StatusWithSize Poll(uint32_t) override { return StatusWithSize(0); }

  Status start = Status::Ok();
  std::deque<TransportResult> results;
  std::deque<TransportResult> notifications;

 private:
  static bool Pop(std::deque<TransportResult>& q, TransportResult& r) {
    if (q.empty()) return false;
    r = q.front();
    q.pop_front();
    return true;
  }
};

TransportResult Arrived(Status status, size_t bytes) {
  TransportResult r;
  r.status = status;
  r.payload_size = bytes;
  return r;
}

TEST(ByteCountTransportTest, CountsBodiesThatWentAndCame) {
  ScriptedTransport inner;
  ByteCountTransport counted(inner);
  std::byte body[300] = {};
  TransportRequest request;
  request.method = CoapMethod::kPost;
  request.path = "v1/update";
  request.payload = ConstByteSpan(body, sizeof(body));
  ASSERT_TRUE(counted.StartRequest(request, ByteSpan()).ok());
  inner.start = Status::Unavailable();  // refused: nothing went
  EXPECT_EQ(counted.StartRequest(request, ByteSpan()), Status::Unavailable());
  EXPECT_EQ(counted.bytes_up(), 300u);

  inner.results.push_back(Arrived(Status::Ok(), 40));
  inner.results.push_back(Arrived(Status::DeadlineExceeded(), 99));
  inner.notifications.push_back(Arrived(Status::Ok(), 500));
  TransportResult r;
  EXPECT_TRUE(counted.TakeResult(r));
  EXPECT_TRUE(counted.TakeResult(r));
  EXPECT_FALSE(counted.TakeResult(r));
  EXPECT_TRUE(counted.TakeNotification(r));
  EXPECT_EQ(r.payload_size, 500u);
  EXPECT_EQ(counted.bytes_down(), 540u);
}

}  // namespace
}  // namespace edgeadmm::fleet
