// An upload the store cannot hold is not acknowledged: 5.03 with Max-Age,
// so that the device keeps it and retries (docs/security.md, "Durable
// receipts and write failures"). Writes fail through the FaultyVfs shim.
#include <gtest/gtest.h>

#include <memory>

#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/rounds/round_accountant.h"
#include "edgeadmm/rounds/round_engine.h"
#include "edgeadmm/server/request_handler.h"
#include "edgeadmm/wire/coap_code.h"
#include "edgeadmm/wire/protocol.h"
#include "faulty_vfs.h"
#include "test_database.h"
#include "wire_bodies.h"

namespace edgeadmm::server {
namespace {

using testing::FaultyVfs;

TEST(RequestHandlerWriteFaultTest, UnstoredUploadGets503WithMaxAgeThen204) {
  FaultyVfs& vfs = FaultyVfs::Install();
  vfs.Heal();
  testing::TempDatabase t;
  testing::EnrollDevices(t.db(), 6);
  const int64_t job = testing::CreateJobOrDie(
      t.db(), testing::JobToml("h", "prox-admm", testing::DefaultPrivacyTable(),
                               testing::DefaultSamplingTable()));
  ASSERT_TRUE(jobs::SetJobState(t.db(), job, jobs::JobState::kRunning).ok());
  rounds::PrivacyRoundAccountant accountant;
  auto opened = rounds::RoundEngine::Open(t.db(), job, accountant);
  ASSERT_TRUE(opened.ok());
  std::unique_ptr<rounds::RoundEngine> engine = std::move(opened).value();
  int64_t now = 1000;
  ASSERT_TRUE(engine->Advance(now).ok());
  RequestHandler handler(engine.get());
  const std::vector<std::string> cohort = engine->CohortForTesting();
  const auto post = [&](const std::string& id) {
    const std::vector<uint8_t> body = testing::EncodeUpdateBody(
        id, static_cast<uint64_t>(job),
        static_cast<uint64_t>(engine->round_id()), {0.5, -0.5, 0.25});
    return handler.Update(id, wire::kUpdateFormat, body.data(), body.size(),
                          now);
  };

  // The disk is full: refused, with when to retry; nothing stored.
  vfs.FailFrom(0, FaultyVfs::Fault::kFull);
  Response r = post(cohort[0]);
  EXPECT_EQ(r.code, wire::kCoapServiceUnavailable);
  EXPECT_EQ(r.max_age_seconds, kStoreRetrySeconds);
  EXPECT_EQ(testing::QueryInt(t.db(), "SELECT count(*) FROM uploads"), 0);
  EXPECT_EQ(testing::QueryInt(t.db(), "SELECT count(*) FROM ledger"), 0);

  // The round's deadline passes while the disk is still full: its discard
  // (m_min not reached) fails, the engine stays, and refuses new uploads
  // until its retry succeeded, even once the disk has room again.
  now += 10'000;
  EXPECT_FALSE(engine->Advance(now).ok());
  EXPECT_TRUE(engine->store_failing());
  const int64_t round = engine->round_id();
  vfs.Heal();
  r = post(cohort[1]);
  EXPECT_EQ(r.code, wire::kCoapServiceUnavailable);
  EXPECT_EQ(r.max_age_seconds, kStoreRetrySeconds);
  now += rounds::RoundEngine::kWriteRetryMs;
  EXPECT_TRUE(engine->Advance(now).ok());
  EXPECT_FALSE(engine->store_failing());
  EXPECT_NE(engine->round_id(), round);
  EXPECT_EQ(testing::QueryInt(t.db(), "SELECT count(*) FROM rounds WHERE "
                                      "state = 'discarded'"),
            1);

  // A device's retry in the next round is acknowledged, stored with its
  // charge.
  const std::string device = engine->CohortForTesting()[0];
  r = post(device);
  EXPECT_EQ(r.code, wire::kCoapChanged);
  EXPECT_EQ(r.max_age_seconds, -1);
  EXPECT_EQ(testing::QueryInt(t.db(), "SELECT count(*) FROM uploads"), 1);
  EXPECT_EQ(testing::QueryInt(
                t.db(), "SELECT count(*) FROM ledger WHERE scope LIKE 'local:%'"),
            1);
}

}  // namespace
}  // namespace edgeadmm::server
