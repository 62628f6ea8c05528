// The selected board's services
// (platform/boards/interface/include/edgeadmm/board/board.h).
#include "edgeadmm/board/board.h"

#include <cstddef>
#include <cstring>

#include "gtest/gtest.h"

namespace edgeadmm::board {
namespace {

TEST(BoardTest, EntropyIsTheSameObjectAndKeepsStreaming) {
  EXPECT_EQ(&Entropy(), &Entropy());
  std::byte a[16] = {};
  std::byte b[16] = {};
  ASSERT_TRUE(Entropy().Read(ByteSpan(a, sizeof(a))).ok());
  ASSERT_TRUE(Entropy().Read(ByteSpan(b, sizeof(b))).ok());
  EXPECT_NE(std::memcmp(a, b, sizeof(a)), 0);
  int nonzero = 0;
  for (std::byte x : a) nonzero += x != std::byte{0};
  EXPECT_GT(nonzero, 8);
}

TEST(BoardTest, StorageKeepsTheLastBlob) {
  Storage& storage = PersistentStorage();
  EXPECT_EQ(&storage, &PersistentStorage());
  std::byte none[4];
  // No flash before OpenStorage.
  EXPECT_EQ(storage.Read("state", ByteSpan(none, sizeof(none))).status(),
            Status::Unavailable());
  EXPECT_EQ(storage.Write("state", ConstByteSpan(none, sizeof(none))),
            Status::Unavailable());
  // On the QEMU boards, the flash model's file in ctest's working directory
  // (the build tree): a later run finds the blobs of this one, which the
  // writes replace.
  ASSERT_TRUE(OpenStorage().ok());
  ASSERT_TRUE(OpenStorage().ok());  // again: harmless
  const char first[] = "state-v1";
  const char second[] = "state-v2!";
  ASSERT_TRUE(storage
                  .Write("state", ConstByteSpan(
                                      reinterpret_cast<const std::byte*>(first),
                                      sizeof(first)))
                  .ok());
  ASSERT_TRUE(
      storage
          .Write("state",
                 ConstByteSpan(reinterpret_cast<const std::byte*>(second),
                               sizeof(second)))
          .ok());
  char out[32] = {};
  const StatusWithSize read = storage.Read(
      "state", ByteSpan(reinterpret_cast<std::byte*>(out), sizeof(out)));
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read.size(), sizeof(second));
  EXPECT_STREQ(out, second);
}

}  // namespace
}  // namespace edgeadmm::board
