// Write batches on the real server: when the disk fills up as an I/O pass's
// write batch commits, the pass's upload is lost, so its receipt must not
// leave and the server that counted it must not go on; ServeUntilStopped
// starts a new server from the store, without batches, whose answer to a
// failing write is a 5.03 per request; once the disk has room the device's
// upload is stored once (docs/security.md, "Write batches"); the restart
// in place itself waits for the disk (it must write to load the job). The
// server runs in this thread; the device, the SDK's own CoAP over DTLS-PSK
// stack, in another, which also fills and frees the "disk" (the FaultyVfs
// shim).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <string>
#include <thread>
#include <vector>

#include "edgeadmm/posix/monotonic_clock.h"
#include "edgeadmm/registry/device_registry.h"
#include "edgeadmm/server/serve_until_stopped.h"
#include "edgeadmm/store/database.h"
#include "edgeadmm/wire/coap_code.h"
#include "edgeadmm/wire/protocol.h"
#include "faulty_vfs.h"
#include "sdk_stack.h"
#include "test_database.h"
#include "wire_bodies.h"

namespace edgeadmm::server {
namespace {

using testing::FaultyVfs;

volatile std::sig_atomic_t g_stop = 0;

TEST(WriteBatchServerTest, ALostBatchSendsNoReceiptAndRestartsFromTheStore) {
  FaultyVfs& vfs = FaultyVfs::Install();
  vfs.Heal();
  testing::TempDatabase t;
  auto psk = registry::DeviceRegistry(t.db()).Add("dev-000");
  ASSERT_TRUE(psk.ok());
  const int64_t job = testing::StartOneDeviceJob(t.db(), "batch", 3);

  ServerOptions options;
  options.address = "127.0.0.1";
  options.port = 0;
  ASSERT_TRUE(options.group_commit && options.write_batch);  // the defaults

  std::atomic<int> servers{0};
  std::atomic<unsigned> ports[2] = {0, 0};
  const uint64_t give_up = posix::MonotonicMs() + 60'000;
  TransportResult lost, refused, stored;
  int64_t stored_round = 0;
  std::thread device([&] {
    // However the device's steps end (a failed ASSERT returns early), the
    // server stops.
    struct StopOnExit {
      ~StopOnExit() { g_stop = 1; }
    } stop_on_exit;
    auto reader = store::Database::Open(t.path());
    ASSERT_TRUE(reader.ok());
    // The job's open round, as the store has it (0: none yet).
    const auto open_round = [&] {
      int64_t round = 0;
      while (round == 0 && posix::MonotonicMs() < give_up) {
        round = testing::QueryInt(
            *reader,
            "SELECT coalesce(max(round_id), 0) FROM rounds WHERE "
            "job_id = " +
                std::to_string(job) + " AND state = 'open'");
        if (round == 0) std::this_thread::yield();
      }
      return round;
    };
    const auto upload_to = [&](SdkStack& stack, int64_t round,
                               uint32_t timeout_ms, TransportResult& result) {
      result =
          stack.Upload(testing::EncodeUpdateBody(
                           "dev-000", static_cast<uint64_t>(job),
                           static_cast<uint64_t>(round), {0.5, -0.5, 0.25}),
                       timeout_ms);
    };
    while (servers < 1 && posix::MonotonicMs() < give_up) {
      std::this_thread::yield();
    }
    {
      // Retransmissions only after 10 s: the upload is sent once.
      SdkStack first(ports[0], "dev-000", *psk, 10'000);
      ASSERT_TRUE(first.Get("v1/status").status.ok());  // the handshake
      const int64_t round = open_round();
      // The disk is full from now on: the pass that accepts the upload
      // cannot commit its batch.
      vfs.FailFrom(0, FaultyVfs::Fault::kFull);
      upload_to(first, round, 1500, lost);
    }
    // The restart in place must load the job, which writes (the round the
    // lost server left open is marked lost): refused while the disk is full
    // (each refused write counts one failure, the batch's commit the
    // first), it is tried again until the disk has room.
    while (vfs.failures() < 2 && posix::MonotonicMs() < give_up) {
      std::this_thread::yield();
    }
    vfs.Heal();
    while (servers < 2 && posix::MonotonicMs() < give_up) {
      std::this_thread::yield();
    }
    SdkStack second(ports[1], "dev-000", *psk, 500);
    ASSERT_TRUE(second.Get("v1/status").status.ok());
    // Full again: the new server, without batches, refuses the upload alone.
    const int64_t round = open_round();
    vfs.FailFrom(0, FaultyVfs::Fault::kFull);
    upload_to(second, round, 20'000, refused);
    vfs.Heal();
    // Room again: the device sends until it holds a receipt (the engine
    // may first retry its own writes: 5.03 with Max-Age meanwhile).
    for (;;) {
      stored_round = open_round();
      upload_to(second, stored_round, 20'000, stored);
      if (!stored.status.ok() || stored.code == wire::kCoapChanged ||
          posix::MonotonicMs() >= give_up) {
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  });
  const Status served =
      ServeUntilStopped(t.db(), options, &g_stop, [&](uint16_t port) {
        const int k = servers;
        if (k < 2) ports[k] = port;
        servers = k + 1;
      });
  device.join();

  EXPECT_TRUE(served.ok()) << served.str();
  EXPECT_EQ(servers, 2);  // one restart in place, after the lost batch
  // The lost batch's receipt never left (the device timed out, or heard
  // its socket close with the first server).
  EXPECT_FALSE(lost.status.ok()) << "code " << int{lost.code};
  // Without batches a failed write is answered at once.
  ASSERT_TRUE(refused.status.ok()) << refused.status.str();
  EXPECT_EQ(refused.code, wire::kCoapServiceUnavailable);
  // Then stored once, with its receipt.
  ASSERT_TRUE(stored.status.ok()) << stored.status.str();
  EXPECT_EQ(stored.code, wire::kCoapChanged);
  EXPECT_EQ(testing::QueryInt(t.db(), "SELECT count(*) FROM uploads"), 1);
  EXPECT_EQ(testing::QueryInt(t.db(),
                              "SELECT round_id FROM uploads WHERE device_id = "
                              "'dev-000'"),
            stored_round);
}

}  // namespace
}  // namespace edgeadmm::server
