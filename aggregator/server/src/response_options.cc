#include "edgeadmm/server/response_options.h"

#include <coap3/coap.h>

#include <cstdint>

namespace edgeadmm::server {

void AddResponseOptions(coap_pdu_t* pdu, const Response& r) {
  struct Option {
    coap_option_num_t number;
    uint32_t value;
  };
  // In option-number order (RFC 7252 3.1: deltas are non-negative).
  for (const Option& option : {Option{COAP_OPTION_MAXAGE, r.max_age},
                               Option{COAP_OPTION_SIZE1, r.size1}}) {
    if (option.value == 0) continue;
    uint8_t bytes[4];
    coap_add_option(pdu, option.number,
                    coap_encode_var_safe(bytes, sizeof(bytes), option.value),
                    bytes);
  }
}

}  // namespace edgeadmm::server
