#include "coap_uri_options.h"

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace edgeadmm::posix {
namespace {

constexpr size_t kMaxOptionValue = 255;

}  // namespace

bool AddPath(coap_pdu_t* pdu, const char* path) {
  const char* segment = path;
  while (*segment != '\0' && *segment != '?') {
    const size_t length = std::strcspn(segment, "/?");
    if (length == 0 || length > kMaxOptionValue) return false;
    if (coap_add_option(pdu, COAP_OPTION_URI_PATH, length,
                        reinterpret_cast<const uint8_t*>(segment)) == 0) {
      return false;
    }
    segment += length;
    if (*segment == '/') ++segment;
  }
  return true;
}

bool AddQuery(coap_pdu_t* pdu, const char* path) {
  const char* mark = std::strchr(path, '?');
  if (mark == nullptr) return true;
  const size_t length = std::strlen(mark + 1);
  if (length == 0 || length > kMaxOptionValue) return false;
  return coap_add_option(pdu, COAP_OPTION_URI_QUERY, length,
                         reinterpret_cast<const uint8_t*>(mark + 1)) != 0;
}

}  // namespace edgeadmm::posix
