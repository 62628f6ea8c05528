// RevocationWatch's count of connected devices: one per DTLS identity with
// an established session that no newer one superseded, whatever number of
// sessions the identity has (the metric edgeadmm_devices_connected, which
// the daemon crash tests read as "every device is back"); and when a
// request's check asks the registry (only after another connection
// committed), on SQLite and PostgreSQL.
#include "edgeadmm/server/revocation_watch.h"

#include <gtest/gtest.h>

#include "backend_test.h"
#include "edgeadmm/registry/device_registry.h"
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

class RevocationWatchBackendTest : public testing::BackendTest {
 protected:
  // `valid` as the server's: counts the registry lookups and answers with
  // the registry's key of the identity.
  RevocationWatch::StillValid Lookup(store::Database& db) {
    return [this, &db](std::string_view id, const std::vector<uint8_t>& key) {
      ++asked_;
      auto psk = registry::DeviceRegistry(db).LookupPsk(id);
      return psk.ok() && *psk == key;
    };
  }
  int asked_ = 0;
};

TEST_P(RevocationWatchBackendTest, AsksTheRegistryOnlyAfterAnotherCommit) {
  testing::TempDatabase t(GetParam());
  auto cli = store::Database::Open(t.path());  // as the admin CLI
  ASSERT_TRUE(cli.ok());
  registry::DeviceRegistry admin(*cli);
  auto key_a = admin.Add("dev-a");
  auto key_b = admin.Add("dev-b");
  ASSERT_TRUE(key_a.ok() && key_b.ok());
  RevocationWatch watch(t.db());
  const RevocationWatch::StillValid valid = Lookup(t.db());
  // dev-a's handshake: the version, then its key.
  watch.OnKeyChosen(FakeSession(0), *key_a, watch.Version());
  watch.OnEstablished(FakeSession(0), "dev-a");
  for (int i = 0; i < 3; ++i)
    EXPECT_FALSE(watch.Refuses(FakeSession(0), valid));
  EXPECT_EQ(asked_, 0);

  // dev-b's handshake read the version, then the CLI re-keyed dev-b before
  // its key was looked up here (the handshake used the key read before
  // the version moved): its first request asks, and is refused.
  const int64_t before_rotation = watch.Version();
  ASSERT_TRUE(admin.RotatePsk("dev-b").ok());
  watch.OnKeyChosen(FakeSession(1), *key_b, before_rotation);
  watch.OnEstablished(FakeSession(1), "dev-b");
  EXPECT_TRUE(watch.Refuses(FakeSession(1), valid));
  EXPECT_TRUE(watch.Refuses(FakeSession(1), valid));  // never vouched for
  EXPECT_EQ(asked_, 2);
  // dev-a: asked once after the commit, then vouched for again.
  EXPECT_FALSE(watch.Refuses(FakeSession(0), valid));
  EXPECT_FALSE(watch.Refuses(FakeSession(0), valid));
  EXPECT_EQ(asked_, 3);

  // The CLI disables dev-a: its next request is refused, every time.
  ASSERT_TRUE(admin.Disable("dev-a").ok());
  EXPECT_TRUE(watch.Refuses(FakeSession(0), valid));
  EXPECT_TRUE(watch.Refuses(FakeSession(0), valid));
  EXPECT_EQ(asked_, 5);

  // The CLI enables it again; the next tick asks once per session and
  // vouches for those it keeps at the version DatabaseChanged read.
  ASSERT_TRUE(admin.Enable("dev-a").ok());
  watch.OnEnded(FakeSession(1));  // (a CutRevoked would disconnect it)
  asked_ = 0;
  ASSERT_TRUE(watch.DatabaseChanged());
  EXPECT_EQ(watch.CutRevoked(valid), 0u);
  EXPECT_EQ(asked_, 1);
  EXPECT_FALSE(watch.Refuses(FakeSession(0), valid));
  EXPECT_EQ(asked_, 1);
}

EDGEADMM_INSTANTIATE_BACKENDS(RevocationWatchBackendTest);

}  // namespace
}  // namespace edgeadmm::server
