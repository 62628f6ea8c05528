#include <lzma.h>

#include <string>

#include "data_files.h"
#include "edgeadmm/dataio/compressed_file.h"
#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

using dataio_testing::TempFile;

std::string XzCompress(const std::string& text) {
  std::string out(lzma_stream_buffer_bound(text.size()), '\0');
  size_t written = 0;
  const lzma_ret ret = lzma_easy_buffer_encode(
      6, LZMA_CHECK_CRC64, nullptr,
      reinterpret_cast<const uint8_t*>(text.data()), text.size(),
      reinterpret_cast<uint8_t*>(out.data()), &written, out.size());
  EXPECT_EQ(ret, LZMA_OK);
  out.resize(written);
  return out;
}

TEST(CompressedFileTest, PlainAndXzReadTheSameBytes) {
  const std::string text = "+1 3:1 7:1\n-1 1:0.5\n";
  TempFile plain(text);
  TempFile packed(XzCompress(text));
  auto a = ReadFileMaybeXz(plain.path());
  auto b = ReadFileMaybeXz(packed.path());
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*a, text);
  EXPECT_EQ(*b, text);
  // Two concatenated .xz streams decode as one text (xz -c a b > c).
  TempFile twice(XzCompress("ab") + XzCompress("cd"));
  a = ReadFileMaybeXz(twice.path());
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, "abcd");
}

TEST(CompressedFileTest, MissingFileIsNotFound) {
  const auto text = ReadFileMaybeXz("/nonexistent/edgeadmm.xz");
  EXPECT_EQ(text.status(), Status::NotFound());
  EXPECT_NE(text.error().message().find("/nonexistent/edgeadmm.xz"),
            std::string::npos);
}

TEST(CompressedFileTest, TruncatedXzIsDataLoss) {
  std::string packed = XzCompress(std::string(1000, 'x'));
  packed.resize(packed.size() / 2);
  TempFile broken(packed);
  const auto text = ReadFileMaybeXz(broken.path());
  EXPECT_EQ(text.status(), Status::DataLoss());
  EXPECT_NE(text.error().message().find("xz"), std::string::npos)
      << text.error().message();
}

}  // namespace
}  // namespace edgeadmm
