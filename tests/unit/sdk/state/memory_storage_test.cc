// MemoryStorage (testing): the Storage contract on caller memory.
// Portable.
#include "edgeadmm/fake/memory_storage.h"

#include <cstring>

#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

ConstByteSpan Text(const char* s) {
  return ConstByteSpan(reinterpret_cast<const std::byte*>(s), std::strlen(s));
}

class MemoryStorageTest : public ::testing::Test {
 protected:
  std::byte memory_[4 * 32];
  MemoryStorage storage_{ByteSpan(memory_, sizeof(memory_))};
  char out_[64] = {};
  ByteSpan Out(size_t n = sizeof(out_)) {
    return ByteSpan(reinterpret_cast<std::byte*>(out_), n);
  }
};

TEST_F(MemoryStorageTest, WriteThenReadAndReplace) {
  EXPECT_EQ(storage_.slot_capacity(), 32u);
  ASSERT_TRUE(storage_.Write("state", Text("hello")).ok());
  StatusWithSize r = storage_.Read("state", Out());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.size(), 5u);
  EXPECT_EQ(std::memcmp(out_, "hello", 5), 0);
  ASSERT_TRUE(storage_.Write("state", Text("hi")).ok());
  r = storage_.Read("state", Out());
  EXPECT_EQ(r.size(), 2u);
  EXPECT_EQ(std::memcmp(out_, "hi", 2), 0);
  EXPECT_EQ(storage_.write_count(), 2u);
}

TEST_F(MemoryStorageTest, ReadErrors) {
  EXPECT_EQ(storage_.Read("missing", Out()).status(), Status::NotFound());
  ASSERT_TRUE(storage_.Write("k", Text("0123456789")).ok());
  const StatusWithSize small = storage_.Read("k", Out(4));
  EXPECT_EQ(small.status(), Status::ResourceExhausted());
  EXPECT_EQ(small.size(), 10u);
  EXPECT_EQ(storage_.Read("../k", Out()).status(), Status::InvalidArgument());
}

TEST_F(MemoryStorageTest, WriteErrorsKeepTheOldBlob) {
  ASSERT_TRUE(storage_.Write("k", Text("old")).ok());
  char big[33] = {};
  EXPECT_EQ(
      storage_.Write("k", ConstByteSpan(reinterpret_cast<std::byte*>(big), 33)),
      Status::ResourceExhausted());
  storage_.FailWrites(1, Status::Unavailable());
  EXPECT_EQ(storage_.Write("k", Text("new")), Status::Unavailable());
  EXPECT_EQ(storage_.Read("k", Out()).size(), 3u);
  EXPECT_EQ(std::memcmp(out_, "old", 3), 0);
  EXPECT_TRUE(storage_.Write("k", Text("new")).ok());  // failures used up
}

TEST_F(MemoryStorageTest, KeysAreValidatedAndBounded) {
  EXPECT_EQ(storage_.Write("", Text("x")), Status::InvalidArgument());
  EXPECT_EQ(storage_.Write(".hidden", Text("x")), Status::InvalidArgument());
  EXPECT_EQ(storage_.Write("a/b", Text("x")), Status::InvalidArgument());
  EXPECT_EQ(storage_.Write(nullptr, Text("x")), Status::InvalidArgument());
  char long_key[Storage::kMaxKeyLength + 2];
  std::memset(long_key, 'k', sizeof(long_key) - 1);
  long_key[sizeof(long_key) - 1] = '\0';
  EXPECT_EQ(storage_.Write(long_key, Text("x")), Status::InvalidArgument());
  long_key[Storage::kMaxKeyLength] = '\0';
  EXPECT_TRUE(storage_.Write(long_key, Text("x")).ok());
  EXPECT_TRUE(storage_.Write("b", Text("x")).ok());
  EXPECT_TRUE(storage_.Write("c", Text("x")).ok());
  EXPECT_TRUE(storage_.Write("d-1.bin", Text("x")).ok());
  EXPECT_EQ(storage_.Write("e", Text("x")), Status::ResourceExhausted());
  EXPECT_TRUE(storage_.Erase("b").ok());
  EXPECT_EQ(storage_.Erase("b"), Status::NotFound());
  EXPECT_TRUE(storage_.Write("e", Text("x")).ok());
}

}  // namespace
}  // namespace edgeadmm
