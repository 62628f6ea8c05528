// admm-sharing's scoring phase through the request handler and the round
// engine (no sockets): in the last round only SHARE_AND_SCORES uploads of
// N + K finite values are accepted (a share alone, a wrong kind or a
// non-finite partial score is refused with its code and changes nothing),
// and the committed last model carries the gateway's score of the summed
// partial scores in the store (job status and export).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "edgeadmm/algorithms/admm_sharing.h"
#include "edgeadmm/jobs/job_report.h"
#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/rounds/round_accountant.h"
#include "edgeadmm/server/request_handler.h"
#include "edgeadmm/wire/coap_code.h"
#include "edgeadmm/wire/protocol.h"
#include "test_database.h"
#include "wire_bodies.h"

namespace edgeadmm::server {
namespace {

constexpr auto kShare = edgeadmm_wire_UpdateKind_UPDATE_KIND_SHARE;
constexpr auto kScores = edgeadmm_wire_UpdateKind_UPDATE_KIND_SHARE_AND_SCORES;

std::string SharingToml() {
  return "[job]\nname = \"sc\"\nalgorithm = \"admm-sharing\"\nloss = "
         "\"logistic\"\ndimension = 5\nrounds = 2\n[admm_sharing]\n"
         "parties = 2\ncolumns = [3, 2]\nrecords = 4\nrho = 0.1\n"
         "lambda = 0.01\nlabels = \"" +
         testing::WriteTestFile("rh_train.libsvm",
                                "+1 1:1\n-1 2:1\n-1 5:0.5\n+1 3:1\n") +
         "\"\nnoise = \"none\"\ntest_labels = \"" +
         testing::WriteTestFile("rh_test.libsvm", "-1 1:1\n+1 2:1\n+1 4:1\n") +
         "\"\ntest_records = 3\nscore_noise = \"exact\"\n"
         "[sampling]\ndeadline_seconds = 10\n";
}

// `body` with the float32 of `marker` replaced by a NaN.
std::vector<uint8_t> WithNan(std::vector<uint8_t> body, float marker) {
  uint8_t bytes[4];
  std::memcpy(bytes, &marker, 4);
  const uint8_t nan[4] = {0x00, 0x00, 0xc0, 0x7f};
  for (size_t i = 0; i + 4 <= body.size(); ++i) {
    if (std::memcmp(&body[i], bytes, 4) == 0) {
      std::memcpy(&body[i], nan, 4);
      return body;
    }
  }
  return {};
}

TEST(RequestHandlerSharingScoreTest, TheLastRoundTakesOnlyFiniteScores) {
  testing::TempDatabase t;
  const std::vector<std::string> ids = testing::EnrollDevices(t.db(), 2);
  const int64_t job = testing::CreateJobOrDie(t.db(), SharingToml());
  ASSERT_TRUE(jobs::SetJobState(t.db(), job, jobs::JobState::kRunning).ok());
  rounds::PrivacyRoundAccountant accountant;
  auto engine = rounds::RoundEngine::Open(t.db(), job, accountant);
  ASSERT_TRUE(engine.ok());
  rounds::RoundEngine& e = **engine;
  RequestHandler handler(&e);
  const auto post = [&](const std::string& id, const std::vector<uint8_t>& b,
                        int64_t now) {
    return handler.Update(id, wire::kUpdateFormat, b.data(), b.size(), now);
  };
  const auto body = [&](const std::string& id, const std::vector<double>& v,
                        edgeadmm_wire_UpdateKind kind) {
    return testing::EncodeUpdateBody(id, job, e.round_id(), v, 0, kind);
  };
  // Round 1 of 2: shares of N = 4 values.
  ASSERT_TRUE(e.Advance(1000).ok());
  const std::vector<std::vector<double>> shares = {{0.1, -0.2, 0.3, 0.0},
                                                   {0.5, 0.1, -0.4, 0.2}};
  for (size_t m = 0; m < 2; ++m) {
    ASSERT_EQ(post(ids[m], body(ids[m], shares[m], kShare), 1000).code,
              wire::kCoapChanged);
  }
  ASSERT_TRUE(e.Advance(2000).ok());
  ASSERT_EQ(e.iteration(), 1);
  // Round 2 = T: the scoring phase.
  std::vector<double> u0 = shares[0];
  u0.insert(u0.end(), {-1.0, 1.0, 0.5});
  std::vector<double> u1 = shares[1];
  u1.insert(u1.end(), {-0.5, -0.5, 1.5});
  std::vector<double> marked = u1;
  marked[5] = 1234.5;
  const std::string before = testing::Snapshot(t.db());
  struct Case {
    const char* what;
    std::vector<uint8_t> body;
    uint8_t code;
  };
  const std::vector<Case> cases = {
      {"a share alone", body(ids[1], shares[1], kShare), wire::kCoapBadRequest},
      {"scores under the share's kind", body(ids[1], u1, kShare),
       wire::kCoapBadRequest},
      {"a short score vector",
       body(ids[1], std::vector<double>(u1.begin(), u1.end() - 1), kScores),
       wire::kCoapBadRequest},
      {"a non-finite partial score",
       WithNan(body(ids[1], marked, kScores), 1234.5f), wire::kCoapBadRequest},
  };
  for (const Case& c : cases) {
    ASSERT_FALSE(c.body.empty()) << c.what;
    EXPECT_EQ(post(ids[1], c.body, 3000).code, c.code) << c.what;
    EXPECT_EQ(testing::Snapshot(t.db()), before) << c.what;
  }
  ASSERT_EQ(post(ids[0], body(ids[0], u0, kScores), 3000).code,
            wire::kCoapChanged);
  ASSERT_EQ(post(ids[1], body(ids[1], u1, kScores), 3000).code,
            wire::kCoapChanged);
  ASSERT_TRUE(e.Advance(4000).ok());
  auto status = jobs::LoadJobStatus(t.db(), "sc");
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->job.state, jobs::JobState::kCompleted);
  EXPECT_EQ(status->last.scores.test_records, 3);
  // Margins (−1.5, 0.5, 2) against labels (−1, +1, +1), float32 on the wire.
  auto reference = algorithms::ScorePartialSums(
      {{-1.0, 1.0, 0.5}, {-0.5, -0.5, 1.5}}, {-1, 1, 1});
  ASSERT_TRUE(reference.ok());
  EXPECT_NEAR(status->last.scores.test_log_loss, reference->log_loss, 1e-7);
  EXPECT_DOUBLE_EQ(status->last.scores.test_accuracy, 1.0);
  auto released =
      jobs::LoadReleasedModel(t.db(), "sc", jobs::ModelChoice::Last());
  ASSERT_TRUE(released.ok());
  EXPECT_NE(jobs::ModelToJson(*released).find("\"test_score\": {\"what\""),
            std::string::npos);
}

}  // namespace
}  // namespace edgeadmm::server
