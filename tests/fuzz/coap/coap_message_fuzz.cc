// Fuzzes coap::ParseMessage, which a board without libcoap runs on every
// datagram it receives. Invariants: an accepted datagram is written again,
// option by option, by MessageWriter into exactly the same bytes (the
// option encoding is unique, so parse and write are inverses), and its
// options can be walked to the end.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "edgeadmm/coap/coap_message.h"
#include "fuzz_check.h"

namespace edgeadmm::coap {

// C linkage inside the namespace: libFuzzer finds the unqualified name.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static uint8_t again[70'000];
  MessageView m;
  const Status status = ParseMessage(
      ConstByteSpan(reinterpret_cast<const std::byte*>(data), size), m);
  if (!status.ok()) {
    FUZZ_CHECK(status == Status::DataLoss());
    return 0;
  }
  FUZZ_CHECK(m.token.size() <= kMaxTokenSize);
  MessageWriter w(ByteSpan(reinterpret_cast<std::byte*>(again),
                           size < sizeof(again) ? size : sizeof(again)));
  w.Begin(m.type, m.code, m.message_id, m.token);
  OptionIterator it(m);
  Option option;
  size_t option_bytes = 0;
  while (it.Next(option)) {
    w.AddOption(option.number, option.value);
    option_bytes += option.value.size();
  }
  FUZZ_CHECK(option_bytes <= m.options.size());
  w.SetPayload(m.payload);
  const StatusWithSize n = w.Finish();
  FUZZ_CHECK(n.ok() && n.size() == size);
  FUZZ_CHECK(std::memcmp(again, data, size) == 0);
  return 0;
}

}  // namespace edgeadmm::coap
