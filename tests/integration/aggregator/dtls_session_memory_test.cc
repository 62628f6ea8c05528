// What OpenSSL holds for each established DTLS session of the real server
// (issue 36: memory per live session). Every OpenSSL allocation of this
// process is counted (CRYPTO_set_mem_functions, before OpenSSL's first
// one); the devices run the SDK's own stack (Mbed TLS), so every OpenSSL
// byte is the server's. OpenSSL 3.0 keeps two blocks of at least a full
// 16 KiB record per DTLS session whatever the server does: the read buffer
// (a peer may send a full record) and the handshake buffer (kept for the
// peer's retransmissions). The write buffer is sized to the largest record
// the server writes, one CoAP message (openssl_dtls_context.h): it is not
// a third such block.
#include <gtest/gtest.h>
#include <openssl/crypto.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "edgeadmm/posix/monotonic_clock.h"
#include "edgeadmm/registry/device_registry.h"
#include "edgeadmm/server/coap_server.h"
#include "sdk_stack.h"
#include "test_database.h"

namespace edgeadmm::server {
namespace {

// OpenSSL's live bytes, and its live blocks of a full record or more: each
// block carries its size in a 16-byte prefix (keeping malloc's alignment).
std::atomic<int64_t> open_ssl_live_bytes{0};
std::atomic<int64_t> open_ssl_full_record_blocks{0};
constexpr size_t kPrefix = 16;
constexpr size_t kFullRecord = 16 * 1024;  // RFC 6347's 2^14 plaintext

void Count(size_t size, int sign) {
  open_ssl_live_bytes += sign * static_cast<int64_t>(size);
  if (size >= kFullRecord) open_ssl_full_record_blocks += sign;
}

void* CountedMalloc(size_t size, const char*, int) {
  auto* block = static_cast<unsigned char*>(std::malloc(size + kPrefix));
  if (block == nullptr) return nullptr;
  std::memcpy(block, &size, sizeof(size));
  Count(size, +1);
  return block + kPrefix;
}

size_t SizeOf(void* pointer) {
  size_t size = 0;
  std::memcpy(&size, static_cast<unsigned char*>(pointer) - kPrefix,
              sizeof(size));
  return size;
}

void CountedFree(void* pointer, const char*, int) {
  if (pointer == nullptr) return;
  Count(SizeOf(pointer), -1);
  std::free(static_cast<unsigned char*>(pointer) - kPrefix);
}

void* CountedRealloc(void* pointer, size_t size, const char* file, int line) {
  if (pointer == nullptr) return CountedMalloc(size, file, line);
  if (size == 0) {
    CountedFree(pointer, file, line);
    return nullptr;
  }
  const size_t old = SizeOf(pointer);
  auto* block = static_cast<unsigned char*>(std::realloc(
      static_cast<unsigned char*>(pointer) - kPrefix, size + kPrefix));
  if (block == nullptr) return nullptr;
  std::memcpy(block, &size, sizeof(size));
  Count(old, -1);
  Count(size, +1);
  return block + kPrefix;
}

// Before main: OpenSSL refuses new functions after its first allocation.
const bool counting = CRYPTO_set_mem_functions(&CountedMalloc, &CountedRealloc,
                                               &CountedFree) == 1;

constexpr int kDevices = 9;  // the first one's bytes include one-time setup

TEST(DtlsSessionMemoryTest, NoFullRecordWriteBufferPerSession) {
  ASSERT_TRUE(counting) << "OpenSSL allocated before the test's counter";
  testing::TempDatabase t;
  std::vector<std::string> ids;
  std::vector<std::vector<uint8_t>> keys;
  registry::DeviceRegistry registry(t.db());
  for (int i = 0; i < kDevices; ++i) {
    ids.push_back("dev-" + std::to_string(100 + i));
    auto psk = registry.Add(ids.back());
    ASSERT_TRUE(psk.ok());
    keys.push_back(std::move(psk).value());
  }
  testing::StartOneDeviceJob(t.db(), "memory", 3);

  ServerOptions options;
  options.address = "127.0.0.1";
  options.port = 0;
  auto created = CoapServer::Create(t.db(), options);
  ASSERT_TRUE(created.ok());
  std::unique_ptr<CoapServer> server = std::move(created).value();

  // The device thread connects one device at a time and keeps every
  // session; the server measures between devices, when nothing is in
  // flight.
  std::atomic<int> connected{0};  // devices whose GET was answered
  std::atomic<int> allowed{0};    // devices the server lets connect
  std::atomic<bool> failed{false};
  std::atomic<bool> stop{false};  // the server gave up: no more devices
  std::thread devices([&] {
    std::vector<std::unique_ptr<SdkStack>> stacks;
    for (int i = 0; i < kDevices; ++i) {
      while (allowed <= i && !stop) std::this_thread::yield();
      if (stop) return;
      stacks.push_back(
          std::make_unique<SdkStack>(server->port(), ids[i].c_str(), keys[i]));
      if (!stacks.back()->Get("v1/status").status.ok()) failed = true;
      connected = i + 1;
    }
    while (allowed <= kDevices && !stop) std::this_thread::yield();
  });
  // A failure below stops the device thread and is asserted after the
  // join, so that it reports instead of ending the binary.
  const uint64_t give_up = posix::MonotonicMs() + 60'000;
  bool server_ran = true;
  std::vector<int64_t> live;    // OpenSSL's bytes after each device
  std::vector<int64_t> blocks;  // and its blocks of a full record or more
  for (int i = 0; i < kDevices && server_ran; ++i) {
    allowed = i + 1;
    while (server_ran && connected <= i && posix::MonotonicMs() < give_up) {
      server_ran = server->RunOnce(10).ok();
    }
    // The handshake's last flight is in; a few more passes settle it.
    for (int pass = 0; pass < 5 && server_ran; ++pass) {
      server_ran = server->RunOnce(1).ok();
    }
    live.push_back(open_ssl_live_bytes.load());
    blocks.push_back(open_ssl_full_record_blocks.load());
  }
  if (server_ran) {
    allowed = kDevices + 1;
  } else {
    stop = true;
  }
  devices.join();
  ASSERT_TRUE(server_ran) << "the server's RunOnce failed";
  ASSERT_FALSE(failed) << "a device's GET v1/status failed";
  ASSERT_EQ(connected, kDevices);

  const auto sessions = static_cast<int64_t>(kDevices - 1);
  const int64_t per_session = (live.back() - live.front()) / sessions;
  std::printf(
      "OpenSSL per established session: %lld bytes, %.2f blocks of "
      "a full record or more\n",
      static_cast<long long>(per_session),
      static_cast<double>(blocks.back() - blocks.front()) /
          static_cast<double>(sessions));
  // Each later device added exactly its read and handshake buffers (with a
  // write buffer sized to a 16 KiB record, three).
  for (int i = 1; i < kDevices; ++i) {
    EXPECT_EQ(blocks[i] - blocks[i - 1], 2) << "device " << i;
  }
}

}  // namespace
}  // namespace edgeadmm::server
