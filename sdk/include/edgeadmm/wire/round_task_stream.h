// RoundTaskStreamReader: decodes a RoundTask that arrives in pieces (CoAP
// Block2 into a BodySink) without ever holding its vectors, for a device
// whose RAM is smaller than the task (a party whose task holds record-space
// vectors of N values each; docs/sdk.md, "Streaming party").
//
// A task is encoded in field-number order (nanopb), so its vectors (`model`
// = 16, `auxiliary` = 17) come after the common scalar fields (1..15) but
// before the algorithms' params (19 and up). The reader keeps every scalar
// field in a header buffer; at the first vector it decodes the fields so far,
// checks them as far as they go (version, role, the dimension bound, the vector
// lengths the task's algorithm implies) and hands them to the handler (job,
// round, role, algorithm, loss, dimension: enough to decide whether to take
// the task and to start accumulating); then it converts the vectors'
// float32 values block by block and hands each block to the handler. At
// Finish the whole header is decoded and validated as DecodeRoundTask does
// (ValidateRoundTask with the lengths received), and a field the handler
// already acted on must not have changed (a repeat after the vectors would
// override it). Refused: a repeated vector, a vector of the wrong length, a
// NaN/Inf value, a truncated body and anything DecodeRoundTask refuses.
// Portable: no heap, no exceptions.
#pragma once

#include <edgeadmm.pb.h>

#include <cstddef>
#include <cstdint>

#include "edgeadmm/real.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm::wire {

enum class TaskVector : uint8_t { kModel = 0, kAuxiliary = 1 };

class RoundTaskStreamHandler {
 public:
  // The scalar fields before the first vector (checked as far as they go:
  // see above), before any vector value. A non-OK status stops the reader
  // (CANCELLED: the caller does not want the vectors).
  virtual Status OnHeader(const edgeadmm_wire_RoundTask& header) = 0;
  // Values [first, first + values.size()) of one vector, finite, in order.
  virtual Status OnValues(TaskVector which, size_t first,
                          Span<const Real> values) = 0;

 protected:
  ~RoundTaskStreamHandler() = default;
};

class RoundTaskStreamReader {
 public:
  // Starts a new body. `header_buffer` holds the scalar fields (a few
  // hundred bytes; RESOURCE_EXHAUSTED at Write if they do not fit),
  // `block` the values handed over per OnValues call (at least 1).
  void Reset(ByteSpan header_buffer, Span<Real> block,
             RoundTaskStreamHandler* handler);
  // Bytes [offset, offset + bytes.size()) of the body, in order (BodySink
  // semantics: offset 0 again restarts the body). Returns the first error:
  // DATA_LOSS (bad encoding, a scalar field after a vector, an offset out of
  // order), OUT_OF_RANGE, INVALID_ARGUMENT (as DecodeRoundTask), the
  // handler's status, FAILED_PRECONDITION before Reset. After an error every
  // later Write returns it again (until offset 0 restarts the body).
  Status Write(size_t offset, ConstByteSpan bytes);
  // The body is complete: OK if it ended after a whole field, every vector
  // the header announced arrived in full, and the whole header is valid
  // (the header of a task without vectors is handed over here).
  // DATA_LOSS / INVALID_ARGUMENT / OUT_OF_RANGE otherwise, or the earlier
  // error.
  Status Finish();

  // The header: the fields before the vectors after OnHeader, the whole
  // validated task after a successful Finish.
  const edgeadmm_wire_RoundTask& header() const { return header_; }
  bool header_done() const { return header_done_; }
  // The error that stopped the reader (OK if none).
  Status error() const { return error_; }

 private:
  enum class Stage : uint8_t {
    kKey,        // reading a field key (varint)
    kVarint,     // a varint value, copied to the header
    kFixed,      // 4 or 8 value bytes, copied to the header
    kLength,     // the length varint of a scalar length-delimited field
    kBytes,      // its bytes, copied to the header
    kVecLength,  // the length varint of a vector field
    kVecBytes,   // vector bytes, converted
  };
  Status Fail(Status status);
  Status CopyToHeader(std::byte b);
  Status FinishHeader(size_t model_values);
  Status OnKey(uint64_t key);
  Status OnVectorLength(uint64_t bytes);
  Status TakeVectorByte(std::byte b);
  Status FlushBlock();

  ByteSpan header_buffer_;
  Span<Real> block_;
  RoundTaskStreamHandler* handler_ = nullptr;
  edgeadmm_wire_RoundTask header_ = edgeadmm_wire_RoundTask_init_zero;
  edgeadmm_wire_RoundTask early_ = edgeadmm_wire_RoundTask_init_zero;
  bool header_done_ = false;
  Status error_;
  size_t consumed_ = 0;     // body bytes taken
  size_t header_size_ = 0;  // bytes in header_buffer_
  Stage stage_ = Stage::kKey;
  uint64_t varint_ = 0;  // varint being read
  unsigned varint_shift_ = 0;
  size_t remaining_ = 0;  // bytes left in the current field's value
  // Vectors: which one is being read, what the header implies.
  TaskVector vector_ = TaskVector::kModel;
  bool seen_[2] = {false, false};
  size_t expected_[2] = {0, 0};  // values each vector must carry
  size_t received_[2] = {0, 0};  // values converted so far
  uint8_t partial_[4] = {};      // a float32 split across Writes
  size_t partial_size_ = 0;
  size_t block_fill_ = 0;   // values in block_
  size_t block_first_ = 0;  // index of block_[0] in its vector
};

}  // namespace edgeadmm::wire
