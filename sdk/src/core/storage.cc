#include "edgeadmm/storage.h"

namespace edgeadmm {

bool IsValidStorageKey(const char* key) {
  if (key == nullptr || key[0] == '\0' || key[0] == '.') return false;
  size_t length = 0;
  for (const char* c = key; *c != '\0'; ++c, ++length) {
    if (length >= Storage::kMaxKeyLength) return false;
    const bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                    (*c >= '0' && *c <= '9') || *c == '.' || *c == '_' ||
                    *c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace edgeadmm
