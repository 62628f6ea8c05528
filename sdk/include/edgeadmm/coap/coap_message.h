// The CoAP message format (RFC 7252 section 3), encoded into and parsed from
// caller buffers: the codec under the SDK's own CoAP client for boards
// without libcoap (issue 12). No heap; a parsed message is a view into the
// datagram.
//
//   0                   1                   2                   3
//   Ver T  TKL  Code          Message ID
//   Token (TKL bytes) | Options (delta-encoded) | 0xFF Payload
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm::coap {

enum class MessageType : uint8_t {
  kConfirmable = 0,
  kNonConfirmable = 1,
  kAcknowledgement = 2,
  kReset = 3,
};

inline constexpr size_t kHeaderSize = 4;
inline constexpr size_t kMaxTokenSize = 8;
inline constexpr uint8_t kPayloadMarker = 0xff;

// The option numbers the protocol uses (RFC 7252 section 5.10, RFC 7641,
// RFC 7959).
inline constexpr uint16_t kOptionETag = 4;
inline constexpr uint16_t kOptionObserve = 6;
inline constexpr uint16_t kOptionUriPath = 11;
inline constexpr uint16_t kOptionContentFormat = 12;
inline constexpr uint16_t kOptionMaxAge = 14;
inline constexpr uint16_t kOptionUriQuery = 15;
inline constexpr uint16_t kOptionBlock2 = 23;
inline constexpr uint16_t kOptionBlock1 = 27;
inline constexpr uint16_t kOptionSize2 = 28;
inline constexpr uint16_t kOptionSize1 = 60;

struct Option {
  uint16_t number = 0;
  ConstByteSpan value;
};

// Writes one message into a caller buffer: Begin, then options in
// non-decreasing number order, then the payload (optional), then Finish.
// The first error sticks: later calls do nothing and Finish reports it
// (RESOURCE_EXHAUSTED: the buffer is too small; INVALID_ARGUMENT: a token
// over 8 bytes, an option out of order, an option value over 65,804 bytes,
// a call out of sequence).
class MessageWriter {
 public:
  explicit MessageWriter(ByteSpan out) : out_(out) {}

  void Begin(MessageType type, uint8_t code, uint16_t message_id,
             ConstByteSpan token);
  void AddOption(uint16_t number, ConstByteSpan value);
  // An unsigned option in its shortest big-endian form (0 is empty).
  void AddUintOption(uint16_t number, uint32_t value);
  void SetPayload(ConstByteSpan payload);
  // Like SetPayload, but returns the `size` payload bytes in the buffer for
  // the caller to fill (a block read from a BodySource straight into the
  // datagram); empty if `size` is 0 or on error (Finish reports it).
  ByteSpan ReservePayload(size_t size);
  // The message's size, or the first error.
  StatusWithSize Finish();

 private:
  void Put(const void* bytes, size_t size);
  void PutByte(uint8_t byte) { Put(&byte, 1); }

  ByteSpan out_;
  size_t size_ = 0;
  uint16_t last_option_ = 0;
  bool begun_ = false;
  bool payload_set_ = false;
  Status status_;
};

// A parsed message: views into the datagram it was parsed from.
struct MessageView {
  MessageType type = MessageType::kConfirmable;
  uint8_t code = 0;
  uint16_t message_id = 0;
  ConstByteSpan token;
  ConstByteSpan options;  // the encoded option bytes, already validated
  ConstByteSpan payload;
};

// Parses and validates a whole datagram. DATA_LOSS for anything RFC 7252
// section 3 does not allow: shorter than the header, version other than 1,
// token length over 8, an option delta or length nibble of 15 outside the
// payload marker, an option running past the end, a payload marker with no
// payload. An empty message (code 0.00) must have no token, options or
// payload (section 4.1).
Status ParseMessage(ConstByteSpan datagram, MessageView& out);

// Walks the options of a parsed message in order.
class OptionIterator {
 public:
  explicit OptionIterator(const MessageView& message)
      : rest_(message.options) {}
  // The next option; false at the end.
  bool Next(Option& option);

 private:
  ConstByteSpan rest_;
  uint16_t number_ = 0;
};

// The first option `number` of `message` as an unsigned integer (at most 4
// bytes); NOT_FOUND if absent, DATA_LOSS if longer than 4 bytes.
Status FindUintOption(const MessageView& message, uint16_t number,
                      uint32_t& value);

// A Block1/Block2 option value (RFC 7959 section 2.2): block number, more
// flag and size exponent (block size 2^(szx + 4); 7 is reserved).
struct BlockValue {
  uint32_t num = 0;
  bool more = false;
  uint8_t szx = 6;
  size_t size() const { return size_t{1} << (szx + 4); }
  size_t offset() const { return size_t{num} << (szx + 4); }
};
uint32_t EncodeBlock(const BlockValue& block);
// DATA_LOSS if szx is 7 or num does not fit 20 bits.
Status DecodeBlock(uint32_t value, BlockValue& block);

}  // namespace edgeadmm::coap
