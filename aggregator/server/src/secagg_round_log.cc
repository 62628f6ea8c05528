#include "edgeadmm/server/secagg_round_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>

namespace edgeadmm::server {
namespace {

void Put(std::vector<uint8_t>& out, uint64_t v, size_t bytes) {
  for (size_t b = 0; b < bytes; ++b) {
    out.push_back(static_cast<uint8_t>((v >> (8 * b)) & 0xff));
  }
}

// Reads little-endian fields; false once past the end.
struct Cursor {
  const std::vector<uint8_t>& in;
  size_t at = 0;
  bool Get(uint64_t& v, size_t bytes) {
    if (in.size() - at < bytes) return false;
    v = 0;
    for (size_t b = 0; b < bytes; ++b) {
      v |= static_cast<uint64_t>(in[at++]) << (8 * b);
    }
    return true;
  }
  bool Take(std::vector<uint8_t>& out, size_t n) {
    if (in.size() - at < n) return false;
    out.assign(in.begin() + static_cast<std::ptrdiff_t>(at),
               in.begin() + static_cast<std::ptrdiff_t>(at + n));
    at += n;
    return true;
  }
};

std::vector<uint8_t> StartBody(const secure_aggregation::SecAggRoundParams& p,
                               const std::vector<std::string>& identities,
                               int64_t phase_ms) {
  std::vector<uint8_t> b;
  Put(b, p.round_id, 8);
  for (uint32_t v : {p.devices, p.degree, p.threshold, p.bits, p.mask_length,
                     p.min_survivors}) {
    Put(b, v, 4);
  }
  for (std::byte s : p.graph_seed) b.push_back(static_cast<uint8_t>(s));
  Put(b, static_cast<uint64_t>(phase_ms), 8);
  Put(b, identities.size(), 4);
  for (const std::string& id : identities) {
    Put(b, id.size(), 2);
    b.insert(b.end(), id.begin(), id.end());
  }
  return b;
}

bool ParseStart(const std::vector<uint8_t>& body, SecAggLogContents& c) {
  Cursor r{body};
  uint64_t v = 0;
  if (!r.Get(v, 8)) return false;
  c.params.round_id = v;
  for (uint32_t* f :
       {&c.params.devices, &c.params.degree, &c.params.threshold,
        &c.params.bits, &c.params.mask_length, &c.params.min_survivors}) {
    if (!r.Get(v, 4)) return false;
    *f = static_cast<uint32_t>(v);
  }
  for (std::byte& s : c.params.graph_seed) {
    if (!r.Get(v, 1)) return false;
    s = static_cast<std::byte>(v);
  }
  if (!r.Get(v, 8)) return false;
  c.phase_ms = static_cast<int64_t>(v);
  uint64_t count = 0;
  if (!r.Get(count, 4) || count > body.size()) return false;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t n = 0;
    std::vector<uint8_t> id;
    if (!r.Get(n, 2) || !r.Take(id, n)) return false;
    c.identities.emplace_back(id.begin(), id.end());
  }
  return r.at == body.size();
}

}  // namespace

SecAggRoundLog::~SecAggRoundLog() {
  if (file_ != nullptr) std::fclose(file_);
}

host::Error SecAggRoundLog::Create(
    const std::string& path,
    const secure_aggregation::SecAggRoundParams& params,
    const std::vector<std::string>& identities, int64_t phase_ms) {
  if (file_ != nullptr) std::fclose(file_);
  file_ = nullptr;
  // Owner-only, like the database: it names the cohort.
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd >= 0) file_ = ::fdopen(fd, "wb");
  if (file_ == nullptr) {
    if (fd >= 0) ::close(fd);
    return host::Error::Unavailable("cannot create " + path);
  }
  path_ = path;
  const std::vector<uint8_t> body = StartBody(params, identities, phase_ms);
  EDGEADMM_HOST_TRY(Append(0, 0, 0, body.data(), body.size()));
  // The new file's directory entry is durable too, so a power cut after a
  // device's answer still finds the log.
  const size_t slash = path.find_last_of('/');
  const std::string dir =
      slash == std::string::npos ? "." : path.substr(0, slash + (slash == 0));
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  const bool synced = dir_fd >= 0 && ::fsync(dir_fd) == 0;
  if (dir_fd >= 0) ::close(dir_fd);
  if (!synced)
    return host::Error::Unavailable("cannot sync the directory of " + path);
  return host::Error::Ok();
}

host::Error SecAggRoundLog::Reopen(const std::string& path) {
  if (file_ != nullptr) std::fclose(file_);
  file_ = std::fopen(path.c_str(), "ab");
  if (file_ == nullptr) return host::Error::Unavailable("cannot open " + path);
  path_ = path;
  return host::Error::Ok();
}

host::Error SecAggRoundLog::Message(int phase, uint32_t device,
                                    const uint8_t* body, size_t size) {
  return Append(1, static_cast<uint8_t>(phase), device, body, size);
}

host::Error SecAggRoundLog::Closed(int phase) {
  return Append(2, static_cast<uint8_t>(phase), 0, nullptr, 0);
}

void SecAggRoundLog::Remove() {
  if (file_ == nullptr) return;
  std::fclose(file_);
  file_ = nullptr;
  std::remove(path_.c_str());
}

host::Error SecAggRoundLog::Append(uint8_t type, uint8_t phase, uint32_t device,
                                   const uint8_t* bytes, size_t size) {
  if (file_ == nullptr) return host::Error::FailedPrecondition("no log");
  std::vector<uint8_t> record;
  Put(record, type, 1);
  Put(record, phase, 1);
  Put(record, device, 4);
  Put(record, size, 4);
  if (size != 0) record.insert(record.end(), bytes, bytes + size);
  if (std::fwrite(record.data(), 1, record.size(), file_) != record.size() ||
      std::fflush(file_) != 0 || ::fsync(fileno(file_)) != 0) {
    return host::Error::Unavailable("cannot write " + path_);
  }
  return host::Error::Ok();
}

host::ErrorOr<SecAggLogContents> SecAggRoundLog::Read(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return host::Error::NotFound("no round log " + path);
  std::vector<uint8_t> all;
  uint8_t chunk[4096];
  size_t n = 0;
  while ((n = std::fread(chunk, 1, sizeof(chunk), f)) > 0) {
    all.insert(all.end(), chunk, chunk + n);
  }
  std::fclose(f);
  Cursor r{all};
  SecAggLogContents c;
  bool started = false;
  for (;;) {
    uint64_t type = 0, phase = 0, device = 0, size = 0;
    SecAggLogRecord rec;
    if (!r.Get(type, 1) || !r.Get(phase, 1) || !r.Get(device, 4) ||
        !r.Get(size, 4) || !r.Take(rec.bytes, size)) {
      break;  // the end, or a torn last record
    }
    if (!started) {
      if (type != 0 || !ParseStart(rec.bytes, c)) {
        return host::Error::DataLoss("bad round log " + path);
      }
      started = true;
      continue;
    }
    rec.type = static_cast<uint8_t>(type);
    rec.phase = static_cast<uint8_t>(phase);
    rec.device = static_cast<uint32_t>(device);
    c.records.push_back(std::move(rec));
  }
  if (!started) return host::Error::DataLoss("empty round log " + path);
  return c;
}

}  // namespace edgeadmm::server
