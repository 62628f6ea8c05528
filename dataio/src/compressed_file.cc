#include "edgeadmm/dataio/compressed_file.h"

#include <lzma.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

namespace edgeadmm {
namespace {

constexpr unsigned char kXzMagic[6] = {0xFD, '7', 'z', 'X', 'Z', 0x00};

// Decodes a (possibly multi-stream) .xz buffer.
host::ErrorOr<std::string> DecodeXz(const std::string& path,
                                    const std::string& in) {
  lzma_stream stream = LZMA_STREAM_INIT;
  if (lzma_stream_decoder(&stream, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) {
    return host::Error::Internal(path + ": cannot start the xz decoder");
  }
  std::string out;
  char chunk[1 << 16];
  stream.next_in = reinterpret_cast<const uint8_t*>(in.data());
  stream.avail_in = in.size();
  lzma_ret ret = LZMA_OK;
  while (ret == LZMA_OK) {
    stream.next_out = reinterpret_cast<uint8_t*>(chunk);
    stream.avail_out = sizeof(chunk);
    ret = lzma_code(&stream, LZMA_FINISH);
    out.append(chunk, sizeof(chunk) - stream.avail_out);
  }
  lzma_end(&stream);
  if (ret != LZMA_STREAM_END) {
    return host::Error::DataLoss(
        path + ": corrupt or truncated xz data (liblzma error " +
        std::to_string(static_cast<int>(ret)) + ")");
  }
  return out;
}

}  // namespace

host::ErrorOr<std::string> ReadFileMaybeXz(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return host::Error::NotFound(path + ": cannot open");
  std::ostringstream raw;
  raw << file.rdbuf();
  if (file.bad()) return host::Error::DataLoss(path + ": read error");
  std::string bytes = raw.str();
  if (bytes.size() >= sizeof(kXzMagic) &&
      std::memcmp(bytes.data(), kXzMagic, sizeof(kXzMagic)) == 0) {
    return DecodeXz(path, bytes);
  }
  return bytes;
}

}  // namespace edgeadmm
