// RevocationWatch's count of connected devices: one per DTLS identity with
// an established session that no newer one superseded, whatever number of
// sessions the identity has (the metric edgeadmm_devices_connected, which
// the daemon crash tests read as "every device is back").
#include "edgeadmm/server/revocation_watch.h"

#include <gtest/gtest.h>

#include "test_database.h"

namespace edgeadmm::server {
namespace {

// Stand-ins for libcoap's sessions: the watch only keys on their address
// for these calls.
coap_session_t* FakeSession(int i) {
  static char storage[8];
  return reinterpret_cast<coap_session_t*>(&storage[i]);
}

TEST(RevocationWatchTest, CountsDevicesNotSessions) {
  testing::TempDatabase t(testing::Backend::kSqlite);
  RevocationWatch watch(t.db());
  EXPECT_EQ(watch.devices(), 0u);
  // A handshake in progress is not a connected device.
  watch.OnKeyChosen(FakeSession(0), {1, 2, 3});
  EXPECT_EQ(watch.devices(), 0u);
  watch.OnEstablished(FakeSession(0), "dev-a");
  watch.OnEstablished(FakeSession(1), "dev-b");
  EXPECT_EQ(watch.devices(), 2u);
  // dev-a reconnects from a new port: a second session, one device.
  watch.OnEstablished(FakeSession(2), "dev-a");
  EXPECT_EQ(watch.devices(), 2u);
  EXPECT_TRUE(watch.Superseded(FakeSession(0)));
  // The superseded session ends: still connected through the new one.
  watch.OnEnded(FakeSession(0));
  EXPECT_EQ(watch.devices(), 2u);
  // dev-b's only session ends: gone.
  watch.OnEnded(FakeSession(1));
  EXPECT_EQ(watch.devices(), 1u);
  // dev-a's newest ends while an older one would still be superseded.
  watch.OnEstablished(FakeSession(3), "dev-a");
  watch.OnEnded(FakeSession(3));
  EXPECT_EQ(watch.devices(), 0u);
}

TEST(RevocationWatchTest, TheSessionStartedLastIsTheDevicesSession) {
  // Under load a device gave up on a handshake (its own timeout), opened a
  // new session and uploaded on it; the daemon then completed the abandoned
  // handshake. Counting that one as the newer session answered the live
  // session's uploads 4.03 and the device dropped them (two jobs of 10,000
  // devices: beta's round 1 stuck at 9,996 of 10,000).
  testing::TempDatabase t(testing::Backend::kSqlite);
  RevocationWatch watch(t.db());
  watch.OnHandshakeStarted(FakeSession(0));  // abandoned by the device
  watch.OnHandshakeStarted(FakeSession(1));
  watch.OnEstablished(FakeSession(1), "dev-a");
  watch.OnEstablished(FakeSession(0), "dev-a");
  EXPECT_FALSE(watch.Superseded(FakeSession(1)));
  EXPECT_TRUE(watch.Superseded(FakeSession(0)));
  EXPECT_EQ(watch.devices(), 1u);
  watch.OnEnded(FakeSession(0));  // CutSuperseded closes it
  // A session started later still supersedes the live one.
  watch.OnHandshakeStarted(FakeSession(2));
  watch.OnEstablished(FakeSession(2), "dev-a");
  EXPECT_TRUE(watch.Superseded(FakeSession(1)));
  EXPECT_FALSE(watch.Superseded(FakeSession(2)));
  EXPECT_EQ(watch.devices(), 1u);
}

}  // namespace
}  // namespace edgeadmm::server
