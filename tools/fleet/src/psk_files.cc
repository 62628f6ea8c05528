#include "edgeadmm/fleet/psk_files.h"

#include <dirent.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "edgeadmm/host/hex.h"
#include "edgeadmm/posix/key_file_mode.h"

namespace edgeadmm::fleet {

Result<std::vector<std::string>> ListPskIds(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return Status::NotFound();
  std::vector<std::string> ids;
  while (const dirent* e = readdir(d)) {
    if (e->d_name[0] != '.') ids.emplace_back(e->d_name);
  }
  closedir(d);
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::vector<size_t> PartIndices(const std::vector<std::string>& ids,
                                size_t part, size_t parts,
                                const std::string& prefix) {
  std::vector<size_t> out;
  for (size_t i = part; parts > 0 && i < ids.size(); i += parts) {
    if (ids[i].compare(0, prefix.size(), prefix) == 0) out.push_back(i);
  }
  return out;
}

Result<std::vector<uint8_t>> ReadPskFile(const std::string& path) {
  std::ifstream in(path);
  std::string hex;
  if (!(in >> hex)) return Status::NotFound();
  auto key = host::FromHex(hex);
  if (!key.ok()) return Status::DataLoss();
  return std::move(key).value();
}

host::Error RefuseSharedKeyFiles(const std::string& dir,
                                 const std::vector<std::string>& ids) {
  for (const std::string& id : ids) {
    const std::string key_file = dir + "/" + id;
    unsigned mode = 0;
    if (posix::KeyFileIsShared(key_file.c_str(), &mode)) {
      char octal[8];
      std::snprintf(octal, sizeof(octal), "%04o", mode);
      return host::Error(StatusCode::kPermissionDenied,
                         "PSK file " + key_file +
                             " is readable by group or others (mode " + octal +
                             "); run chmod 600 on it");
    }
  }
  return host::Error::Ok();
}

}  // namespace edgeadmm::fleet
