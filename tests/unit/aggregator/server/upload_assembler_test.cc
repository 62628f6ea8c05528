// UploadAssembler without sockets: Block1 bodies bounded before storing.
#include "edgeadmm/server/upload_assembler.h"

#include <gtest/gtest.h>

#include <vector>

namespace edgeadmm::server {
namespace {

using Step = UploadAssembler::Step;

// Fake session handles: only their addresses matter.
const auto* const kA = reinterpret_cast<const coap_session_t*>(0x10);
const auto* const kB = reinterpret_cast<const coap_session_t*>(0x20);

UploadAssembler::Block Block(size_t num, const std::vector<uint8_t>& data,
                             bool more, uint64_t size1 = 0) {
  UploadAssembler::Block b;
  b.offset = num * 16;  // 16-byte blocks (SZX 0)
  b.size = 16;
  b.data = data.data();
  b.length = data.size();
  b.more = more;
  b.size1 = size1;
  return b;
}

TEST(UploadAssemblerTest, AssemblesConsecutiveBlocks) {
  UploadAssembler u;
  std::vector<uint8_t> body;
  const std::vector<uint8_t> a(16, 1), b(16, 2), c(5, 3);
  EXPECT_EQ(u.Add(kA, Block(0, a, true, 37), 100, 0, body), Step::kContinue);
  EXPECT_EQ(u.Add(kA, Block(1, b, true), 100, 1, body), Step::kContinue);
  EXPECT_EQ(u.bytes(), 32u);
  // A repeated block replaces what it covers.
  EXPECT_EQ(u.Add(kA, Block(1, b, true), 100, 2, body), Step::kContinue);
  EXPECT_EQ(u.Add(kA, Block(2, c, false), 100, 3, body), Step::kComplete);
  ASSERT_EQ(body.size(), 37u);
  EXPECT_EQ(body[0], 1);
  EXPECT_EQ(body[16], 2);
  EXPECT_EQ(body[36], 3);
  EXPECT_EQ(u.partials(), 0u);
}

TEST(UploadAssemblerTest, RefusesWhatExceedsTheLimitAtOnce) {
  UploadAssembler u;
  std::vector<uint8_t> body;
  const std::vector<uint8_t> block(16, 7);
  // Declared: 4 GiB on block 0.
  EXPECT_EQ(u.Add(kA, Block(0, block, true, 4294967296ull), 100, 0, body),
            Step::kTooLarge);
  EXPECT_EQ(u.partials(), 0u);
  // Undeclared: the block that ends past 40 bytes (the third).
  EXPECT_EQ(u.Add(kA, Block(0, block, true), 40, 0, body), Step::kContinue);
  EXPECT_EQ(u.Add(kA, Block(1, block, true), 40, 0, body), Step::kContinue);
  EXPECT_EQ(u.Add(kA, Block(2, block, true), 40, 0, body), Step::kTooLarge);
  EXPECT_EQ(u.partials(), 0u);
  // An offset near SIZE_MAX does not wrap.
  UploadAssembler::Block far = Block(0, block, true);
  far.offset = SIZE_MAX - 4;
  EXPECT_NE(u.Add(kA, far, 40, 0, body), Step::kContinue);
}

TEST(UploadAssemblerTest, RefusesGapsAndBlocksWithoutTheirStart) {
  UploadAssembler u;
  std::vector<uint8_t> body;
  const std::vector<uint8_t> block(16, 7);
  EXPECT_EQ(u.Add(kA, Block(1, block, true), 100, 0, body), Step::kIncomplete);
  EXPECT_EQ(u.Add(kA, Block(0, block, true), 100, 0, body), Step::kContinue);
  EXPECT_EQ(u.Add(kA, Block(2, block, true), 100, 0, body), Step::kIncomplete);
  EXPECT_EQ(u.partials(), 0u);
}

TEST(UploadAssemblerTest, ABlockOfAnotherResourceIsOutOfSequence) {
  UploadAssembler u;
  std::vector<uint8_t> body;
  const std::vector<uint8_t> block(16, 4);
  UploadAssembler::Block first = Block(0, block, true);
  first.resource = 2;  // e.g. a SecAgg+ phase's body
  EXPECT_EQ(u.Add(kA, first, 100, 0, body), Step::kContinue);
  // Block 1 of an upload to resource 0 does not continue it.
  EXPECT_EQ(u.Add(kA, Block(1, block, false), 100, 0, body), Step::kIncomplete);
  EXPECT_EQ(u.partials(), 0u);
  // Block 0 of another resource starts over; its next block completes it.
  EXPECT_EQ(u.Add(kA, first, 100, 0, body), Step::kContinue);
  EXPECT_EQ(u.Add(kA, Block(0, block, true), 100, 0, body), Step::kContinue);
  EXPECT_EQ(u.Add(kA, Block(1, block, false), 100, 0, body), Step::kComplete);
  EXPECT_EQ(body.size(), 32u);
}

TEST(UploadAssemblerTest, PartialBodiesAreBoundedInCountAndTime) {
  UploadAssemblerOptions options;
  options.max_partials = 1;
  options.lifetime_ms = 1000;
  UploadAssembler u(options);
  std::vector<uint8_t> body;
  const std::vector<uint8_t> block(16, 7);
  EXPECT_EQ(u.Add(kA, Block(0, block, true), 100, 0, body), Step::kContinue);
  EXPECT_EQ(u.Add(kB, Block(0, block, true), 100, 0, body), Step::kBusy);
  // A new block 0 of the same session starts over (no second partial).
  EXPECT_EQ(u.Add(kA, Block(0, block, true), 100, 500, body), Step::kContinue);
  u.DropStale(1400);  // 900 ms since its last block: kept
  EXPECT_EQ(u.partials(), 1u);
  u.DropStale(1500);
  EXPECT_EQ(u.partials(), 0u);
  EXPECT_EQ(u.Add(kA, Block(1, block, true), 100, 1600, body),
            Step::kIncomplete);
  EXPECT_EQ(u.Add(kB, Block(0, block, true), 100, 1600, body), Step::kContinue);
  u.Forget(kB);
  EXPECT_EQ(u.partials(), 0u);
}

TEST(UploadAssemblerTest, RefusesARepeatedBlock1AndAnOversizeBlock) {
  UploadAssembler u;
  std::vector<uint8_t> body;
  const std::vector<uint8_t> block(16, 7), long_block(17, 7);
  EXPECT_EQ(u.Add(kA, Block(0, block, true), 100, 0, body), Step::kContinue);
  UploadAssembler::Block twice = Block(1, block, true);
  twice.block1s = 2;
  EXPECT_EQ(u.Add(kA, twice, 100, 0, body), Step::kBadOption);
  EXPECT_EQ(u.partials(), 0u);
  EXPECT_EQ(u.Add(kA, Block(0, long_block, true), 100, 0, body),
            Step::kBadBlock);
  UploadAssembler::Block reserved = Block(0, block, true);
  reserved.size = 0;  // SZX 7
  EXPECT_EQ(u.Add(kA, reserved, 100, 0, body), Step::kBadBlock);
  EXPECT_EQ(u.partials(), 0u);
}

}  // namespace
}  // namespace edgeadmm::server
