// Driver for fuzz targets built without libFuzzer (GCC builds): runs every
// file given (or every file in a given folder), then a deterministic stream
// of mutations of them: bit flips, byte changes, truncations, insertions,
// splices. `--mutations=N` per input (default 2000). Exit 0 unless the target
// aborts.
#include <dirent.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

uint64_t g_state = 0x243f6a8885a308d3ull;
uint64_t Next() {
  g_state ^= g_state << 13;
  g_state ^= g_state >> 7;
  g_state ^= g_state << 17;
  return g_state;
}

void Collect(const std::string& path, std::vector<std::vector<uint8_t>>& out) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return;
  if (S_ISDIR(st.st_mode)) {
    DIR* dir = opendir(path.c_str());
    if (dir == nullptr) return;
    while (dirent* e = readdir(dir)) {
      if (e->d_name[0] != '.') Collect(path + "/" + e->d_name, out);
    }
    closedir(dir);
    return;
  }
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return;
  std::vector<uint8_t> bytes;
  int c;
  while ((c = std::fgetc(f)) != EOF) bytes.push_back(static_cast<uint8_t>(c));
  std::fclose(f);
  out.push_back(bytes);
}

std::vector<uint8_t> Mutate(const std::vector<uint8_t>& in,
                            const std::vector<std::vector<uint8_t>>& all) {
  std::vector<uint8_t> v = in;
  const int rounds = 1 + static_cast<int>(Next() % 4);
  for (int r = 0; r < rounds; ++r) {
    const size_t pos = v.empty() ? 0 : Next() % v.size();
    switch (Next() % 6) {
      case 0:
        if (!v.empty()) v[pos] ^= static_cast<uint8_t>(1u << (Next() % 8));
        break;
      case 1:
        if (!v.empty()) v[pos] = static_cast<uint8_t>(Next());
        break;
      case 2:
        v.resize(v.empty() ? 0 : Next() % v.size());
        break;
      case 3:
        v.insert(v.begin() + static_cast<long>(pos),
                 static_cast<uint8_t>(Next()));
        break;
      case 4: {  // interesting varint bytes
        static const uint8_t kBytes[] = {0x00, 0x7f, 0x80, 0xff, 0x0a, 0x12};
        if (!v.empty()) v[pos] = kBytes[Next() % sizeof(kBytes)];
        break;
      }
      default: {  // splice with another input
        const auto& other = all[Next() % all.size()];
        if (!other.empty()) {
          const size_t from = Next() % other.size();
          v.resize(pos);
          v.insert(v.end(), other.begin() + static_cast<long>(from),
                   other.end());
        }
      }
    }
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  long mutations = 2000;
  std::vector<std::vector<uint8_t>> inputs;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--mutations=", 12) == 0) {
      mutations = std::strtol(argv[i] + 12, nullptr, 10);
    } else {
      Collect(argv[i], inputs);
    }
  }
  inputs.push_back({});
  size_t runs = 0;
  for (const auto& input : inputs) {
    LLVMFuzzerTestOneInput(input.data(), input.size());
    ++runs;
    for (long m = 0; m < mutations; ++m) {
      const std::vector<uint8_t> v = Mutate(input, inputs);
      LLVMFuzzerTestOneInput(v.data(), v.size());
      ++runs;
    }
  }
  std::printf("replayed %zu inputs, %zu runs\n", inputs.size(), runs);
  return 0;
}
