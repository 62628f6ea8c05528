#include "edgeadmm/fake/loopback_transport.h"

#include <cstring>

#include "edgeadmm/wire/coap_code.h"

namespace edgeadmm {
namespace {

// DTLS 1.2 record header (13) + explicit nonce (8) + CCM-8 tag (8).
constexpr size_t kDtlsOverhead = 29;
// CoAP header (4) + a 4-byte token.
constexpr size_t kCoapFixed = 8;
constexpr size_t kContentFormatOption = 3;
constexpr size_t kBlockOption = 3;
constexpr size_t kObserveOption = 2;

// Uri-Path options: one per '/'-separated segment (1-byte header if < 13).
size_t PathOptionBytes(const char* path) {
  size_t bytes = 0;
  size_t segment = 0;
  for (const char* c = path;; ++c) {
    if (*c == '/' || *c == '\0') {
      bytes += 1 + segment + (segment >= 13 ? 1 : 0);
      segment = 0;
      if (*c == '\0') break;
    } else {
      ++segment;
    }
  }
  return bytes;
}

size_t BlockCount(size_t bytes, size_t block) {
  return bytes <= block ? 1 : (bytes + block - 1) / block;
}

// Bytes of a response datagram carrying `chunk` body bytes.
size_t ResponseDatagram(size_t chunk, bool blockwise) {
  return kDtlsOverhead + kCoapFixed + (chunk > 0 ? kContentFormatOption : 0) +
         (blockwise ? kBlockOption : 0) + (chunk > 0 ? 1 + chunk : 0);
}

}  // namespace

LoopbackTransport::LoopbackTransport(CoapEndpoint& endpoint,
                                     const char* identity,
                                     const LinkConfig& link)
    : endpoint_(endpoint), identity_(identity), link_(link) {
  uint64_t h = link.seed ^ 0x9e3779b97f4a7c15ull;
  for (const char* c = identity; *c != '\0'; ++c) {
    h = (h ^ static_cast<uint8_t>(*c)) * 0x100000001b3ull;
  }
  rng_ = h;
}

uint64_t LoopbackTransport::NextRandom() {
  // splitmix64
  uint64_t z = (rng_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

bool LoopbackTransport::SendDatagram(size_t bytes) {
  ++stats_.datagrams;
  stats_.bytes += bytes;
  if (link_.loss_per_million > 0 &&
      NextRandom() % 1000000u < link_.loss_per_million) {
    ++stats_.datagrams_lost;
    return false;
  }
  return true;
}

template <typename F>
bool LoopbackTransport::RoundTrip(size_t request_bytes, F on_arrival) {
  bool arrived = false;
  size_t response_bytes = 0;
  for (uint32_t attempt = 0; attempt <= link_.max_retransmit; ++attempt) {
    if (!SendDatagram(request_bytes)) continue;
    if (!arrived) {
      arrived = true;
      response_bytes = on_arrival();
    }
    if (SendDatagram(response_bytes)) return true;
  }
  return false;
}

void LoopbackTransport::RunExchange(const TransportRequest& streamed,
                                    ByteSpan buffer, TransportResult& result) {
  ++stats_.exchanges;
  result = TransportResult{};
  // Streaming: the source's body is staged whole (read a block at a time, as
  // a Block1 upload reads it) and the response is written to the staging
  // area, then handed to the sink a block at a time.
  TransportRequest request = streamed;
  ByteSpan sink_buffer = buffer;
  if (streamed.payload_source != nullptr || streamed.response_sink != nullptr) {
    size_t staged = 0;
    if (BodySource* source = streamed.payload_source) {
      staged = source->size();
      if (staged > staging_.size()) {
        result.status = Status::ResourceExhausted();
        return;
      }
      for (size_t off = 0; off < staged; off += link_.block_size) {
        const size_t n =
            staged - off < link_.block_size ? staged - off : link_.block_size;
        const Status read = source->Read(off, staging_.subspan(off, n));
        if (!read.ok()) {
          result.status = read;
          return;
        }
      }
      request.payload = staging_.first(staged);
      request.payload_source = nullptr;
    }
    if (streamed.response_sink != nullptr) {
      sink_buffer = staging_.subspan(staged, staging_.size() - staged);
    }
  }
  RunBlocks(request, sink_buffer, result);
  BodySink* sink = streamed.response_sink;
  if (sink == nullptr || !result.status.ok()) return;
  if ((result.code >> 5) != 2) {  // error bodies: the buffer
    if (result.payload_size > buffer.size()) {
      result.status = Status::ResourceExhausted();
      result.payload_size = 0;
      return;
    }
    std::memcpy(buffer.data(), sink_buffer.data(), result.payload_size);
    return;
  }
  for (size_t off = 0; off < result.payload_size; off += link_.block_size) {
    const size_t n = result.payload_size - off < link_.block_size
                         ? result.payload_size - off
                         : link_.block_size;
    const Status written = sink->Write(off, sink_buffer.subspan(off, n));
    if (!written.ok()) {
      result.status = written;
      return;
    }
  }
}

void LoopbackTransport::RunBlocks(const TransportRequest& request,
                                  ByteSpan buffer, TransportResult& result) {
  const size_t payload = request.payload.size();
  const size_t block = link_.block_size;
  const size_t request_blocks = BlockCount(payload, block);
  const size_t options = PathOptionBytes(request.path) +
                         (payload > 0 ? kContentFormatOption : 0) +
                         (request_blocks > 1 ? kBlockOption : 0);
  CoapResponse response;
  bool blockwise_response = false;
  for (size_t b = 0; b < request_blocks; ++b) {
    const bool last = b + 1 == request_blocks;
    const size_t chunk =
        payload == 0 ? 0 : (last ? payload - b * block : block);
    const size_t request_bytes =
        kDtlsOverhead + kCoapFixed + options + (chunk > 0 ? 1 + chunk : 0);
    const bool ok = RoundTrip(request_bytes, [&]() -> size_t {
      if (!last) return ResponseDatagram(0, true);  // 2.31 Continue
      ++stats_.handled;
      response = endpoint_.Handle(identity_, request, buffer);
      blockwise_response = response.size > block;
      return ResponseDatagram(blockwise_response ? block : response.size,
                              blockwise_response || request_blocks > 1);
    });
    if (!ok) {
      ++stats_.exchanges_failed;
      result.status = Status::DeadlineExceeded();
      return;
    }
  }
  // Block2: the remaining blocks of a large body, one round trip each.
  const size_t response_blocks = BlockCount(response.size, block);
  for (size_t b = 1; b < response_blocks; ++b) {
    const size_t chunk =
        b + 1 == response_blocks ? response.size - b * block : block;
    const size_t request_bytes = kDtlsOverhead + kCoapFixed +
                                 PathOptionBytes(request.path) + kBlockOption;
    if (!RoundTrip(request_bytes,
                   [&]() -> size_t { return ResponseDatagram(chunk, true); })) {
      ++stats_.exchanges_failed;
      result.status = Status::DeadlineExceeded();
      return;
    }
  }
  result.status = response.status;
  result.code = response.code;
  result.content_format = response.content_format;
  result.payload_size = response.status.ok() ? response.size : 0;
}

Status LoopbackTransport::StartRequest(const TransportRequest& request,
                                       ByteSpan response_buffer) {
  if (request_started_ || request_ready_) {
    return Status::FailedPrecondition();
  }
  if (request.path == nullptr || request.path[0] == '\0' ||
      request.path[0] == '/' ||
      (request.payload_source != nullptr && !request.payload.empty())) {
    return Status::InvalidArgument();
  }
  if ((request.payload_source != nullptr || request.response_sink != nullptr) &&
      !streams_bodies()) {
    return Status::Unimplemented();
  }
  request_ = request;
  request_buffer_ = response_buffer;
  request_started_ = true;
  return Status::Ok();
}

bool LoopbackTransport::TakeResult(TransportResult& result) {
  if (!request_ready_) return false;
  result = request_result_;
  request_ready_ = false;
  return true;
}

void LoopbackTransport::Cancel() {
  request_started_ = false;
  request_ready_ = false;
}

Status LoopbackTransport::StartObserve(const char* path,
                                       ByteSpan notification_buffer) {
  if (observe_active_) return Status::FailedPrecondition();
  if (path == nullptr || path[0] == '\0' || path[0] == '/') {
    return Status::InvalidArgument();
  }
  observe_path_ = path;
  observe_buffer_ = notification_buffer;
  observe_active_ = true;
  observe_registering_ = true;
  server_observing_ = false;
  notification_ready_ = false;
  return Status::Ok();
}

bool LoopbackTransport::TakeNotification(TransportResult& result) {
  if (!notification_ready_) return false;
  result = notification_;
  notification_ready_ = false;
  return true;
}

void LoopbackTransport::StopObserve() {
  observe_active_ = false;
  observe_registering_ = false;
  server_observing_ = false;
  notification_ready_ = false;
}

void LoopbackTransport::Reset() {
  Cancel();
  StopObserve();
}

StatusWithSize LoopbackTransport::Poll(uint32_t /*timeout_ms*/) {
  if (request_started_) {
    request_started_ = false;
    RunExchange(request_, request_buffer_, request_result_);
    request_ready_ = true;
  }
  if (observe_active_ && observe_registering_) {
    observe_registering_ = false;
    TransportRequest get;
    get.path = observe_path_;
    const uint64_t version =
        endpoint_.ResourceVersion(identity_, observe_path_);
    RunExchange(get, observe_buffer_, notification_);
    notification_ready_ = true;
    ++stats_.notifications;
    // A streaming transport keeps an observation whose notification did not
    // fit (the client fetches it into a sink).
    server_observing_ = notification_.code == wire::kCoapContent &&
                        (notification_.status.ok() ||
                         (streams_bodies() &&
                          notification_.status == Status::ResourceExhausted()));
    observed_version_ = version;
  } else if (observe_active_ && server_observing_) {
    const uint64_t version =
        endpoint_.ResourceVersion(identity_, observe_path_);
    if (version != observed_version_) {
      observed_version_ = version;
      // A confirmable notification: server -> client, ACK back, retried.
      TransportRequest get;
      get.path = observe_path_;
      bool delivered = false;
      size_t notification_bytes = 0;
      bool acknowledged = false;
      for (uint32_t attempt = 0; attempt <= link_.max_retransmit; ++attempt) {
        if (!delivered) {
          const CoapResponse r =
              endpoint_.Handle(identity_, get, observe_buffer_);
          ++stats_.handled;
          notification_bytes =
              ResponseDatagram(r.size, r.size > link_.block_size) +
              kObserveOption;
          if (!SendDatagram(notification_bytes)) continue;
          delivered = true;
          notification_ = TransportResult{};
          notification_.status = r.status;
          notification_.code = r.code;
          notification_.content_format = r.content_format;
          notification_.payload_size = r.status.ok() ? r.size : 0;
          notification_ready_ = true;
          ++stats_.notifications;
        } else if (!SendDatagram(notification_bytes)) {
          continue;  // retransmission lost too
        }
        if (SendDatagram(kDtlsOverhead + 4)) {  // empty ACK
          acknowledged = true;
          break;
        }
      }
      // Never acknowledged: the server forgets the observer (RFC 7641
      // section 4.5); the client is not told.
      if (!acknowledged) server_observing_ = false;
    }
  }
  return StatusWithSize(0);
}

}  // namespace edgeadmm
