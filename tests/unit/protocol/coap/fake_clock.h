// The fake clock of the CoapClient tests (time passes only when a test or
// its link says so) and a loop polling a client's request on it.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>

#include "edgeadmm/coap/coap_client.h"

namespace edgeadmm::coap {

inline uint64_t g_now = 1000;
inline uint64_t Now() { return g_now; }

// Polls `client` (100 ms of fake time each) until its request's result is
// ready or `limit_ms` passed; true with `r` filled if it was.
inline bool PollForResult(CoapClient& client, TransportResult& r,
                          uint64_t limit_ms = 200000) {
  const uint64_t end = g_now + limit_ms;
  while (g_now < end) {
    if (client.TakeResult(r)) return true;
    EXPECT_TRUE(client.Poll(100).ok());
  }
  return client.TakeResult(r);
}

}  // namespace edgeadmm::coap
