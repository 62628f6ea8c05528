#include "edgeadmm/fleet/psk_files.h"

#include <dirent.h>

#include <algorithm>
#include <fstream>

#include "edgeadmm/host/hex.h"

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

Result<std::vector<uint8_t>> ReadPskFile(const std::string& path) {
  std::ifstream in(path);
  std::string hex;
  if (!(in >> hex)) return Status::NotFound();
  auto key = host::FromHex(hex);
  if (!key.ok()) return Status::DataLoss();
  return std::move(key).value();
}

}  // namespace edgeadmm::fleet
