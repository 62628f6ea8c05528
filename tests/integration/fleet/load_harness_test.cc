// The load harness's pieces (issue 36): the daemon's CPU and memory read
// from /proc text, the fleet's loopback source addresses, and which devices
// one fleet process runs.
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "edgeadmm/fleet/process_usage.h"
#include "edgeadmm/fleet/psk_files.h"
#include "edgeadmm/fleet/source_addresses.h"
#include "gtest/gtest.h"

namespace edgeadmm::fleet {
namespace {

// A /proc/<pid>/stat line whose command name holds spaces and a ')'.
constexpr char kStat[] =
    "4242 (edgeadmm (x) d) S 1 4242 4242 0 -1 4194560 900 0 0 0 "
    "250 150 0 0 20 0 3 0 12345 1000000 2000 18446744073709551615";
constexpr char kStatus[] =
    "Name:\tedgeadmm-aggreg\nVmPeak:\t  300000 kB\nVmHWM:\t   81920 kB\n"
    "VmRSS:\t   40960 kB\nThreads:\t3\n";

TEST(ProcessUsageTest, ParsesCpuAndMemory) {
  ProcessUsage u;
  ASSERT_TRUE(ParseProcessUsage(kStat, kStatus, 100, &u));
  EXPECT_DOUBLE_EQ(u.cpu_seconds, 4.0);  // (250 + 150) ticks / 100
  EXPECT_EQ(u.rss_bytes, 40960u * 1024);
  EXPECT_EQ(u.peak_rss_bytes, 81920u * 1024);
}

TEST(ProcessUsageTest, RefusesTruncatedText) {
  ProcessUsage u;
  EXPECT_FALSE(ParseProcessUsage("4242 (d) S 1 2 3", kStatus, 100, &u));
  EXPECT_FALSE(ParseProcessUsage(kStat, "VmRSS:\t1 kB\n", 100, &u));
  EXPECT_FALSE(ParseProcessUsage(kStat, kStatus, 0, &u));
}

TEST(ProcessUsageTest, ReadsThisProcess) {
  ProcessUsage u;
  ASSERT_TRUE(ReadProcessUsage(getpid(), &u));
  EXPECT_GT(u.rss_bytes, 0u);
  EXPECT_GE(u.peak_rss_bytes, u.rss_bytes);
  EXPECT_FALSE(ReadProcessUsage(0, &u));
}

TEST(SourceAddressesTest, NthCountsThroughOctets) {
  EXPECT_EQ(SourceAddresses::Nth("127.1.0.1", 0), "127.1.0.1");
  EXPECT_EQ(SourceAddresses::Nth("127.1.0.254", 3), "127.1.1.1");
  EXPECT_EQ(SourceAddresses::Nth("127.0.0.2", 65536), "127.1.0.2");
  EXPECT_EQ(SourceAddresses::Nth("255.255.255.254", 1), "");
  EXPECT_EQ(SourceAddresses::Nth("not-an-address", 0), "not-an-address");
}

TEST(SourceAddressesTest, DevicesRoundRobinOverDistinctAddresses) {
  auto a = SourceAddresses::Make("127.3.0.1", 300, 1000);
  ASSERT_TRUE(a.ok()) << a.error().ToString();
  EXPECT_EQ(a->count(), 300u);
  EXPECT_STREQ(a->ForDevice(0)->address(), "127.3.0.1");
  EXPECT_STREQ(a->ForDevice(299)->address(), "127.3.1.44");
  EXPECT_EQ(a->ForDevice(300), a->ForDevice(0));
  EXPECT_NE(a->ForDevice(1), a->ForDevice(0));
}

TEST(SourceAddressesTest, RefusesWhatCannotBeBound) {
  EXPECT_FALSE(SourceAddresses::Make("127.3.0.1", 0, 10).ok());
  EXPECT_FALSE(SourceAddresses::Make("192.0.2.1", 1, 10).ok());  // TEST-NET
  EXPECT_FALSE(SourceAddresses::Make("255.255.255.250", 10, 10).ok());
  EXPECT_FALSE(SourceAddresses::Make("bad", 1, 10).ok());
}

// --part I/K keeps the indices i % K == I of the sorted ids, and
// --device-prefix those of them whose id begins with it (byte for byte).
TEST(PartIndicesTest, SplitByIndexThenByPrefix) {
  const std::vector<std::string> ids = {"a-0", "a-1", "a-2", "A-3",
                                        "b-0", "b-1", "a",   "a-4"};
  using V = std::vector<size_t>;
  EXPECT_EQ(PartIndices(ids, 0, 1, ""), (V{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(PartIndices(ids, 1, 3, ""), (V{1, 4, 7}));
  EXPECT_EQ(PartIndices(ids, 0, 1, "a-"), (V{0, 1, 2, 7}));
  EXPECT_EQ(PartIndices(ids, 1, 2, "a-"), (V{1, 7}));
  EXPECT_EQ(PartIndices(ids, 1, 2, "b-"), (V{5}));
  EXPECT_TRUE(PartIndices(ids, 0, 2, "c-").empty());
  EXPECT_TRUE(PartIndices(ids, 0, 0, "").empty());
}

}  // namespace
}  // namespace edgeadmm::fleet
