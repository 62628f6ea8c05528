// Memory by declaration (issue 14 item 6), performed against the daemon
// process over DTLS with a raw libcoap client that sends hand-made Block1
// requests to v1/update:
//   - Size1 = 4 GiB on the first block: 4.13 with Size1 = the job's largest
//     Update at once, and the daemon's virtual memory does not grow (libcoap
//     alone allocated the declared size: 14 MB -> 4.2 GB);
//   - a 20 MB body without Size1: 4.13 at the first block that ends past
//     the bound, not after reassembling it;
//   - blocks out of sequence: 4.08;
//   - (issue 32 item 9) a request with two Block1 options: 4.02 Bad Option
//     (RFC 7252 section 5.4.5; before, the first was used); a block whose
//     payload is larger than its size 2^(SZX+4): 4.00 (before, 2.31);
// nothing stored in any case.
#include <arpa/inet.h>
#include <coap3/coap.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "daemon_process.h"
#include "raw_coap_session.h"
#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/posix/monotonic_clock.h"
#include "edgeadmm/registry/device_registry.h"
#include "edgeadmm/wire/coap_code.h"
#include "edgeadmm/wire/protocol.h"
#include "test_database.h"

namespace edgeadmm {
namespace {

constexpr uint32_t kSzx1024 = 6;

using Answer = testing::RawAnswer;

// POST v1/update blocks of a device's DTLS session, whose Block1 options
// can say anything.
class RawClient {
 public:
  RawClient(unsigned port, const char* identity,
            const std::vector<uint8_t>& key)
      : session_(port, identity, key) {}
  bool ok() const { return session_.ok(); }

  // POST v1/update, Block1 (num, more, 1024-byte blocks) `block1s` times,
  // Size1 if not 0, `length` bytes of payload.
  Answer Post(uint32_t num, bool more, uint64_t size1, size_t length,
              int block1s = 1) {
    if (block1s > 1) {
      return session_.RequestBytes(RepeatedBlock1(num, more, length, block1s));
    }
    std::vector<testing::RawOption> options = {
        testing::UintOption(COAP_OPTION_CONTENT_FORMAT, wire::kUpdateFormat),
        testing::UintOption(COAP_OPTION_BLOCK1, Block1Value(num, more))};
    if (size1 != 0) {
      options.push_back(testing::UintOption(COAP_OPTION_SIZE1,
                                            static_cast<uint32_t>(size1)));
    }
    return session_.Request(COAP_REQUEST_CODE_POST, wire::kUpdatePath, options,
                            std::vector<uint8_t>(length, 0x5a));
  }

 private:
  static uint32_t Block1Value(uint32_t num, bool more) {
    return (num << 4) | (more ? 8u : 0u) | kSzx1024;
  }

  // The request of Post with Block1 `block1s` times (num < 4096), written
  // byte by byte: libcoap's coap_add_option drops a repeated Block1.
  std::vector<uint8_t> RepeatedBlock1(uint32_t num, bool more, size_t length,
                                      int block1s) {
    const uint16_t mid = session_.NewMessageId();
    std::string m = {0x40, static_cast<char>(COAP_REQUEST_CODE_POST),
                     static_cast<char>(mid >> 8),
                     static_cast<char>(mid & 0xff)};
    // Uri-Path (11) "v1" and "update"; Content-Format (12), 2 bytes.
    m += "\xb2v1\x06update\x12";
    m += static_cast<char>(wire::kUpdateFormat >> 8);
    m += static_cast<char>(wire::kUpdateFormat & 0xff);
    const uint32_t value = Block1Value(num, more);
    for (int i = 0; i < block1s; ++i) {
      // Block1 (27): delta 15 (13 + 2), then 0; a 2-byte value.
      m += i == 0 ? std::string("\xd2\x02", 2) : std::string("\x02", 1);
      m += static_cast<char>(value >> 8);
      m += static_cast<char>(value & 0xff);
    }
    m += '\xff';
    m.append(length, '\x5a');
    return std::vector<uint8_t>(m.begin(), m.end());
  }

  testing::RawCoapSession session_;
};

class DaemonOversizeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    coap_startup();
    registry::DeviceRegistry reg(t_.db());
    auto psk = reg.Add("dev-000");
    ASSERT_TRUE(psk.ok());
    key_ = *psk;
    // p = 1000: the largest Update is a few blocks of 1024 bytes.
    testing::StartOneDeviceJob(t_.db(), "big", 1000);
    daemon_ = std::make_unique<testing::DaemonProcess>(
        EDGEADMM_DAEMON_PATH, testing::DaemonArgs(t_.dir(), t_.path()));
    ASSERT_TRUE(daemon_->started());
    client_ = std::make_unique<RawClient>(daemon_->port(), "dev-000", key_);
    ASSERT_TRUE(client_->ok());
  }

  // Rows of the round store: nothing a refused upload may change.
  int64_t Uploads() {
    auto count = t_.db().Prepare("SELECT COUNT(*) FROM uploads");
    if (!count.ok() || !count->StepRow().ok()) return -1;
    return count->ColumnInt(0);
  }

  testing::TempDatabase t_;
  std::vector<uint8_t> key_;
  std::unique_ptr<testing::DaemonProcess> daemon_;
  std::unique_ptr<RawClient> client_;
  const size_t limit_ = wire::MaxUpdateBytes(1000);
};

TEST_F(DaemonOversizeTest, DeclaredFourGigabytesAreRefusedAtTheFirstBlock) {
  const long before = testing::ProcStatusKb(daemon_->pid(), "VmSize");
  const Answer a = client_->Post(0, true, 4294967295ull, 1024);
  const long after = testing::ProcStatusKb(daemon_->pid(), "VmSize");
  std::printf(
      "Size1 = 4 GiB: answer %d.%02d, Size1 %llu; daemon VmSize %ld "
      "-> %ld kB\n",
      a.code >> 5, a.code & 31, static_cast<unsigned long long>(a.size1),
      before, after);
  EXPECT_EQ(a.code, wire::kCoapRequestEntityTooLarge);
  EXPECT_EQ(a.size1, limit_);
  EXPECT_LT(after - before, 64 * 1024);  // not gigabytes
  EXPECT_EQ(Uploads(), 0);
}

TEST_F(DaemonOversizeTest, LongBodyIsRefusedAtTheBlockPastTheBound) {
  // Blocks of 1024 bytes, Size1 on block 0 claiming the largest allowed
  // body, then more: 2.31 while the body fits the job's bound, 4.13 at the
  // first block that ends past it. (libcoap's reassembly answered 2.31 to
  // every block of a body as long as the client kept sending.)
  const uint32_t fitting = static_cast<uint32_t>(limit_ / 1024);
  for (uint32_t num = 0; num < fitting; ++num) {
    ASSERT_EQ(client_->Post(num, true, num == 0 ? limit_ : 0, 1024).code,
              wire::kCoapContinue)
        << "block " << num;
  }
  const Answer a = client_->Post(fitting, true, 0, 1024);
  EXPECT_EQ(a.code, wire::kCoapRequestEntityTooLarge);
  EXPECT_EQ(a.size1, limit_);
  // The rest of a 20 MB body finds no partial body to add to.
  EXPECT_EQ(client_->Post(fitting + 1, true, 0, 1024).code,
            wire::kCoapRequestEntityIncomplete);
  EXPECT_EQ(Uploads(), 0);
}

TEST_F(DaemonOversizeTest, BlocksOutOfSequenceAreRefused) {
  // A later block without its start, then a gap after block 0.
  EXPECT_EQ(client_->Post(3, true, 0, 1024).code,
            wire::kCoapRequestEntityIncomplete);
  EXPECT_EQ(client_->Post(0, true, 0, 64).code, wire::kCoapContinue);
  EXPECT_EQ(client_->Post(2, false, 0, 64).code,
            wire::kCoapRequestEntityIncomplete);
  EXPECT_EQ(Uploads(), 0);
}

TEST_F(DaemonOversizeTest, ARepeatedBlock1OptionIsABadOption) {
  EXPECT_EQ(client_->Post(0, true, 0, 1024, 2).code, wire::kCoapBadOption);
  EXPECT_EQ(client_->Post(0, false, 0, 64, 3).code, wire::kCoapBadOption);
  // The session goes on: one Block1 is served.
  EXPECT_EQ(client_->Post(0, true, 0, 1024).code, wire::kCoapContinue);
  EXPECT_EQ(Uploads(), 0);
}

TEST_F(DaemonOversizeTest, ABlockLargerThanItsSizeIsRefused) {
  // SZX 6: 1024 bytes per block. One byte more, first or later block.
  EXPECT_EQ(client_->Post(0, true, 0, 1025).code, wire::kCoapBadRequest);
  EXPECT_EQ(client_->Post(0, true, 0, 1024).code, wire::kCoapContinue);
  EXPECT_EQ(client_->Post(1, true, 0, 1100).code, wire::kCoapBadRequest);
  EXPECT_EQ(Uploads(), 0);
}

}  // namespace
}  // namespace edgeadmm
