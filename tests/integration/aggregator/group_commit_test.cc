// Group commit on the real server: a device's upload whose pass could not
// fsync the WAL gets no receipt, and gets one once a later pass's sync
// succeeded (docs/security.md, "Group commit"). The server runs in this
// thread (every SQLite call, and the FaultyVfs shim that fails the sync,
// stay on it); the device, the SDK's own CoAP over DTLS-PSK stack (Mbed
// TLS, no libcoap), runs in another.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "edgeadmm/posix/monotonic_clock.h"
#include "edgeadmm/registry/device_registry.h"
#include "edgeadmm/server/coap_server.h"
#include "edgeadmm/wire/coap_code.h"
#include "edgeadmm/wire/protocol.h"
#include "faulty_vfs.h"
#include "metrics_file.h"
#include "sdk_stack.h"
#include "test_database.h"
#include "wire_bodies.h"

namespace edgeadmm::server {
namespace {

using testing::FaultyVfs;

TEST(GroupCommitServerTest, NoReceiptBeforeTheWalSyncSucceeds) {
  FaultyVfs& vfs = FaultyVfs::Install();
  vfs.Heal();
  testing::TempDatabase t;
  auto psk = registry::DeviceRegistry(t.db()).Add("dev-000");
  ASSERT_TRUE(psk.ok());
  const int64_t job = testing::StartOneDeviceJob(t.db(), "group", 3);

  ServerOptions options;
  options.address = "127.0.0.1";
  options.port = 0;
  options.metrics_file = t.dir() + "/metrics.prom";
  options.metrics_interval_ms = 1;  // every tick
  auto created = CoapServer::Create(t.db(), options);
  ASSERT_TRUE(created.ok());
  std::unique_ptr<CoapServer> server = std::move(created).value();
  const uint64_t give_up = posix::MonotonicMs() + 60'000;
  while (server->engine() == nullptr || server->engine()->round_id() == 0) {
    ASSERT_TRUE(server->RunOnce(10).ok());
    ASSERT_LT(posix::MonotonicMs(), give_up);
  }
  const std::vector<uint8_t> body = testing::EncodeUpdateBody(
      "dev-000", static_cast<uint64_t>(job),
      static_cast<uint64_t>(server->engine()->round_id()), {0.5, -0.5, 0.25});

  // The device's steps, each waiting for the server's go.
  std::atomic<int> device_step{0};  // steps the device has finished
  std::atomic<int> server_go{0};    // steps the server allows
  TransportResult status, first, second;
  std::thread device([&] {
    // Retransmissions only after 10 s: the first upload is sent once.
    SdkStack stack(server->port(), "dev-000", *psk, 10'000);
    status = stack.Get("v1/status");  // the handshake
    device_step = 1;
    while (server_go < 1) std::this_thread::yield();
    first = stack.Upload(body, 1500);
    device_step = 2;
    while (server_go < 2) std::this_thread::yield();
    second = stack.Upload(body, 20'000);
    device_step = 3;
  });
  const auto serve_until = [&](int step) {
    while (device_step < step && posix::MonotonicMs() < give_up) {
      ASSERT_TRUE(server->RunOnce(10).ok());
    }
  };
  serve_until(1);
  // Every fsync fails from now on: the pass that stores the upload cannot
  // make it durable.
  vfs.FailFrom(0, FaultyVfs::Fault::kSync);
  server_go = 1;
  serve_until(2);
  const int64_t stored =
      testing::QueryInt(t.db(), "SELECT count(*) FROM uploads");
  const int64_t failed_syncs = vfs.failures();
  vfs.Heal();
  ASSERT_TRUE(server->RunOnce(10).ok());  // submits the metrics
  ASSERT_TRUE(server->WaitMetricsWritten(10'000));
  const int64_t dropped = testing::MetricsFileValue(
      options.metrics_file, "edgeadmm_held_datagrams_dropped_total");
  server_go = 2;
  serve_until(3);
  device.join();

  ASSERT_TRUE(status.status.ok()) << status.status.str();
  // The upload was stored (committed, not synced), its sync failed, and the
  // receipt the server wrote was dropped: the device heard nothing.
  EXPECT_EQ(stored, 1);
  EXPECT_GE(failed_syncs, 1);
  EXPECT_GE(dropped, 1);
  EXPECT_EQ(first.status, Status::DeadlineExceeded());
  // Once the WAL syncs again the device's resend gets its receipt (a
  // duplicate of the stored upload), and the sync is counted.
  ASSERT_TRUE(second.status.ok()) << second.status.str();
  EXPECT_EQ(second.code, wire::kCoapChanged);
  EXPECT_EQ(testing::QueryInt(t.db(), "SELECT count(*) FROM uploads"), 1);
  ASSERT_TRUE(server->WaitMetricsWritten(10'000));
  EXPECT_GE(testing::MetricsFileValue(options.metrics_file,
                                      "edgeadmm_store_group_syncs_total"),
            1);
}

}  // namespace
}  // namespace edgeadmm::server
