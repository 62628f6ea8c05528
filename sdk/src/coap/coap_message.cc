#include "edgeadmm/coap/coap_message.h"

#include <cstring>
#include <initializer_list>

namespace edgeadmm::coap {
namespace {

// Option delta and length encoding (RFC 7252 section 3.1): values 0..12 in
// the nibble, 13..268 as nibble 13 + one byte, 269..65,804 as nibble 14 +
// two bytes; nibble 15 is reserved (0xFF is the payload marker).
constexpr uint32_t kOneByteBase = 13;
constexpr uint32_t kTwoByteBase = 269;
constexpr uint32_t kMaxExtended = kTwoByteBase + 0xffff;

uint8_t Nibble(uint32_t value) {
  if (value < kOneByteBase) return static_cast<uint8_t>(value);
  return value < kTwoByteBase ? 13 : 14;
}

size_t ExtensionSize(uint8_t nibble) {
  return nibble == 13 ? 1 : nibble == 14 ? 2 : 0;
}

// Reads the value a nibble announces from `bytes[*at..]`; false if it runs
// past `size` or the nibble is 15.
bool ReadExtended(uint8_t nibble, const uint8_t* bytes, size_t size, size_t* at,
                  uint32_t* value) {
  if (nibble == 15) return false;
  const size_t extra = ExtensionSize(nibble);
  if (size - *at < extra) return false;
  if (nibble == 13) {
    *value = kOneByteBase + bytes[*at];
  } else if (nibble == 14) {
    *value = kTwoByteBase + ((uint32_t{bytes[*at]} << 8) | bytes[*at + 1]);
  } else {
    *value = nibble;
  }
  *at += extra;
  return true;
}

const uint8_t* Bytes(ConstByteSpan span) {
  return reinterpret_cast<const uint8_t*>(span.data());
}

// Validates the option bytes of a message (up to the payload marker or the
// end); sets `*options_end` to where they end.
bool ValidOptions(const uint8_t* bytes, size_t size, size_t* options_end) {
  size_t at = 0;
  uint32_t number = 0;
  while (at < size && bytes[at] != kPayloadMarker) {
    const uint8_t header = bytes[at++];
    uint32_t delta = 0;
    uint32_t length = 0;
    if (!ReadExtended(header >> 4, bytes, size, &at, &delta) ||
        !ReadExtended(header & 0x0f, bytes, size, &at, &length) ||
        size - at < length) {
      return false;
    }
    number += delta;
    if (number > 0xffff) return false;
    at += length;
  }
  *options_end = at;
  return true;
}

}  // namespace

void MessageWriter::Put(const void* bytes, size_t size) {
  if (!status_.ok()) return;
  if (out_.size() - size_ < size) {
    status_ = Status::ResourceExhausted();
    return;
  }
  if (size > 0) std::memcpy(out_.data() + size_, bytes, size);
  size_ += size;
}

void MessageWriter::Begin(MessageType type, uint8_t code, uint16_t message_id,
                          ConstByteSpan token) {
  if (begun_ || token.size() > kMaxTokenSize) {
    status_ = Status::InvalidArgument();
    return;
  }
  begun_ = true;
  const uint8_t header[kHeaderSize] = {
      static_cast<uint8_t>(0x40 | (static_cast<uint8_t>(type) << 4) |
                           token.size()),
      code, static_cast<uint8_t>(message_id >> 8),
      static_cast<uint8_t>(message_id)};
  Put(header, sizeof(header));
  Put(token.data(), token.size());
}

void MessageWriter::AddOption(uint16_t number, ConstByteSpan value) {
  if (!begun_ || payload_set_ || number < last_option_ ||
      value.size() > kMaxExtended) {
    status_ = Status::InvalidArgument();
    return;
  }
  const uint32_t delta = number - last_option_;
  const auto length = static_cast<uint32_t>(value.size());
  PutByte(static_cast<uint8_t>((Nibble(delta) << 4) | Nibble(length)));
  for (const uint32_t field : {delta, length}) {
    if (field >= kTwoByteBase) {
      const uint32_t extended = field - kTwoByteBase;
      PutByte(static_cast<uint8_t>(extended >> 8));
      PutByte(static_cast<uint8_t>(extended));
    } else if (field >= kOneByteBase) {
      PutByte(static_cast<uint8_t>(field - kOneByteBase));
    }
  }
  Put(value.data(), value.size());
  last_option_ = number;
}

void MessageWriter::AddUintOption(uint16_t number, uint32_t value) {
  uint8_t bytes[4];
  size_t size = 0;
  for (int shift = 24; shift >= 0; shift -= 8) {
    const auto byte = static_cast<uint8_t>(value >> shift);
    if (size > 0 || byte != 0) bytes[size++] = byte;
  }
  AddOption(number,
            ConstByteSpan(reinterpret_cast<const std::byte*>(bytes), size));
}

void MessageWriter::SetPayload(ConstByteSpan payload) {
  const ByteSpan space = ReservePayload(payload.size());
  if (!space.empty()) std::memcpy(space.data(), payload.data(), space.size());
}

ByteSpan MessageWriter::ReservePayload(size_t size) {
  if (!begun_ || payload_set_) {
    status_ = Status::InvalidArgument();
    return ByteSpan();
  }
  payload_set_ = true;
  if (size == 0) return ByteSpan();
  PutByte(kPayloadMarker);
  if (!status_.ok()) return ByteSpan();
  if (out_.size() - size_ < size) {
    status_ = Status::ResourceExhausted();
    return ByteSpan();
  }
  const ByteSpan space = out_.subspan(size_, size);
  size_ += size;
  return space;
}

StatusWithSize MessageWriter::Finish() {
  if (status_.ok() && !begun_) status_ = Status::InvalidArgument();
  if (!status_.ok()) return StatusWithSize(status_, 0);
  return StatusWithSize(size_);
}

Status ParseMessage(ConstByteSpan datagram, MessageView& out) {
  const uint8_t* bytes = Bytes(datagram);
  const size_t size = datagram.size();
  if (size < kHeaderSize || (bytes[0] >> 6) != 1) return Status::DataLoss();
  const size_t token_size = bytes[0] & 0x0f;
  if (token_size > kMaxTokenSize || size - kHeaderSize < token_size) {
    return Status::DataLoss();
  }
  MessageView view;
  view.type = static_cast<MessageType>((bytes[0] >> 4) & 0x03);
  view.code = bytes[1];
  view.message_id = static_cast<uint16_t>((bytes[2] << 8) | bytes[3]);
  view.token = datagram.subspan(kHeaderSize, token_size);
  const size_t options_start = kHeaderSize + token_size;
  size_t options_size = 0;
  if (!ValidOptions(bytes + options_start, size - options_start,
                    &options_size)) {
    return Status::DataLoss();
  }
  view.options = datagram.subspan(options_start, options_size);
  const size_t rest = options_start + options_size;
  if (rest < size) {  // a payload marker, then at least one byte
    if (size - rest < 2) return Status::DataLoss();
    view.payload = datagram.subspan(rest + 1, size - rest - 1);
  }
  if (view.code == 0 && size != kHeaderSize) return Status::DataLoss();
  out = view;
  return Status::Ok();
}

bool OptionIterator::Next(Option& option) {
  if (rest_.empty()) return false;
  const uint8_t* bytes = Bytes(rest_);
  const size_t size = rest_.size();
  size_t at = 1;
  uint32_t delta = 0;
  uint32_t length = 0;
  // ParseMessage validated every option: these reads cannot fail.
  if (!ReadExtended(bytes[0] >> 4, bytes, size, &at, &delta) ||
      !ReadExtended(bytes[0] & 0x0f, bytes, size, &at, &length) ||
      size - at < length) {
    rest_ = ConstByteSpan();
    return false;
  }
  number_ = static_cast<uint16_t>(number_ + delta);
  option.number = number_;
  option.value = rest_.subspan(at, length);
  rest_ = rest_.subspan(at + length, size - at - length);
  return true;
}

Status FindUintOption(const MessageView& message, uint16_t number,
                      uint32_t& value) {
  OptionIterator it(message);
  Option option;
  while (it.Next(option)) {
    if (option.number != number) continue;
    if (option.value.size() > 4) return Status::DataLoss();
    uint32_t v = 0;
    for (size_t i = 0; i < option.value.size(); ++i) {
      v = (v << 8) | Bytes(option.value)[i];
    }
    value = v;
    return Status::Ok();
  }
  return Status::NotFound();
}

uint32_t EncodeBlock(const BlockValue& block) {
  return (block.num << 4) | (block.more ? 0x08u : 0u) | (block.szx & 0x07u);
}

Status DecodeBlock(uint32_t value, BlockValue& block) {
  if ((value & 0x07u) == 7 || value >= (1u << 24)) return Status::DataLoss();
  block.num = value >> 4;
  block.more = (value & 0x08u) != 0;
  block.szx = static_cast<uint8_t>(value & 0x07u);
  return Status::Ok();
}

}  // namespace edgeadmm::coap
