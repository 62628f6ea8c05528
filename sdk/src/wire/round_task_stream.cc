#include "edgeadmm/wire/round_task_stream.h"

#include <cmath>

#include "edgeadmm/result.h"
#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/round_task.h"
#include "edgeadmm/wire/vector_field.h"
#include "message.h"

namespace edgeadmm::wire {
namespace {

// Protobuf wire types (the only ones a RoundTask uses).
constexpr uint64_t kWireVarint = 0;
constexpr uint64_t kWireFixed64 = 1;
constexpr uint64_t kWireLength = 2;
constexpr uint64_t kWireFixed32 = 5;
constexpr uint64_t kModelField = 16;
constexpr uint64_t kAuxiliaryField = 17;

size_t Index(TaskVector v) { return static_cast<size_t>(v); }

}  // namespace

void RoundTaskStreamReader::Reset(ByteSpan header_buffer, Span<Real> block,
                                  RoundTaskStreamHandler* handler) {
  header_buffer_ = header_buffer;
  block_ = block;
  handler_ = handler;
  header_ = edgeadmm_wire_RoundTask_init_zero;
  early_ = edgeadmm_wire_RoundTask_init_zero;
  header_done_ = false;
  error_ = handler == nullptr || block.empty() ? Status::FailedPrecondition()
                                               : Status::Ok();
  consumed_ = 0;
  header_size_ = 0;
  stage_ = Stage::kKey;
  varint_ = 0;
  varint_shift_ = 0;
  remaining_ = 0;
  vector_ = TaskVector::kModel;
  for (size_t i = 0; i < 2; ++i) {
    seen_[i] = false;
    expected_[i] = 0;
    received_[i] = 0;
  }
  partial_size_ = 0;
  block_fill_ = 0;
  block_first_ = 0;
}

Status RoundTaskStreamReader::Fail(Status status) {
  error_ = status;
  return status;
}

Status RoundTaskStreamReader::CopyToHeader(std::byte b) {
  if (header_size_ >= header_buffer_.size()) {
    return Status::ResourceExhausted();
  }
  header_buffer_[header_size_++] = b;
  return Status::Ok();
}

// The fields before the first vector: decoded and checked as far as they
// go (version, role, the dimension bound, the vector lengths the task must
// carry: `dimension` and its algorithm's auxiliary length when
// participating, none or a model of `dimension` otherwise), then handed over.
// Fields after the vectors (an algorithm's params, by tag order) are checked
// with the whole header at Finish.
Status RoundTaskStreamReader::FinishHeader(size_t model_values) {
  EDGEADMM_TRY(internal::DecodeMessage(
      edgeadmm_wire_RoundTask_fields, &header_,
      ConstByteSpan(header_buffer_.data(), header_size_), nullptr, nullptr));
  const int32_t role = internal::EnumValue(header_.role);
  if (header_.version != kProtocolVersion ||
      role < edgeadmm_wire_Role_ROLE_PARTICIPATE ||
      role > edgeadmm_wire_Role_ROLE_DONE) {
    return Status::InvalidArgument();
  }
  if (header_.dimension > MaxTaskDimension(header_)) {
    return Status::OutOfRange();
  }
  const bool participate = role == edgeadmm_wire_Role_ROLE_PARTICIPATE;
  if (participate && header_.dimension == 0) return Status::OutOfRange();
  expected_[Index(TaskVector::kModel)] =
      participate ? header_.dimension : model_values;
  expected_[Index(TaskVector::kAuxiliary)] =
      participate ? AuxiliaryLength(header_) : 0;
  early_ = header_;
  header_done_ = true;
  return handler_->OnHeader(header_);
}

Status RoundTaskStreamReader::OnKey(uint64_t key) {
  const uint64_t field = key >> 3;
  const uint64_t type = key & 7;
  if (field == 0) return Status::DataLoss();
  if (field == kModelField || field == kAuxiliaryField) {
    // A vector is length-delimited float32; nanopb would hand another wire
    // type's raw bytes to the vector callback, a streaming device refuses it.
    if (type != kWireLength) return Status::DataLoss();
    vector_ =
        field == kModelField ? TaskVector::kModel : TaskVector::kAuxiliary;
    if (seen_[Index(vector_)]) return Status::InvalidArgument();  // repeated
    seen_[Index(vector_)] = true;
    stage_ = Stage::kVecLength;
    return Status::Ok();
  }
  switch (type) {
    case kWireVarint:
      stage_ = Stage::kVarint;
      return Status::Ok();
    case kWireFixed64:
    case kWireFixed32:
      stage_ = Stage::kFixed;
      remaining_ = type == kWireFixed64 ? 8 : 4;
      return Status::Ok();
    case kWireLength:
      stage_ = Stage::kLength;
      return Status::Ok();
    default:
      return Status::DataLoss();
  }
}

Status RoundTaskStreamReader::OnVectorLength(uint64_t bytes) {
  if (bytes % 4 != 0) return Status::DataLoss();
  if (bytes / 4 > kMaxVectorLength) return Status::OutOfRange();
  const size_t values = static_cast<size_t>(bytes / 4);
  if (!header_done_) {
    EDGEADMM_TRY(FinishHeader(vector_ == TaskVector::kModel ? values : 0));
  }
  const size_t want = expected_[Index(vector_)];
  // An idle/final task may carry its model or not (ValidateRoundTask).
  if (values != want && !(vector_ == TaskVector::kModel && want == 0 &&
                          values == header_.dimension)) {
    return Status::InvalidArgument();
  }
  expected_[Index(vector_)] = values;
  remaining_ = static_cast<size_t>(bytes);
  partial_size_ = 0;
  block_fill_ = 0;
  block_first_ = 0;
  stage_ = remaining_ == 0 ? Stage::kKey : Stage::kVecBytes;
  return Status::Ok();
}

Status RoundTaskStreamReader::FlushBlock() {
  if (block_fill_ == 0) return Status::Ok();
  const Span<const Real> values(block_.data(), block_fill_);
  const size_t first = block_first_;
  block_first_ += block_fill_;
  block_fill_ = 0;
  return handler_->OnValues(vector_, first, values);
}

Status RoundTaskStreamReader::TakeVectorByte(std::byte b) {
  partial_[partial_size_++] = static_cast<uint8_t>(b);
  --remaining_;
  if (partial_size_ == 4) {
    partial_size_ = 0;
    const float v = LoadFloat32Le(partial_);
    if (!std::isfinite(v)) return Status::InvalidArgument();
    block_[block_fill_++] = static_cast<Real>(v);
    ++received_[Index(vector_)];
    if (block_fill_ == block_.size()) EDGEADMM_TRY(FlushBlock());
  }
  if (remaining_ == 0) {
    EDGEADMM_TRY(FlushBlock());
    stage_ = Stage::kKey;
  }
  return Status::Ok();
}

Status RoundTaskStreamReader::Write(size_t offset, ConstByteSpan bytes) {
  if (offset == 0 && consumed_ != 0) Reset(header_buffer_, block_, handler_);
  if (!error_.ok()) return error_;
  if (offset != consumed_) return Fail(Status::DataLoss());
  for (const std::byte b : bytes) {
    ++consumed_;
    Status step = Status::Ok();
    switch (stage_) {
      case Stage::kKey:
      case Stage::kVarint:
      case Stage::kLength:
      case Stage::kVecLength: {
        const auto u = static_cast<uint8_t>(b);
        if (varint_shift_ >= 64) return Fail(Status::DataLoss());
        varint_ |= static_cast<uint64_t>(u & 0x7f) << varint_shift_;
        varint_shift_ += 7;
        if (stage_ == Stage::kVarint || stage_ == Stage::kLength) {
          step = CopyToHeader(b);
        }
        if (!step.ok() || (u & 0x80) != 0) break;
        const uint64_t value = varint_;
        varint_ = 0;
        varint_shift_ = 0;
        if (stage_ == Stage::kKey) {
          step = OnKey(value);
          // A scalar field's key goes to the header with its value; the
          // key is re-encoded here (a varint of at most 10 bytes).
          if (step.ok() && stage_ != Stage::kVecLength) {
            uint64_t k = value;
            do {
              const auto byte = static_cast<uint8_t>(k & 0x7f);
              k >>= 7;
              step =
                  CopyToHeader(static_cast<std::byte>(byte | (k ? 0x80 : 0)));
            } while (step.ok() && k != 0);
          }
        } else if (stage_ == Stage::kVarint) {
          stage_ = Stage::kKey;
        } else if (stage_ == Stage::kLength) {
          if (value > header_buffer_.size()) {
            step = Status::ResourceExhausted();
            break;
          }
          remaining_ = static_cast<size_t>(value);
          stage_ = remaining_ == 0 ? Stage::kKey : Stage::kBytes;
        } else {
          step = OnVectorLength(value);
        }
        break;
      }
      case Stage::kFixed:
      case Stage::kBytes:
        step = CopyToHeader(b);
        if (step.ok() && --remaining_ == 0) stage_ = Stage::kKey;
        break;
      case Stage::kVecBytes:
        step = TakeVectorByte(b);
        break;
    }
    if (!step.ok()) return Fail(step);
  }
  return Status::Ok();
}

Status RoundTaskStreamReader::Finish() {
  if (!error_.ok()) return error_;
  if (stage_ != Stage::kKey || varint_shift_ != 0) {
    return Fail(Status::DataLoss());  // truncated inside a field
  }
  if (!header_done_) EDGEADMM_TRY(Fail(FinishHeader(0)));
  for (size_t i = 0; i < 2; ++i) {
    if (received_[i] != expected_[i]) return Fail(Status::InvalidArgument());
  }
  // The whole header, with the fields after the vectors, validated as
  // DecodeRoundTask does; the fields already acted on must not have changed
  // (a field repeated after the vectors would override them).
  EDGEADMM_TRY(Fail(internal::DecodeMessage(
      edgeadmm_wire_RoundTask_fields, &header_,
      ConstByteSpan(header_buffer_.data(), header_size_), nullptr, nullptr)));
  EDGEADMM_TRY(Fail(ValidateRoundTask(header_, received_[0], received_[1])));
  if (header_.job_id != early_.job_id || header_.round_id != early_.round_id ||
      internal::EnumValue(header_.role) != internal::EnumValue(early_.role) ||
      internal::EnumValue(header_.algorithm) !=
          internal::EnumValue(early_.algorithm) ||
      internal::EnumValue(header_.loss) != internal::EnumValue(early_.loss) ||
      header_.dimension != early_.dimension) {
    return Fail(Status::InvalidArgument());
  }
  return Status::Ok();
}

}  // namespace edgeadmm::wire
