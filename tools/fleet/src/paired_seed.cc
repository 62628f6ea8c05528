#include "edgeadmm/fleet/paired_seed.h"

#include <cstring>
#include <utility>

#include "edgeadmm/wire/coap_code.h"
#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/round_task.h"
#include "mbedtls/md.h"

namespace edgeadmm::fleet {
namespace {

constexpr char kLabel[] = "edgeadmm-paired-seed";

void PutBigEndian(uint64_t value, size_t bytes, std::vector<uint8_t>& out) {
  for (size_t i = bytes; i-- > 0;) {
    out.push_back(static_cast<uint8_t>(value >> (8 * i)));
  }
}

}  // namespace

PairedSeedEntropy::PairedSeedEntropy(std::vector<uint8_t> seed,
                                     std::string device_id)
    : seed_(std::move(seed)), device_id_(std::move(device_id)) {}

void PairedSeedEntropy::BeginRound(uint64_t round) {
  round_ = round;
  counter_ = 0;
  used_ = sizeof(block_);
  ++rounds_begun_;
}

bool PairedSeedEntropy::RefillBlock() {
  // label 0 id 0 round counter: ids are printable ASCII (no 0 byte).
  std::vector<uint8_t> message(kLabel, kLabel + sizeof(kLabel));
  message.insert(message.end(), device_id_.begin(), device_id_.end());
  message.push_back(0);
  PutBigEndian(round_, 8, message);
  PutBigEndian(counter_, 4, message);
  const mbedtls_md_info_t* sha256 =
      mbedtls_md_info_from_type(MBEDTLS_MD_SHA256);
  if (sha256 == nullptr ||
      mbedtls_md_hmac(sha256, seed_.data(), seed_.size(), message.data(),
                      message.size(), block_) != 0) {
    return false;
  }
  ++counter_;
  used_ = 0;
  return true;
}

Status PairedSeedEntropy::Read(ByteSpan out) {
  if (rounds_begun_ == 0 || seed_.empty()) return Status::Unavailable();
  for (std::byte& b : out) {
    if (used_ == sizeof(block_) && !RefillBlock()) return Status::Unavailable();
    b = static_cast<std::byte>(block_[used_++]);
  }
  return Status::Ok();
}

Status PairedSeedTransport::StartRequest(const TransportRequest& request,
                                         ByteSpan response_buffer) {
  if (request.payload_source != nullptr || request.response_sink != nullptr) {
    return Status::Unimplemented();
  }
  const Status started = inner_.StartRequest(request, response_buffer);
  const bool task =
      request.method == CoapMethod::kGet && wire::IsTaskPath(request.path);
  fetch_buffer_ = started.ok() && task ? response_buffer : ByteSpan();
  return started;
}

bool PairedSeedTransport::TakeResult(TransportResult& result) {
  if (!inner_.TakeResult(result)) return false;
  Notice(result, fetch_buffer_);
  fetch_buffer_ = ByteSpan();
  return true;
}

void PairedSeedTransport::Cancel() {
  fetch_buffer_ = ByteSpan();
  inner_.Cancel();
}

Status PairedSeedTransport::StartObserve(const char* path,
                                         ByteSpan notification_buffer) {
  observe_buffer_ = wire::IsTaskPath(path) ? notification_buffer : ByteSpan();
  return inner_.StartObserve(path, notification_buffer);
}

bool PairedSeedTransport::TakeNotification(TransportResult& result) {
  if (!inner_.TakeNotification(result)) return false;
  Notice(result, observe_buffer_);
  return true;
}

void PairedSeedTransport::Notice(const TransportResult& result,
                                 ByteSpan buffer) {
  if (!result.status.ok() || result.code != wire::kCoapContent ||
      buffer.empty() || result.payload_size > buffer.size()) {
    return;
  }
  // Every vector of the task: at most its byte count / 4 values.
  const size_t most = result.payload_size / 4 + 1;
  if (model_.size() < most) {
    model_.resize(most);
    auxiliary_.resize(most);
  }
  wire::DecodedRoundTask task;
  const Status decoded = wire::DecodeRoundTask(
      ConstByteSpan(buffer.data(), result.payload_size),
      Span<Real>(model_.data(), model_.size()),
      Span<Real>(auxiliary_.data(), auxiliary_.size()), task);
  if (decoded.ok()) entropy_.BeginRound(task.header.round_id);
}

}  // namespace edgeadmm::fleet
