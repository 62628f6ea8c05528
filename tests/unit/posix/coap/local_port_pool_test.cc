// LocalPortPool: distinct ports round robin, released ports reused last,
// exhaustion reported as 0.
#include "edgeadmm/posix/local_port_pool.h"

#include <gtest/gtest.h>

#include <set>

namespace edgeadmm::posix {
namespace {

TEST(LocalPortPoolTest, HandsOutEveryPortOnceUntilReleased) {
  LocalPortPool pool("127.0.0.2", 100, 104);
  EXPECT_STREQ(pool.address(), "127.0.0.2");
  std::set<uint16_t> ports;
  for (int i = 0; i < 5; ++i) ports.insert(pool.Acquire());
  EXPECT_EQ(ports, (std::set<uint16_t>{100, 101, 102, 103, 104}));
  EXPECT_EQ(pool.held(), 5u);
  EXPECT_EQ(pool.Acquire(), 0);  // all held
  pool.Release(102);
  EXPECT_EQ(pool.Acquire(), 102);
  pool.Release(7);    // not of the pool: ignored
  pool.Release(103);
  pool.Release(103);  // twice: counted once
  EXPECT_EQ(pool.held(), 4u);
}

// A released port comes back only after the others: its socket is gone and
// the server has likely forgotten the session by then.
TEST(LocalPortPoolTest, ReusesAReleasedPortLast) {
  LocalPortPool pool("127.0.0.2", 1000, 1003);
  EXPECT_EQ(pool.Acquire(), 1000);
  pool.Release(1000);
  EXPECT_EQ(pool.Acquire(), 1001);
  EXPECT_EQ(pool.Acquire(), 1002);
  EXPECT_EQ(pool.Acquire(), 1003);
  EXPECT_EQ(pool.Acquire(), 1000);  // wrapped around
}

TEST(LocalPortPoolTest, FullRangeAndPortZeroExcluded) {
  LocalPortPool pool("::1", 0, 65535);
  EXPECT_EQ(pool.Acquire(), 1);  // port 0 is "any": never handed out
  LocalPortPool top("127.0.0.2", 65535, 65535);
  EXPECT_EQ(top.Acquire(), 65535);
  EXPECT_EQ(top.Acquire(), 0);
}

}  // namespace
}  // namespace edgeadmm::posix
