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

}  // namespace
}  // namespace edgeadmm::server
