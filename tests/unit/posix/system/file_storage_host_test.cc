// FileStorage: the Storage contract on a directory, atomic replace under a
// concurrent reader and a killed writer, leftover temp files ignored.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "edgeadmm/posix/file_storage.h"
#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

class FileStorageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "edgeadmm_storage_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    ASSERT_TRUE(storage_.Open(dir_.c_str()).ok());
  }
  void TearDown() override {
    std::string command = "rm -rf '" + dir_ + "'";
    EXPECT_EQ(std::system(command.c_str()), 0);
  }
  std::string Path(const char* name) const { return dir_ + "/" + name; }
  static ConstByteSpan Bytes(const std::vector<std::byte>& v) {
    return ConstByteSpan(v.data(), v.size());
  }
  // A blob of `size` bytes all equal to `value`.
  static std::vector<std::byte> Uniform(size_t size, uint8_t value) {
    return std::vector<std::byte>(size, std::byte{value});
  }
  // True if `data` is one of the blobs Uniform(kSizeA, 0xAA) or
  // Uniform(kSizeB, 0xBB).
  static bool IsWholeBlob(const std::byte* data, size_t size) {
    if (size != kSizeA && size != kSizeB) return false;
    const std::byte expected{size == kSizeA ? uint8_t{0xAA} : uint8_t{0xBB}};
    for (size_t i = 0; i < size; ++i) {
      if (data[i] != expected) return false;
    }
    return true;
  }
  static constexpr size_t kSizeA = 64 * 1024;
  static constexpr size_t kSizeB = 100 * 1024;

  std::string dir_;
  FileStorage storage_;
};

TEST_F(FileStorageTest, WriteReadReplace) {
  std::vector<std::byte> out(16);
  const auto a = Uniform(10, 1), b = Uniform(3, 2);
  ASSERT_TRUE(storage_.Write("state", Bytes(a)).ok());
  StatusWithSize r = storage_.Read("state", ByteSpan(out.data(), out.size()));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.size(), 10u);
  EXPECT_EQ(out[9], std::byte{1});
  ASSERT_TRUE(storage_.Write("state", Bytes(b)).ok());
  r = storage_.Read("state", ByteSpan(out.data(), out.size()));
  EXPECT_EQ(r.size(), 3u);
  EXPECT_EQ(out[0], std::byte{2});
  // Empty blob.
  ASSERT_TRUE(storage_.Write("empty", ConstByteSpan()).ok());
  EXPECT_EQ(storage_.Read("empty", ByteSpan(out.data(), 0)).size(), 0u);
  // Owner-only permissions, no temp file left.
  struct stat info;
  ASSERT_EQ(stat(Path("state").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  EXPECT_NE(access(Path("state.tmp").c_str(), F_OK), 0);
}

TEST_F(FileStorageTest, Errors) {
  std::vector<std::byte> out(4);
  EXPECT_EQ(storage_.Read("missing", ByteSpan(out.data(), 4)).status(),
            Status::NotFound());
  ASSERT_TRUE(storage_.Write("k", Bytes(Uniform(9, 7))).ok());
  const StatusWithSize small = storage_.Read("k", ByteSpan(out.data(), 4));
  EXPECT_EQ(small.status(), Status::ResourceExhausted());
  EXPECT_EQ(small.size(), 9u);
  for (const char* bad : {"", ".k", "a/b", "../k", "k.tmp", "sp ace"}) {
    EXPECT_EQ(storage_.Write(bad, Bytes(out)), Status::InvalidArgument())
        << bad;
    EXPECT_EQ(storage_.Read(bad, ByteSpan(out.data(), 4)).status(),
              Status::InvalidArgument())
        << bad;
  }
  FileStorage closed;
  EXPECT_EQ(closed.Write("k", Bytes(out)), Status::FailedPrecondition());
  EXPECT_EQ(closed.Read("k", ByteSpan(out.data(), 4)).status(),
            Status::FailedPrecondition());
  EXPECT_EQ(closed.Open(Path("nope").c_str()), Status::NotFound());
  EXPECT_EQ(closed.Open(Path("k").c_str()), Status::InvalidArgument());
}

TEST_F(FileStorageTest, LeftoverTempFileIsIgnored) {
  ASSERT_TRUE(storage_.Write("state", Bytes(Uniform(kSizeA, 0xAA))).ok());
  // A crash between writing the temp file and the rename leaves this behind.
  const int fd = open(Path("state.tmp").c_str(), O_WRONLY | O_CREAT, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, "torn", 4), 4);
  close(fd);
  std::vector<std::byte> out(kSizeB);
  StatusWithSize r = storage_.Read("state", ByteSpan(out.data(), out.size()));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(IsWholeBlob(out.data(), r.size()));
  EXPECT_EQ(r.size(), kSizeA);
  ASSERT_TRUE(storage_.Write("state", Bytes(Uniform(kSizeB, 0xBB))).ok());
  r = storage_.Read("state", ByteSpan(out.data(), out.size()));
  EXPECT_EQ(r.size(), kSizeB);
  EXPECT_TRUE(IsWholeBlob(out.data(), r.size()));
  EXPECT_NE(access(Path("state.tmp").c_str(), F_OK), 0);
}

TEST_F(FileStorageTest, ConcurrentReaderNeverSeesAPartialFile) {
  ASSERT_TRUE(storage_.Write("state", Bytes(Uniform(kSizeA, 0xAA))).ok());
  std::atomic<bool> done{false};
  std::thread writer([&] {
    FileStorage w;
    EXPECT_TRUE(w.Open(dir_.c_str()).ok());
    const auto a = Uniform(kSizeA, 0xAA), b = Uniform(kSizeB, 0xBB);
    for (int i = 0; i < 150; ++i) {
      EXPECT_TRUE(w.Write("state", Bytes(i % 2 == 0 ? b : a)).ok());
    }
    done = true;
  });
  std::vector<std::byte> out(kSizeB);
  int reads = 0, torn = 0, sizes_b = 0;
  while (!done) {
    const StatusWithSize r =
        storage_.Read("state", ByteSpan(out.data(), out.size()));
    ASSERT_TRUE(r.ok()) << r.status().str();
    ++reads;
    torn += !IsWholeBlob(out.data(), r.size());
    sizes_b += r.size() == kSizeB;
  }
  writer.join();
  EXPECT_EQ(torn, 0);
  EXPECT_GT(reads, 10);
  // Must come from a real interleaving: the reader saw both versions.
  EXPECT_GT(sizes_b, 0);
  EXPECT_LT(sizes_b, reads);
}

TEST_F(FileStorageTest, KilledWriterLeavesACompleteBlob) {
  ASSERT_TRUE(storage_.Write("state", Bytes(Uniform(kSizeA, 0xAA))).ok());
  for (int attempt = 0; attempt < 5; ++attempt) {
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      FileStorage w;
      if (!w.Open(dir_.c_str()).ok()) _exit(2);
      const auto a = Uniform(kSizeA, 0xAA), b = Uniform(kSizeB, 0xBB);
      for (int i = 0;; ++i) {
        if (!w.Write("state", Bytes(i % 2 == 0 ? b : a)).ok()) _exit(3);
      }
    }
    usleep(static_cast<useconds_t>(20000 + 7000 * attempt));
    ASSERT_EQ(kill(child, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFSIGNALED(status)) << "writer exited early: " << status;
    std::vector<std::byte> out(kSizeB);
    const StatusWithSize r =
        storage_.Read("state", ByteSpan(out.data(), out.size()));
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(IsWholeBlob(out.data(), r.size())) << attempt;
  }
}

}  // namespace
}  // namespace edgeadmm
