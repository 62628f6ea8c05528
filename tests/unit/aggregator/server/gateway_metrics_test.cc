#include "edgeadmm/server/gateway_metrics.h"

#include <gtest/gtest.h>

#include <string>

#include "edgeadmm/server/metrics_file.h"
#include "edgeadmm/wire/coap_code.h"

namespace edgeadmm::server {
namespace {

bool Has(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

// Responses are counted by resource and code; a path the daemon does not
// serve counts as "other" (the label set stays bounded whatever arrives).
TEST(GatewayMetricsTest, ResponsesByResourceAndCode) {
  GatewayMetrics m;
  m.CountResponse("v1/update", wire::kCoapChanged);
  m.CountResponse("v1/update", wire::kCoapChanged);
  m.CountResponse("v1/update", wire::kCoapTooManyRequests);
  m.CountResponse("../../etc/passwd\"", wire::kCoapNotFound);
  const std::string text = m.Render(JobGauges{});
  EXPECT_TRUE(Has(text,
                  "edgeadmm_coap_responses_total{resource=\"v1/update\","
                  "code=\"2.04\"} 2"))
      << text;
  EXPECT_TRUE(Has(text,
                  "edgeadmm_coap_responses_total{resource=\"v1/update\","
                  "code=\"4.29\"} 1"));
  EXPECT_TRUE(Has(text,
                  "edgeadmm_coap_responses_total{resource=\"other\","
                  "code=\"4.04\"} 1"));
  EXPECT_EQ(text.find("passwd"), std::string::npos);
  // No job: no job gauges.
  EXPECT_EQ(text.find("edgeadmm_job_"), std::string::npos);
}

TEST(GatewayMetricsTest, SessionsAndRounds) {
  GatewayMetrics m;
  using E = GatewayMetrics::SessionEvent;
  m.CountSession(E::kHandshakeStarted);
  m.CountSession(E::kHandshakeStarted);
  m.CountSession(E::kHandshakeDone);
  m.CountSession(E::kSessionFreed);
  EXPECT_EQ(m.live_sessions(), 1);
  m.CountSession(E::kSessionFreed);
  m.CountSession(E::kSessionFreed);  // never below 0
  EXPECT_EQ(m.live_sessions(), 0);
  m.CountRound(true, 0.7);
  m.CountRound(true, 45);
  m.CountRound(false, 3);
  JobGauges job;
  job.has_job = true;
  job.name = "a\"b";
  job.iteration = 2;
  job.rounds = 10;
  job.central_epsilon = 1.25;
  job.delta = 1e-5;
  job.accountant = "pld";
  const std::string text = m.Render(job);
  EXPECT_TRUE(Has(text, "edgeadmm_rounds_total{outcome=\"committed\"} 2"));
  EXPECT_TRUE(Has(text, "edgeadmm_rounds_total{outcome=\"discarded\"} 1"));
  EXPECT_TRUE(
      Has(text, "edgeadmm_round_duration_seconds_bucket{le=\"0.5\"} 0"));
  EXPECT_TRUE(Has(text, "edgeadmm_round_duration_seconds_bucket{le=\"1\"} 1"));
  EXPECT_TRUE(Has(text, "edgeadmm_round_duration_seconds_bucket{le=\"30\"} 1"));
  EXPECT_TRUE(Has(text, "edgeadmm_round_duration_seconds_bucket{le=\"60\"} 2"));
  EXPECT_TRUE(
      Has(text, "edgeadmm_round_duration_seconds_bucket{le=\"+Inf\"} 2"));
  EXPECT_TRUE(Has(text, "edgeadmm_round_duration_seconds_count 2"));
  EXPECT_TRUE(Has(text, "edgeadmm_round_duration_seconds_max 45"));
  EXPECT_TRUE(Has(text, "edgeadmm_round_commit_delay_seconds_count 0"));
  m.CountCommitDelay(0.3);
  m.CountCommitDelay(1.5);
  const std::string delays = m.Render(job);
  EXPECT_TRUE(
      Has(delays, "edgeadmm_round_commit_delay_seconds_bucket{le=\"0.1\"} 0"));
  EXPECT_TRUE(
      Has(delays, "edgeadmm_round_commit_delay_seconds_bucket{le=\"0.5\"} 1"));
  EXPECT_TRUE(
      Has(delays, "edgeadmm_round_commit_delay_seconds_bucket{le=\"2\"} 2"));
  EXPECT_TRUE(Has(delays, "edgeadmm_round_commit_delay_seconds_sum 1.8"));
  EXPECT_TRUE(Has(delays, "edgeadmm_round_commit_delay_seconds_max 1.5"));
  EXPECT_TRUE(Has(text,
                  "edgeadmm_dtls_session_events_total{event="
                  "\"handshake_started\"} 2"));
  EXPECT_TRUE(Has(text, "edgeadmm_devices_connected 0"));
  m.set_devices_connected(7);
  EXPECT_TRUE(Has(m.Render(job), "edgeadmm_devices_connected 7"));
  EXPECT_TRUE(Has(text,
                  "edgeadmm_handshake_admission_total{verdict="
                  "\"over_capacity\"} 0"));
  HandshakeAdmission::Counts admission;
  admission.passed = 9;  // every datagram passed: not a verdict on its own
  admission.passed_hellos = 3;
  admission.over_capacity = 4;
  admission.evicted = 2;
  m.set_admission(admission);
  const std::string with_admission = m.Render(job);
  EXPECT_TRUE(Has(with_admission,
                  "edgeadmm_handshake_admission_total{"
                  "verdict=\"passed_hello\"} 3"));
  EXPECT_TRUE(Has(with_admission,
                  "edgeadmm_handshake_admission_total{"
                  "verdict=\"over_capacity\"} 4"));
  EXPECT_TRUE(Has(with_admission,
                  "edgeadmm_handshake_admission_total{"
                  "verdict=\"evicted\"} 2"));
  EXPECT_TRUE(Has(text, "edgeadmm_job_iteration{job=\"a\\\"b\"} 2")) << text;
  EXPECT_TRUE(Has(text,
                  "edgeadmm_job_central_epsilon{job=\"a\\\"b\","
                  "delta=\"1e-05\",accountant=\"pld\"} "
                  "1.25"))
      << text;
}

TEST(MetricsFileTest, ReplacesTheFileAndReportsAFailure) {
  const std::string path = testing::TempDir() + "/metrics_file_test.prom";
  ASSERT_TRUE(WriteMetricsFile(path, "a 1\n").ok());
  ASSERT_TRUE(WriteMetricsFile(path, "b 2\n").ok());
  FILE* f = std::fopen(path.c_str(), "r");
  ASSERT_NE(f, nullptr);
  char text[16] = {};
  EXPECT_EQ(std::fread(text, 1, sizeof(text) - 1, f), 4u);
  std::fclose(f);
  EXPECT_STREQ(text, "b 2\n");
  const host::Error refused =
      WriteMetricsFile("/nonexistent-dir/edgeadmm.prom", "a 1\n");
  EXPECT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("/nonexistent-dir/edgeadmm.prom.tmp"),
            std::string::npos)
      << refused.message();
}

}  // namespace
}  // namespace edgeadmm::server
