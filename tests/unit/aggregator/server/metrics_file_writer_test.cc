// MetricsFileWriter: the metrics file is written off the caller's thread, so
// a file system that blocks (here a FIFO at `<path>.tmp` that nobody reads,
// as a hung mount would) never blocks the daemon's loop.
#include "edgeadmm/server/metrics_file_writer.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>

#include "test_database.h"

namespace edgeadmm::server {
namespace {

// The file's text; empty while `path` is not a regular file (the FIFO,
// renamed over it by the first write: opening it would block).
std::string ReadFile(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Reads what the writer puts into the FIFO until it closes it.
std::string DrainFifo(const std::string& fifo) {
  const int fd = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  EXPECT_GE(fd, 0);
  std::string text;
  char buffer[256];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 5000) <= 0) break;
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n > 0) {
      text.append(buffer, static_cast<size_t>(n));
    } else if (n == 0 && (p.revents & POLLHUP) != 0) {
      break;  // the writer closed it
    }
  }
  close(fd);
  return text;
}

int64_t MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now() - start)
      .count();
}

TEST(MetricsFileWriterTest, ABlockedWriteBlocksNeitherSubmitNorShutdown) {
  const std::string path = testing::MakeTempDir() + "/blocked.prom";
  const std::string fifo = path + ".tmp";
  unlink(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  {
    MetricsFileWriter writer(path, /*shutdown_wait_ms=*/100);
    const auto start = std::chrono::steady_clock::now();
    writer.Submit("a 1\n");  // its open() of the FIFO blocks: no reader
    writer.Submit("b 2\n");
    EXPECT_FALSE(writer.WaitWritten(200));
    EXPECT_LT(MsSince(start), 2000);  // Submit returned at once
    EXPECT_EQ(writer.written(), 0u);
  }  // the destructor gives up after 100 ms
  // The blocked write goes on once someone reads. It wrote the text it had
  // taken: "a 1" if it started before the second Submit, then the newest
  // (into a new .tmp, renamed over the path); else the newest at once.
  const std::string first = DrainFifo(fifo);
  if (first == "a 1\n") {
    for (int i = 0; i < 500 && ReadFile(path) != "b 2\n"; ++i) {
      usleep(10'000);  // polls the writer's thread, not a fixed wait
    }
    EXPECT_EQ(ReadFile(path), "b 2\n");
  } else {
    EXPECT_EQ(first, "b 2\n");
  }
}

TEST(MetricsFileWriterTest, WritesTheNewestTextAndCountsFailures) {
  const std::string path = testing::MakeTempDir() + "/newest.prom";
  MetricsFileWriter writer(path);
  writer.Submit("a 1\n");
  ASSERT_TRUE(writer.WaitWritten(5000));
  EXPECT_EQ(ReadFile(path), "a 1\n");
  writer.Submit("b 2\n");
  writer.Submit("c 3\n");
  ASSERT_TRUE(writer.WaitWritten(5000));
  EXPECT_EQ(ReadFile(path), "c 3\n");
  EXPECT_GE(writer.written(), 2u);
  EXPECT_EQ(writer.failed(), 0u);

  MetricsFileWriter nowhere("/nonexistent-dir/edgeadmm.prom");
  nowhere.Submit("a 1\n");
  ASSERT_TRUE(nowhere.WaitWritten(5000));
  EXPECT_EQ(nowhere.failed(), 1u);
  EXPECT_EQ(nowhere.written(), 0u);
}

}  // namespace
}  // namespace edgeadmm::server
