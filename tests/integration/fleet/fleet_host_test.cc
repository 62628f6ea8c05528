#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <limits>
#include <string>

#include "edgeadmm/fleet/data_split.h"
#include "edgeadmm/fleet/fleet_simulator.h"
#include "edgeadmm/fleet/ram_storage.h"
#include "gtest/gtest.h"

namespace edgeadmm::fleet {
namespace {

std::string DataPath(const char* file) {
  const char* dir = std::getenv("EDGEADMM_DATA");
  return std::string(dir != nullptr ? dir : "../shared/data") + "/" + file;
}

TEST(DataSplitTest, RecordsAreSplitEvenlyAndCompletely) {
  auto split = SplitRecords(10, 4);
  ASSERT_TRUE(split.ok());
  ASSERT_EQ(split->size(), 4u);
  const size_t counts[4] = {3, 3, 2, 2};
  size_t next = 0;
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ((*split)[i].first, next);
    EXPECT_EQ((*split)[i].count, counts[i]);
    next += (*split)[i].count;
  }
  EXPECT_EQ(next, 10u);
  EXPECT_EQ(SplitRecords(3, 4).status(), Status::InvalidArgument());
  EXPECT_EQ(SplitRecords(3, 0).status(), Status::InvalidArgument());
}

TEST(DataSplitTest, RecordsSplitBySizeAreConsecutiveRunsOfThoseSizes) {
  auto split = SplitRecordsBySize(10, {1, 5, 3});
  ASSERT_TRUE(split.ok());
  ASSERT_EQ(split->size(), 3u);
  const size_t firsts[3] = {0, 1, 6};
  const size_t counts[3] = {1, 5, 3};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ((*split)[i].first, firsts[i]);
    EXPECT_EQ((*split)[i].count, counts[i]);
  }
  EXPECT_TRUE(SplitRecordsBySize(9, {1, 5, 3}).ok());  // exactly all
  EXPECT_EQ(SplitRecordsBySize(8, {1, 5, 3}).status(),
            Status::InvalidArgument());
  EXPECT_EQ(SplitRecordsBySize(10, {1, 0, 3}).status(),
            Status::InvalidArgument());
  EXPECT_EQ(SplitRecordsBySize(10, {}).status(), Status::InvalidArgument());
}

TEST(DataSplitTest, ColumnBlockCopiesTheColumnsAndKeepsTheLabels) {
  DenseDataset d;
  d.samples = 2;
  d.dim = 5;
  d.features = {0, 1, 2, 3, 4, 10, 11, 12, 13, 14};
  d.labels = {1, -1};
  auto columns = SplitColumns(5, 2);
  ASSERT_TRUE(columns.ok());
  EXPECT_EQ((*columns)[1].first, 3u);
  EXPECT_EQ((*columns)[1].count, 2u);
  auto block = ColumnBlock(d, (*columns)[1]);
  ASSERT_TRUE(block.ok());
  EXPECT_EQ(block->dim, 2u);
  EXPECT_EQ(block->features, (std::vector<Real>{3, 4, 13, 14}));
  EXPECT_EQ(block->labels, d.labels);
  EXPECT_EQ(ColumnBlock(d, ColumnRange{4, 2}).status(),
            Status::InvalidArgument());
  EXPECT_EQ(SplitColumns(5, 6).status(), Status::InvalidArgument());
}

TEST(RamStorageTest, HoldsOneKey) {
  RamStorage s;
  std::byte out[4];
  EXPECT_EQ(s.Read("client", out).status(), Status::NotFound());
  const std::byte blob[3] = {std::byte{1}, std::byte{2}, std::byte{3}};
  ASSERT_TRUE(s.Write("client", blob).ok());
  const StatusWithSize read = s.Read("client", out);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read.size(), 3u);
  EXPECT_EQ(out[2], std::byte{3});
  EXPECT_EQ(s.Write("other", blob), Status::ResourceExhausted());
  EXPECT_EQ(s.Read("client", ByteSpan(out, 2)).status(),
            Status::ResourceExhausted());
  EXPECT_EQ(s.Write("bad key", blob), Status::InvalidArgument());
}

TEST(RamStorageTest, HoldsAsManyKeysAsConfigured) {
  RamStorage s(3);  // a secure-round client: record, session, input
  const std::byte a[2] = {std::byte{1}, std::byte{2}};
  const std::byte b[1] = {std::byte{7}};
  ASSERT_TRUE(s.Write("client", a).ok());
  ASSERT_TRUE(s.Write("client.sa", b).ok());
  ASSERT_TRUE(s.Write("client.in", a).ok());
  EXPECT_EQ(s.Write("client.x", b), Status::ResourceExhausted());
  ASSERT_TRUE(s.Write("client", b).ok());  // rewriting a key: no new one
  std::byte out[4];
  const StatusWithSize read = s.Read("client", out);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read.size(), 1u);
  EXPECT_EQ(out[0], std::byte{7});
  const StatusWithSize other = s.Read("client.in", out);
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other.size(), 2u);
  EXPECT_EQ(out[1], std::byte{2});
}

FleetConfig LossyConfig(size_t devices, uint32_t rounds) {
  FleetConfig c;
  c.devices = devices;
  c.data_path = DataPath("a9a.xz");
  c.dim = 123;
  c.rounds = rounds;
  c.loss = 0.3;
  c.dropout = 0.1;
  c.reboot = 0.1;
  c.seed = 3;
  return c;
}

void ExpectExactlyOnce(const FleetReport& r) {
  EXPECT_TRUE(r.exactly_once);
  EXPECT_EQ(r.conflicts, 0u);
  EXPECT_EQ(r.rejected, 0u);
  uint64_t expected = 0;
  for (const RoundLine& line : r.lines) {
    // Every online device delivered its upload of the round, once.
    EXPECT_EQ(line.accepted, line.online) << "round " << line.round;
    expected += line.online;
  }
  EXPECT_EQ(r.accepted, expected);
  EXPECT_EQ(r.steps_computed, r.accepted);  // no step computed twice
  EXPECT_EQ(r.uploads_acknowledged, r.accepted);
  // Each reboot between persist and upload resent the stored bytes.
  EXPECT_GT(r.reboots, 0u);
  EXPECT_EQ(r.resumed_uploads, r.reboots);
  const double lost =
      static_cast<double>(r.datagrams_lost) / static_cast<double>(r.datagrams);
  EXPECT_NEAR(lost, 0.3, 0.02);
}

// Must-show at fleet scale: 30% datagram loss, 10% dropout, 10% reboots
// between persisting and uploading: every upload is delivered exactly once.
TEST(FleetTest, LossDropoutAndRebootsDeliverEveryUploadExactlyOnce) {
  auto report = RunFleet(LossyConfig(1500, 2), nullptr);
  ASSERT_TRUE(report.ok()) << report.error().ToString();
  ExpectExactlyOnce(*report);
  EXPECT_GT(report->duplicates, 0u);  // lost receipts were resent
  EXPECT_GT(report->bytes_per_device, 0.0);
  std::printf("fleet: 1500 devices, %.0f bytes per virtual device\n",
              report->bytes_per_device);
}

TEST(FleetTest, StateDirectoriesSurviveReboots) {
  char dir[] = "/tmp/edgeadmm_fleet_XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  FleetConfig c = LossyConfig(40, 3);
  c.state_dir = std::string(dir) + "/state";
  c.reboot = 0.3;
  auto report = RunFleet(c, nullptr);
  ASSERT_TRUE(report.ok()) << report.error().ToString();
  ExpectExactlyOnce(*report);
  struct stat st;
  EXPECT_EQ(stat((c.state_dir + "/fleet-000000/client").c_str(), &st), 0);
  EXPECT_EQ(std::system(("rm -rf " + std::string(dir)).c_str()), 0);
}

TEST(FleetTest, TheModelLearnsWithLittleNoise) {
  FleetConfig c;
  c.devices = 20;
  c.data_path = DataPath("a9a.xz");
  c.rounds = 20;
  c.sigma = 0.01;
  c.clip = 100;
  c.gamma = 2;
  c.epsilon_budget = std::numeric_limits<double>::infinity();
  c.deterministic_entropy = true;
  auto report = RunFleet(c, nullptr);
  ASSERT_TRUE(report.ok()) << report.error().ToString();
  // a9a: 76% of the records are negative; the federated model beats that.
  EXPECT_GT(report->lines.back().accuracy, 0.82);
}

TEST(FleetTest, RefusesBadConfigs) {
  FleetConfig c = LossyConfig(10, 1);
  c.loss = 1.0;
  EXPECT_EQ(RunFleet(c, nullptr).status(), Status::InvalidArgument());
  c = LossyConfig(40000, 1);  // more devices than a9a records
  EXPECT_EQ(RunFleet(c, nullptr).status(), Status::InvalidArgument());
  c = LossyConfig(10, 1);
  c.data_path = "/nonexistent/a9a";
  EXPECT_FALSE(RunFleet(c, nullptr).ok());
}

}  // namespace
}  // namespace edgeadmm::fleet
