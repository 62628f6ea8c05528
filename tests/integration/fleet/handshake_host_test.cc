// The fleet's handshake benchmark against Debian's coap-server-openssl: many
// DTLS-PSK sessions from one CoapClientContext, and a wrong key refused.
#include <string>
#include <vector>

#include "coap_server_process.h"
#include "edgeadmm/fleet/handshake_benchmark.h"
#include "gtest/gtest.h"

namespace edgeadmm::fleet {
namespace {

constexpr char kKey[] = "fleet-benchmark-key-16";

HandshakeConfig Config(uint16_t port, const std::string& key, size_t n) {
  HandshakeConfig c;
  c.port = port;
  c.key.assign(key.begin(), key.end());
  c.sessions = n;
  c.concurrency = 16;
  c.timeout_ms = 60000;
  return c;
}

class HandshakeTest : public ::testing::Test {
 protected:
  // Every identity not listed gets kKey: the fleet's identities all do.
  edgeadmm::testing::CoapServerProcess server_{
      {{"not-a-fleet-device", "another-key-123456"}}, kKey};
};

TEST_F(HandshakeTest, EverySessionCompletesItsHandshake) {
  ASSERT_TRUE(server_.running());
  HandshakeConfig c = Config(server_.dtls_port(), kKey, 200);
  c.keep_open = true;
  auto report = MeasureHandshakes(c);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->ok, 200u) << report->first_error;
  EXPECT_EQ(report->failed, 0u);
  EXPECT_GT(report->per_second, 0.0);
  std::printf("handshakes: %.0f per second, %.0f bytes per open session\n",
              report->per_second, report->bytes_per_session);
}

TEST_F(HandshakeTest, WrongKeyIsUnauthenticated) {
  ASSERT_TRUE(server_.running());
  auto report = MeasureHandshakes(
      Config(server_.dtls_port(), "not-the-fleet-key-1234", 3));
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->ok, 0u);
  EXPECT_EQ(report->failed, 3u);
  EXPECT_EQ(report->first_error, "UNAUTHENTICATED");
}

TEST(HandshakeConfigTest, RefusesAnEmptyKey) {
  HandshakeConfig c;
  EXPECT_EQ(MeasureHandshakes(c).status(), Status::InvalidArgument());
}

}  // namespace
}  // namespace edgeadmm::fleet
