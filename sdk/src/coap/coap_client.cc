#include "edgeadmm/coap/coap_client.h"

#include <cstring>
#include <initializer_list>

namespace edgeadmm::coap {
namespace {

constexpr uint8_t kContinue = (2 << 5) | 31;  // 2.31

bool IsResponseCode(uint8_t code) { return (code >> 5) >= 2; }

ConstByteSpan View(const uint8_t* bytes, size_t size) {
  return ConstByteSpan(reinterpret_cast<const std::byte*>(bytes), size);
}

// The ETag of a message (1 to 8 bytes, RFC 7252 section 5.10.6); empty if
// absent or ill-formed.
ConstByteSpan FindETag(const MessageView& m) {
  OptionIterator it(m);
  Option option;
  while (it.Next(option)) {
    if (option.number != kOptionETag) continue;
    return option.value.size() <= 8 ? option.value : ConstByteSpan();
  }
  return ConstByteSpan();
}

}  // namespace

CoapClient::CoapClient(const CoapClientConfig& config) : config_(config) {
  rng_ = config.seed != 0 ? config.seed : 1;
  next_mid_ = static_cast<uint16_t>(Random());
  next_token_ = Random();
}

uint32_t CoapClient::Random() {  // xorshift32: jitter and ids, not secrets
  rng_ ^= rng_ << 13;
  rng_ ^= rng_ >> 17;
  rng_ ^= rng_ << 5;
  return rng_;
}

Status CoapClient::StartRequest(const TransportRequest& request,
                                ByteSpan response_buffer) {
  if (request_.active) return Status::FailedPrecondition();
  if (request.path == nullptr) return Status::InvalidArgument();
  // A body comes from one place: the payload or the source.
  if (request.payload_source != nullptr && !request.payload.empty()) {
    return Status::InvalidArgument();
  }
  request_ = Exchange{};
  request_.active = true;
  request_.path = request.path;
  request_.method = request.method;
  request_.content_format = request.content_format;
  request_.payload = request.payload;
  request_.source = request.payload_source;
  request_.sink = request.response_sink;
  request_.buffer = response_buffer;
  request_.started_ms = config_.now_ms();
  const Status sent = SendNew(request_);
  if (!sent.ok() && request_.source_failed) {
    Finish(request_, sent);  // the source's error ends the exchange
    return Status::Ok();
  }
  if (!sent.ok()) request_ = Exchange{};
  return sent;
}

bool CoapClient::TakeResult(TransportResult& result) {
  CheckTimers(config_.now_ms());
  if (!request_.ready) return false;
  result = request_.result;
  request_ = Exchange{};
  return true;
}

void CoapClient::Cancel() { request_ = Exchange{}; }

Status CoapClient::StartObserve(const char* path,
                                ByteSpan notification_buffer) {
  if (observe_.active) return Status::FailedPrecondition();
  if (path == nullptr) return Status::InvalidArgument();
  observe_ = Exchange{};
  observe_.active = true;
  observe_.observe = true;
  observe_.path = path;
  observe_.buffer = notification_buffer;
  observe_.started_ms = config_.now_ms();
  const Status sent = SendNew(observe_);
  if (!sent.ok()) observe_ = Exchange{};
  std::memcpy(observe_.observe_token, observe_.token, sizeof(observe_.token));
  return sent;
}

bool CoapClient::TakeNotification(TransportResult& result) {
  CheckTimers(config_.now_ms());
  if (!observe_.ready) return false;
  result = observe_.result;
  observe_.ready = false;
  if (!observe_.active) observe_ = Exchange{};
  return true;
}

void CoapClient::StopObserve() { observe_ = Exchange{}; }

void CoapClient::Reconnect() {
  request_ = Exchange{};
  observe_ = Exchange{};
  config_.link->Reset();
}

size_t CoapClient::BodySize(const Exchange& e) {
  return e.source != nullptr ? e.source->size() : e.payload.size();
}

// A new confirmable message of exchange `e` (its next block, or its first).
Status CoapClient::SendNew(Exchange& e) {
  e.mid = next_mid_++;
  const uint32_t token = next_token_++;
  for (int i = 0; i < 4; ++i)
    e.token[i] = static_cast<uint8_t>(token >> (8 * i));
  e.awaiting_ack = true;
  e.retransmits = 0;
  // ACK_TIMEOUT x a random factor in [1, ACK_RANDOM_FACTOR = 1.5).
  e.timeout_ms =
      config_.ack_timeout_ms + Random() % (config_.ack_timeout_ms / 2 + 1);
  e.deadline_ms = config_.now_ms() + e.timeout_ms;
  return Transmit(e);
}

// Builds the datagram of `e`'s current block and sends it; a streamed body's
// block is read from its source into the datagram, each time (Transmit is
// also the retransmission).
Status CoapClient::Transmit(Exchange& e) {
  e.source_failed = false;
  const size_t block_size = size_t{1} << (config_.block_szx + 4);
  const size_t body_size = BodySize(e);
  MessageWriter w(config_.tx_buffer);
  w.Begin(MessageType::kConfirmable, static_cast<uint8_t>(e.method), e.mid,
          View(e.token, sizeof(e.token)));
  // The GETs of a notification's other blocks go without Observe.
  if (e.observe && !e.fetching) w.AddUintOption(kOptionObserve, 0);
  // Uri-Path segments up to a '?', then what follows it as the Uri-Query.
  const char* segment = e.path;
  while (*segment != '\0' && *segment != '?') {
    const size_t length = std::strcspn(segment, "/?");
    w.AddOption(kOptionUriPath,
                View(reinterpret_cast<const uint8_t*>(segment), length));
    segment += length;
    if (*segment == '/') ++segment;
  }
  if (body_size != 0) w.AddUintOption(kOptionContentFormat, e.content_format);
  if (*segment == '?') {
    w.AddOption(kOptionUriQuery,
                View(reinterpret_cast<const uint8_t*>(segment + 1),
                     std::strlen(segment + 1)));
  }
  if (e.block2 != 0) {
    w.AddUintOption(kOptionBlock2,
                    EncodeBlock({e.block2, false, config_.block_szx}));
  }
  size_t offset = 0;
  size_t chunk = body_size;
  if (body_size > block_size) {  // Block1 (RFC 7959 section 2.5)
    offset = size_t{e.block1} * block_size;
    const size_t left = body_size - offset;
    chunk = left < block_size ? left : block_size;
    const bool more = offset + chunk < body_size;
    w.AddUintOption(kOptionBlock1,
                    EncodeBlock({e.block1, more, config_.block_szx}));
    if (e.block1 == 0) {
      w.AddUintOption(kOptionSize1, static_cast<uint32_t>(body_size));
    }
  }
  if (e.source == nullptr) {
    w.SetPayload(e.payload.subspan(offset, chunk));
  } else {
    const ByteSpan space = w.ReservePayload(chunk);
    if (!space.empty()) {
      const Status read = e.source->Read(offset, space);
      if (!read.ok()) {
        e.source_failed = true;
        return read;
      }
    }
  }
  const StatusWithSize n = w.Finish();
  if (!n.ok()) return n.status();
  return config_.link->Send(config_.tx_buffer.first(n.size()));
}

void CoapClient::Finish(Exchange& e, Status status) {
  e.result.status = status;
  e.ready = true;
  e.active = false;
  e.awaiting_ack = false;
}

void CoapClient::SendEmpty(MessageType type, uint16_t mid) {
  MessageWriter w(config_.tx_buffer);
  w.Begin(type, 0, mid, {});
  const StatusWithSize n = w.Finish();
  if (n.ok()) (void)config_.link->Send(config_.tx_buffer.first(n.size()));
}

bool CoapClient::SeenBefore(uint16_t mid) {
  for (size_t i = 0; i < seen_count_; ++i) {
    if (seen_[i] == mid) return true;
  }
  seen_[seen_next_] = mid;
  seen_next_ = (seen_next_ + 1) % (sizeof(seen_) / sizeof(seen_[0]));
  if (seen_count_ < sizeof(seen_) / sizeof(seen_[0])) ++seen_count_;
  return false;
}

void CoapClient::HandleDatagram(size_t size) {
  MessageView m;
  if (!ParseMessage(config_.rx_buffer.first(size), m).ok()) return;
  Exchange* slots[] = {&request_, &observe_};
  const bool same_token_size = m.token.size() == 4;
  // Whatever the server sends restarts the silence clock, except a pushed
  // notification: the gateway's heartbeat proves the session is alive, not
  // that the exchange in flight is served.
  const bool pushed =
      observe_.active && observe_.answered && !observe_.fetching &&
      m.type != MessageType::kAcknowledgement && same_token_size &&
      std::memcmp(m.token.data(), observe_.observe_token, 4) == 0;
  if (!pushed) last_heard_ms_ = config_.now_ms();
  auto by_token = [&]() -> Exchange* {
    for (Exchange* e : slots) {
      if ((e->active || e->observe) && e->path != nullptr && same_token_size &&
          (std::memcmp(m.token.data(), e->token, 4) == 0 ||
           (e->observe &&
            std::memcmp(m.token.data(), e->observe_token, 4) == 0))) {
        return e;
      }
    }
    return nullptr;
  };
  if (m.type == MessageType::kAcknowledgement ||
      m.type == MessageType::kReset) {
    for (Exchange* e : slots) {
      if (!e->active || !e->awaiting_ack || m.message_id != e->mid) continue;
      if (m.type == MessageType::kReset) {
        Finish(*e, Status::Unavailable());
        return;
      }
      e->awaiting_ack = false;
      if (m.code == 0) {
        // Empty ACK: the response comes separately, within the time the
        // server may take to send it confirmably (MAX_TRANSMIT_WAIT).
        e->deadline_ms =
            config_.now_ms() + uint64_t{config_.ack_timeout_ms} * 3 / 2 *
                                   ((2u << config_.max_retransmit) - 1);
        return;
      }
      if (by_token() == e) HandleResponse(*e, m);
      return;
    }
    return;
  }
  if (!IsResponseCode(m.code)) {  // a request to us: nobody serves here
    if (m.type == MessageType::kConfirmable)
      SendEmpty(MessageType::kReset, m.message_id);
    return;
  }
  const bool confirmable = m.type == MessageType::kConfirmable;
  if (confirmable && SeenBefore(m.message_id)) {  // a duplicate
    SendEmpty(MessageType::kAcknowledgement, m.message_id);
    return;
  }
  Exchange* e = by_token();
  if (e == nullptr || !e->active) {
    SendEmpty(MessageType::kReset, m.message_id);  // unknown or stopped
    return;
  }
  if (confirmable) SendEmpty(MessageType::kAcknowledgement, m.message_id);
  e->awaiting_ack = false;
  HandleResponse(*e, m);
}

void CoapClient::HandleResponse(Exchange& e, const MessageView& m) {
  const size_t block_size = size_t{1} << (config_.block_szx + 4);
  uint32_t value = 0;
  BlockValue block;
  if (!e.observe && m.code == kContinue && BodySize(e) > block_size &&
      FindUintOption(m, kOptionBlock1, value).ok() &&
      DecodeBlock(value, block).ok() && block.num == e.block1) {
    ++e.block1;
    if (size_t{e.block1} * block_size < BodySize(e)) {
      const Status sent = SendNew(e);
      if (!sent.ok()) Finish(e, sent);
      return;
    }
  }
  // A notification (or the registration's response) carries the
  // registration's token; the GETs of its other blocks have their own.
  const bool notification =
      e.observe && std::memcmp(m.token.data(), e.observe_token, 4) == 0;
  TransportResult& r = e.result;
  r = TransportResult{};
  r.code = m.code;
  r.content_format = FindUintOption(m, kOptionContentFormat, value).ok()
                         ? static_cast<uint16_t>(value)
                         : TransportResult::kNoContentFormat;
  const bool has_block2 = FindUintOption(m, kOptionBlock2, value).ok() &&
                          DecodeBlock(value, block).ok();
  uint32_t observe_value = 0;
  const bool observe_on = FindUintOption(m, kOptionObserve, observe_value).ok();
  const ConstByteSpan etag = FindETag(m);
  ConstByteSpan payload = m.payload;
  size_t offset = 0;
  bool more = false;
  if (notification) {
    // A new representation, or its first block (RFC 7959 sections 2.6,
    // 3.4): it replaces whatever was being assembled.
    e.fetching = false;
    e.block2 = 0;
    e.received = 0;
    if (!observe_on) e.active = false;  // no Observe: the observation ended
    const bool first = !has_block2 || block.num == 0;
    if (!first && e.active) return;  // wait for the next notification
    more = first && has_block2 && block.more && e.active;
    if (!first || (has_block2 && block.more && !more)) {
      payload = ConstByteSpan();  // ended with a partial body: report it
    }
    // A body that cannot fit the buffer (its first block, with at least
    // one byte more if more blocks follow, or the Size2 it announces, is
    // larger): reported now instead of fetched block by block until it
    // overflows; a streaming client GETs it into a sink.
    uint32_t size2 = 0;
    if (e.active && (payload.size() + (more ? 1 : 0) > e.buffer.size() ||
                     (FindUintOption(m, kOptionSize2, size2).ok() &&
                      size2 > e.buffer.size()))) {
      Complete(e, Status::ResourceExhausted());
      return;
    }
  } else if (has_block2) {
    offset = block.offset();
    more = block.more;
    if (offset != e.received) return;  // not the block asked for: ignore
    if (offset != 0 && e.etag_size != 0 && !etag.empty() &&
        (etag.size() != e.etag_size ||
         std::memcmp(etag.data(), e.etag, e.etag_size) != 0)) {
      // The resource changed during the transfer (RFC 7959 section 2.4):
      // fetch it again from block 0.
      e.received = 0;
      e.block2 = 0;
      const Status sent = SendNew(e);
      if (!sent.ok()) Finish(e, sent);
      return;
    }
  }
  if (offset == 0) {  // block 0 or a whole body: remember its ETag
    e.etag_size = etag.size();
    if (!etag.empty()) std::memcpy(e.etag, etag.data(), etag.size());
  }
  // A success body goes to the request's sink if it has one; anything
  // else (an error's StatusBody, a notification) to the buffer.
  const bool to_sink = e.sink != nullptr && (m.code >> 5) == 2;
  const Status taken = TakeBlock(e, offset, payload, to_sink);
  if (!taken.ok()) {  // the buffer overflowed or the sink said stop
    Complete(e, taken);
    return;
  }
  if (more) {
    // The next block, one confirmable GET each (without Observe for a
    // notification's).
    e.block2 = block.num + 1;
    e.fetching = e.observe;
    const Status sent = SendNew(e);
    if (!sent.ok()) Finish(e, sent);
    return;
  }
  Complete(e, Status::Ok());
}

// Bytes [offset, offset + bytes.size()) of the body of `e`: to its sink or
// into its buffer. RESOURCE_EXHAUSTED if they do not fit the buffer, or the
// sink's error.
Status CoapClient::TakeBlock(Exchange& e, size_t offset, ConstByteSpan bytes,
                             bool to_sink) {
  if (to_sink) {
    if (!bytes.empty()) {
      const Status written = e.sink->Write(offset, bytes);
      if (!written.ok()) return written;
    }
  } else {
    if (bytes.size() > e.buffer.size() ||
        offset > e.buffer.size() - bytes.size()) {
      return Status::ResourceExhausted();
    }
    if (!bytes.empty()) {
      std::memcpy(e.buffer.data() + offset, bytes.data(), bytes.size());
    }
  }
  e.received = offset + bytes.size();
  return Status::Ok();
}

// The end of one body of `e`, reported with `status` (and the body's size if
// OK): a request is finished; an observation stays registered if it was
// (a notification too large for its buffer too: its other blocks are not
// fetched).
void CoapClient::Complete(Exchange& e, Status status) {
  e.result.payload_size = status.ok() ? e.received : 0;
  e.fetching = false;
  e.block2 = 0;
  e.received = 0;
  if (!e.observe) {
    Finish(e, status);
    return;
  }
  e.result.status = status;
  e.ready = true;
  e.answered = true;
  e.deadline_ms = 0;  // notifications come when they come
  e.awaiting_ack = false;
}

bool CoapClient::AwaitsServer(const Exchange& e) {
  return e.active && (!e.observe || !e.answered || e.fetching);
}

uint64_t CoapClient::SilentSince(const Exchange& e) const {
  return e.started_ms > last_heard_ms_ ? e.started_ms : last_heard_ms_;
}

void CoapClient::CheckSilence(uint64_t now) {
  if (config_.silence_timeout_ms == 0) return;
  if (config_.link->connecting()) {
    last_heard_ms_ = now;  // the handshake's datagrams are the link's own
    return;
  }
  bool silent = false;
  for (const Exchange* e : {&request_, &observe_}) {
    if (AwaitsServer(*e) &&
        now - SilentSince(*e) >= config_.silence_timeout_ms) {
      silent = true;
    }
  }
  if (!silent) return;
  for (Exchange* e : {&request_, &observe_}) {
    if (e->active) Finish(*e, Status::DeadlineExceeded());
  }
  config_.link->Reset();
}

void CoapClient::CheckTimers(uint64_t now) {
  CheckSilence(now);
  for (Exchange* e : {&request_, &observe_}) {
    if (!e->active || e->deadline_ms == 0 || now < e->deadline_ms) continue;
    if (!e->awaiting_ack) {  // no separate response in time
      Finish(*e, Status::DeadlineExceeded());
      continue;
    }
    if (e->retransmits >= config_.max_retransmit) {
      Finish(*e, Status::DeadlineExceeded());
      continue;
    }
    ++e->retransmits;
    ++retransmissions_;
    e->timeout_ms *= 2;
    e->deadline_ms = now + e->timeout_ms;
    const Status sent = Transmit(*e);
    if (!sent.ok()) Finish(*e, sent);
  }
}

uint64_t CoapClient::NextDeadline() const {
  uint64_t next = 0;
  for (const Exchange* e : {&request_, &observe_}) {
    if (e->active && e->deadline_ms != 0 &&
        (next == 0 || e->deadline_ms < next)) {
      next = e->deadline_ms;
    }
    if (config_.silence_timeout_ms != 0 && AwaitsServer(*e)) {
      const uint64_t silence = SilentSince(*e) + config_.silence_timeout_ms;
      if (next == 0 || silence < next) next = silence;
    }
  }
  return next;
}

StatusWithSize CoapClient::Poll(uint32_t timeout_ms) {
  const uint64_t start = config_.now_ms();
  uint32_t wait = timeout_ms;
  const uint64_t next = NextDeadline();
  if (next != 0) {
    const uint64_t until = next > start ? next - start : 0;
    if (until < wait) wait = static_cast<uint32_t>(until);
  }
  if (wait > 0) config_.link->Wait(wait);
  for (;;) {
    const StatusWithSize got = config_.link->Receive(config_.rx_buffer);
    if (!got.ok()) {  // e.g. ICMP unreachable, a failed DTLS handshake:
      for (Exchange* e : {&request_, &observe_}) {  // what is in flight fails
        if (e->active) Finish(*e, got.status());
      }
      break;
    }
    if (got.size() == 0) break;
    HandleDatagram(got.size());
  }
  const uint64_t now = config_.now_ms();
  CheckTimers(now);
  return StatusWithSize(static_cast<size_t>(now - start));
}

}  // namespace edgeadmm::coap
