// CoordinatorLease and JobHost on several gateways (docs/aggregator.md,
// "Several gateways on one database"): on one PostgreSQL database one
// gateway holds a job's lease and loads its engine, another stands by, and
// takes over (the round the holder left open marked lost, a new one
// opened) once the holder's session ends; on SQLite the one daemon always
// holds it.
#include "edgeadmm/server/coordinator_lease.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "backend_test.h"
#include "edgeadmm/registry/device_registry.h"
#include "edgeadmm/server/job_host.h"
#include "edgeadmm/server/revocation_watch.h"
#include "test_database.h"

namespace edgeadmm::server {
namespace {

using testing::Backend;

TEST(GatewayIdTest, AcceptsNamesAndRefusesWhatCouldEscape) {
  EXPECT_TRUE(ValidGatewayId("gw-a"));
  EXPECT_TRUE(ValidGatewayId("site_3.rack-2"));
  EXPECT_TRUE(ValidGatewayId(std::string(63, 'x')));
  EXPECT_FALSE(ValidGatewayId(""));
  EXPECT_FALSE(ValidGatewayId(std::string(64, 'x')));
  EXPECT_FALSE(ValidGatewayId("gw a"));
  EXPECT_FALSE(ValidGatewayId("gw'; DROP TABLE jobs; --"));
}

// A second connection to the database of `t`.
store::Database OpenAgain(testing::TempDatabase& t) {
  auto db = store::Database::Open(t.path());
  EXPECT_TRUE(db.ok());
  return std::move(db).value();
}

// Polls `holder_of` until it returns `want` or 10 s passed: the server
// ends a closed session's locks asynchronously (a database state to wait
// for, not a time).
template <typename F>
std::string WaitForHolder(F holder_of, const std::string& want) {
  const auto limit =
      std::chrono::steady_clock::now() + std::chrono::seconds(10);
  std::string seen;
  do {
    auto holder = holder_of();
    if (!holder.ok()) return "<error>";
    seen = *holder;
    if (seen == want) break;
    // Paces the queries; the wait ends on the state.
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  } while (std::chrono::steady_clock::now() < limit);
  return seen;
}

class CoordinatorLeaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why_not;
    if (!testing::BackendAvailable(Backend::kPostgres, &why_not)) {
      GTEST_SKIP() << why_not;
    }
  }
};

TEST_F(CoordinatorLeaseTest, OneHolderPerJobUntilItsSessionEnds) {
  testing::TempDatabase t(Backend::kPostgres);
  store::Database other = OpenAgain(t);
  {
    store::Database first = OpenAgain(t);
    CoordinatorLease a(first, "gw-a");
    CoordinatorLease b(other, "gw-b");
    ASSERT_EQ(b.Holder(1).value(), "");
    ASSERT_TRUE(a.Acquire(1).value());
    EXPECT_TRUE(a.Acquire(1).value());  // kept, not taken twice
    EXPECT_FALSE(b.Acquire(1).value());
    EXPECT_EQ(b.Holder(1).value(), "gw-a");
    EXPECT_EQ(a.Holder(1).value(), "gw-a");
    // Another job's lease is another lock.
    EXPECT_TRUE(b.Acquire(2).value());
    EXPECT_EQ(a.Holder(2).value(), "gw-b");
    EXPECT_FALSE(a.Acquire(2).value());
    // The store's write lock (one-key form) does not collide with a lease.
    EXPECT_TRUE(first.Exec("BEGIN IMMEDIATE; COMMIT").ok());
  }  // gw-a's session ends (its process died)
  CoordinatorLease b(other, "gw-b");
  EXPECT_EQ(WaitForHolder([&] { return b.Holder(1); }, ""), "");
  EXPECT_TRUE(b.Acquire(1).value());
  EXPECT_EQ(b.Holder(1).value(), "gw-b");
}

TEST(CoordinatorLeaseSqliteTest, TheOneDaemonAlwaysHoldsIt) {
  testing::TempDatabase t(Backend::kSqlite);
  CoordinatorLease a(t.db(), "gw-a");
  EXPECT_TRUE(a.Acquire(1).value());
  EXPECT_EQ(a.Holder(1).value(), "gw-a");
}

// Two gateways' JobHosts: one serves the job, the other stands by
// (following its round) and takes over as coordinator through
// RoundEngine::OpenShared, with the open round (its cohort is stored):
// nothing is marked lost and the round goes on under its id.
TEST_F(CoordinatorLeaseTest, StandbyTakesOverTheJobWhenTheHolderDies) {
  testing::TempDatabase t(Backend::kPostgres);
  testing::EnrollDevices(t.db(), 3);
  testing::StartOneDeviceJob(t.db(), "ha");
  RequestHandler handler_b{nullptr};
  store::Database db_b = OpenAgain(t);
  JobHost b(db_b, handler_b);
  b.set_gateway_id("gw-b");
  const int64_t now = 1'000'000;
  int64_t first_round = 0;
  {
    store::Database db_a = OpenAgain(t);
    RequestHandler handler_a{nullptr};
    JobHost a(db_a, handler_a);
    a.set_gateway_id("gw-a");
    ASSERT_TRUE(a.PickUpRunningJob(now).ok());
    ASSERT_NE(a.engine(), nullptr);
    a.Tick(now);
    ASSERT_TRUE(a.engine()->round_open());
    first_round = a.engine()->round_id();
    ASSERT_TRUE(b.PickUpRunningJob(now).ok());
    // Standing by: following a's round (a prox-admm job can be followed).
    ASSERT_NE(b.engine(), nullptr);
    EXPECT_EQ(b.engine()->role(), rounds::RoundEngine::Role::kFollower);
    b.Tick(now);
    EXPECT_EQ(b.engine()->round_id(), first_round);
  }  // gateway a dies with its round open
  CoordinatorLease probe(t.db(), "probe");
  ASSERT_EQ(WaitForHolder([&] { return probe.Holder(1); }, ""), "");
  ASSERT_TRUE(b.PickUpRunningJob(now + 1000).ok());
  ASSERT_NE(b.engine(), nullptr);
  EXPECT_EQ(b.engine()->role(), rounds::RoundEngine::Role::kCoordinator);
  EXPECT_EQ(probe.Holder(1).value(), "gw-b");
  EXPECT_EQ(testing::QueryInt(t.db(),
                              "SELECT count(*) FROM rounds WHERE "
                              "state = 'lost'"),
            0);
  b.Tick(now + 1000);
  ASSERT_TRUE(b.engine()->round_open());
  EXPECT_EQ(b.engine()->round_id(), first_round);
  EXPECT_EQ(testing::QueryInt(t.db(),
                              "SELECT count(*) FROM rounds WHERE state = "
                              "'open' AND round_id = " +
                                  std::to_string(first_round)),
            1);
}

// On PostgreSQL the revocation watch wakes on the registry's revocations
// (from any gateway or the CLI), not on every write of every gateway.
TEST_F(CoordinatorLeaseTest, RevocationWatchWakesOnRevocationsOnly) {
  testing::TempDatabase t(Backend::kPostgres);
  const std::vector<std::string> ids = testing::EnrollDevices(t.db(), 2);
  store::Database gateway = OpenAgain(t);
  RevocationWatch watch(gateway);
  EXPECT_TRUE(watch.DatabaseChanged());  // the first call looks
  EXPECT_FALSE(watch.DatabaseChanged());
  testing::StartOneDeviceJob(t.db(), "busy");  // writes, no revocation
  EXPECT_FALSE(watch.DatabaseChanged());
  registry::DeviceRegistry registry(t.db());
  ASSERT_TRUE(registry.Disable(ids[0]).ok());
  EXPECT_TRUE(watch.DatabaseChanged());
  EXPECT_FALSE(watch.DatabaseChanged());
  ASSERT_TRUE(registry.RotatePsk(ids[1], nullptr).ok());
  EXPECT_TRUE(watch.DatabaseChanged());
  ASSERT_TRUE(registry.Remove(ids[1]).ok());
  EXPECT_TRUE(watch.DatabaseChanged());
}

}  // namespace
}  // namespace edgeadmm::server
