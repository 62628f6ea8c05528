// The SDK's CoAP client streaming bodies (TransportRequest::payload_source
// and response_sink, issue 15): against an in-memory CoAP server that
// reassembles Block1 uploads and serves Block2 bodies, with the faults a
// test chooses (a lost request, a stale block, a resource changed midway).
// Also runs on the MCU: the large buffers are static.
#include <gtest/gtest.h>

#include <cstring>
#include <new>

#include "edgeadmm/coap/coap_client.h"
#include "fake_clock.h"

namespace edgeadmm::coap {
namespace {

constexpr size_t kDatagram = CoapDatagramBytes(1024);
constexpr size_t kMaxBody = 110 * 1024;
constexpr uint8_t kContent = (2 << 5) | 5;
constexpr uint8_t kChanged = (2 << 5) | 4;
constexpr uint8_t kNotFound = (4 << 5) | 4;

ConstByteSpan Bytes(const void* data, size_t size) {
  return ConstByteSpan(static_cast<const std::byte*>(data), size);
}

// Byte `i` of the body version `version` the server serves (or of the
// upload a source produces, version 9): no two nearby blocks alike.
uint8_t BodyByte(size_t i, int version) {
  return static_cast<uint8_t>((i * 131 + (i >> 8) * 7 + version * 29 + 1));
}

// What the server reassembled from Block1 uploads, and the sink's copy.
uint8_t g_upload[kMaxBody];
uint8_t g_sunk[kMaxBody];

// An in-memory CoAP server behind the client's DatagramLink: each request
// the client sends is answered at once (piggybacked in the ACK unless a
// fault says otherwise); the answers wait in a small queue for Receive.
class PeerLink final : public DatagramLink {
 public:
  // The resource GET serves: version 0, then (after `switch_after_block`
  // of version 0 was served) version 1, each `body_size[version]` bytes
  // with ETag "A" / "B", or `code` with a short text if not 2.05.
  size_t body_size[2] = {0, 0};
  int version = 0;
  int switch_after_block = -1;
  uint8_t code = kContent;
  uint8_t szx = 6;
  // Faults: the `drop_request`-th request (1-based) is lost; the GET of
  // block `stale_block` is answered with an empty ACK, then the previous
  // block again (under the current token), then the right one.
  size_t drop_request = 0;
  int stale_block = -1;
  // What the server saw.
  size_t requests = 0;
  size_t upload_size = 0;
  bool content_format_seen = false;  // on any upload block
  uint32_t size1 = 0;
  bool size1_seen = false;
  // The payloads of the transmissions of Block1 number `capture_block`.
  int capture_block = -1;
  size_t captures = 0;
  uint8_t capture[2][1024];
  size_t capture_size[2] = {};

  Status Send(ConstByteSpan d) override {
    MessageView m;
    EXPECT_TRUE(ParseMessage(d, m).ok());
    if (m.type != MessageType::kConfirmable || m.code == 0) return Status::Ok();
    ++requests;
    Capture(m);
    if (requests == drop_request) return Status::Ok();
    if (m.code == static_cast<uint8_t>(CoapMethod::kPost)) {
      Upload(m);
    } else {
      Serve(m);
    }
    return Status::Ok();
  }
  StatusWithSize Receive(ByteSpan buffer) override {
    if (queued_ == 0) return StatusWithSize(0);
    const size_t n = size_[0];
    EXPECT_LE(n, buffer.size());
    std::memcpy(buffer.data(), queue_[0], n);
    for (size_t i = 1; i < queued_; ++i) {
      std::memcpy(queue_[i - 1], queue_[i], size_[i]);
      size_[i - 1] = size_[i];
    }
    --queued_;
    return StatusWithSize(n);
  }
  void Wait(uint32_t timeout_ms) override {
    if (queued_ == 0) g_now += timeout_ms;  // time passes while waiting
  }

 private:
  // Keeps the payload of each transmission of Block1 `capture_block`.
  void Capture(const MessageView& m) {
    uint32_t value = 0;
    BlockValue block;
    if (!FindUintOption(m, kOptionBlock1, value).ok() ||
        !DecodeBlock(value, block).ok() ||
        static_cast<int>(block.num) != capture_block || captures == 2 ||
        m.payload.size() > sizeof(capture[0])) {
      return;
    }
    std::memcpy(capture[captures], m.payload.data(), m.payload.size());
    capture_size[captures++] = m.payload.size();
  }

  // A Block1 block (or a whole body): stored at its offset; 2.31 asks for
  // the next, 2.04 ends the upload.
  void Upload(const MessageView& m) {
    uint32_t value = 0;
    BlockValue block{0, false, szx};
    if (FindUintOption(m, kOptionBlock1, value).ok()) {
      EXPECT_TRUE(DecodeBlock(value, block).ok());
    }
    if (FindUintOption(m, kOptionContentFormat, value).ok()) {
      content_format_seen = true;
    }
    if (FindUintOption(m, kOptionSize1, value).ok()) {
      size1_seen = true;
      size1 = value;
      EXPECT_EQ(block.num, 0u);  // Size1 goes with block 0 only
    }
    const size_t offset = block.offset();
    ASSERT_LE(offset + m.payload.size(), sizeof(g_upload));
    if (!m.payload.empty()) {
      std::memcpy(g_upload + offset, m.payload.data(), m.payload.size());
    }
    MessageWriter w = Begin(MessageType::kAcknowledgement,
                            block.more ? (2 << 5) | 31 : kChanged, m);
    if (FindUintOption(m, kOptionBlock1, value).ok()) {
      w.AddUintOption(kOptionBlock1, value);
    }
    if (!block.more) upload_size = offset + m.payload.size();
    Queue(w);
  }

  // A GET of Block2 number n (0 without the option).
  void Serve(const MessageView& m) {
    uint32_t value = 0;
    BlockValue asked{0, false, szx};
    if (FindUintOption(m, kOptionBlock2, value).ok()) {
      EXPECT_TRUE(DecodeBlock(value, asked).ok());
    }
    if (code != kContent) {
      MessageWriter w = Begin(MessageType::kAcknowledgement, code, m);
      w.SetPayload(Bytes("no such task", 12));
      Queue(w);
      return;
    }
    if (static_cast<int>(asked.num) == stale_block && asked.num > 0) {
      MessageWriter ack(Slot());
      ack.Begin(MessageType::kAcknowledgement, 0, m.message_id, {});
      Queue(ack);
      Block(MessageType::kNonConfirmable, m, asked.num - 1);
      Block(MessageType::kNonConfirmable, m, asked.num);
      stale_block = -1;
    } else {
      Block(MessageType::kAcknowledgement, m, asked.num);
    }
    if (static_cast<int>(asked.num) == switch_after_block && version == 0) {
      version = 1;
    }
  }

  // Block `num` of the current version in reply to `m`.
  void Block(MessageType type, const MessageView& m, uint32_t num) {
    const size_t block_size = size_t{16} << szx;
    const size_t size = body_size[version];
    const size_t offset = size_t{num} * block_size;
    const size_t left = offset < size ? size - offset : 0;
    const size_t n = left < block_size ? left : block_size;
    MessageWriter w = Begin(type, kContent, m);
    const char etag = static_cast<char>('A' + version);
    w.AddOption(kOptionETag, Bytes(&etag, 1));
    w.AddUintOption(kOptionContentFormat, 0);
    const bool blockwise = size > block_size;
    if (blockwise) {
      w.AddUintOption(kOptionBlock2,
                      EncodeBlock({num, offset + n < size, szx}));
    }
    const ByteSpan payload = w.ReservePayload(n);
    for (size_t i = 0; i < payload.size(); ++i) {
      payload[i] = static_cast<std::byte>(BodyByte(offset + i, version));
    }
    Queue(w);
  }

  MessageWriter Begin(MessageType type, uint8_t response_code,
                      const MessageView& m) {
    MessageWriter w(Slot());
    const uint16_t mid = type == MessageType::kAcknowledgement
                             ? m.message_id
                             : static_cast<uint16_t>(0x7000 + ++separate_);
    w.Begin(type, response_code, mid, m.token);
    return w;
  }
  ByteSpan Slot() {
    return ByteSpan(reinterpret_cast<std::byte*>(queue_[queued_]), kDatagram);
  }
  void Queue(MessageWriter& w) {
    const StatusWithSize n = w.Finish();
    ASSERT_TRUE(n.ok());
    ASSERT_LT(queued_, kQueue);
    size_[queued_++] = n.size();
  }

  static constexpr size_t kQueue = 4;
  uint8_t queue_[kQueue][kDatagram];
  size_t size_[kQueue] = {};
  size_t queued_ = 0;
  uint16_t separate_ = 0;  // message ids of separate responses
};

// A body produced on demand (BodyByte version 9), counting reads per
// 1024-byte block; `fail_at` makes the read of that offset fail.
class PatternSource final : public BodySource {
 public:
  explicit PatternSource(size_t size) : size_(size) {}
  size_t size() const override { return size_; }
  Status Read(size_t offset, ByteSpan out) override {
    EXPECT_LE(offset + out.size(), size_);
    if (offset / 1024 < kCounted) ++reads[offset / 1024];
    if (offset == fail_at) return Status::DataLoss();
    for (size_t i = 0; i < out.size(); ++i) {
      out[i] = static_cast<std::byte>(BodyByte(offset + i, 9));
    }
    return Status::Ok();
  }

  static constexpr size_t kCounted = 128;
  uint32_t reads[kCounted] = {};
  size_t fail_at = static_cast<size_t>(-1);

 private:
  size_t size_;
};

// Keeps what it is given in g_sunk; counts the writes, each offset it saw
// restart at 0, and writes that are not where the body so far ends.
class RecordingSink final : public BodySink {
 public:
  Status Write(size_t offset, ConstByteSpan bytes) override {
    ++writes;
    if (offset == 0) {
      ++restarts;
      size = 0;
    }
    if (offset != size) ++out_of_order;
    EXPECT_FALSE(bytes.empty());
    if (offset + bytes.size() > sizeof(g_sunk)) return Status::OutOfRange();
    std::memcpy(g_sunk + offset, bytes.data(), bytes.size());
    size = offset + bytes.size();
    if (cancel_at_write != 0 && writes == cancel_at_write) {
      return Status::Cancelled();
    }
    return Status::Ok();
  }

  size_t writes = 0;
  size_t restarts = 0;  // writes at offset 0
  size_t out_of_order = 0;
  size_t size = 0;
  size_t cancel_at_write = 0;
};

// True if g_sunk[0, size) is body version `version`.
bool SunkIsBody(size_t size, int version) {
  for (size_t i = 0; i < size; ++i) {
    if (g_sunk[i] != BodyByte(i, version)) return false;
  }
  return true;
}

PeerLink g_peer;  // static: a datagram queue and captures (MCU stack)

class CoapClientStreamingTest : public ::testing::Test {
 protected:
  void SetUp() override { MakeClient(6); }
  void MakeClient(uint8_t szx) {
    g_now = 1000;
    new (&g_peer) PeerLink();
    g_peer.szx = szx;
    std::memset(g_upload, 0, sizeof(g_upload));
    std::memset(g_sunk, 0, sizeof(g_sunk));
    CoapClientConfig c;
    c.link = &g_peer;
    c.now_ms = &Now;
    c.tx_buffer = ByteSpan(tx_, sizeof(tx_));
    c.rx_buffer = ByteSpan(rx_, sizeof(rx_));
    c.block_szx = szx;
    client_ = new (storage_) CoapClient(c);
  }
  bool Result(TransportResult& r) { return PollForResult(*client_, r); }
  Status Get(BodySink* sink, TransportResult& r) {
    TransportRequest request;
    request.path = "v1/task";
    request.response_sink = sink;
    const Status started = client_->StartRequest(request, Response());
    if (!started.ok()) return started;
    return Result(r) ? Status::Ok() : Status::DeadlineExceeded();
  }
  // A POST of v1/update whose body `source` gives.
  Status Post(BodySource* source) {
    TransportRequest request;
    request.method = CoapMethod::kPost;
    request.path = "v1/update";
    request.payload_source = source;
    return client_->StartRequest(request, Response());
  }
  // GETs the peer's resource into a new sink: expects a 2.05 whose body,
  // `size` bytes of version `version`, came in `writes` writes in order,
  // `restarts` of them at offset 0.
  void ExpectDownload(size_t size, int version, size_t writes,
                      size_t restarts) {
    RecordingSink sink;
    TransportResult r;
    ASSERT_TRUE(Get(&sink, r).ok());
    EXPECT_TRUE(r.status.ok());
    EXPECT_EQ(r.code, kContent);
    EXPECT_EQ(r.payload_size, size);
    EXPECT_EQ(sink.size, size);
    EXPECT_EQ(sink.writes, writes);
    EXPECT_EQ(sink.restarts, restarts);
    EXPECT_EQ(sink.out_of_order, 0u);
    EXPECT_TRUE(SunkIsBody(size, version));
  }
  ByteSpan Response() { return ByteSpan(response_, sizeof(response_)); }

  std::byte tx_[kDatagram];
  std::byte rx_[kDatagram];
  std::byte response_[128];  // a streaming device's small response buffer
  alignas(CoapClient) unsigned char storage_[sizeof(CoapClient)];
  CoapClient* client_ = nullptr;
};

TEST_F(CoapClientStreamingTest, StreamsBodies) {
  EXPECT_TRUE(client_->streams_bodies());
}

// ~100 KB uploaded from a source, block by block: the server reassembles
// exactly the source's bytes, told the size in Size1 on block 0.
TEST_F(CoapClientStreamingTest, Block1UploadFromASource) {
  PatternSource source(100 * 1024 + 123);
  ASSERT_TRUE(Post(&source).ok());
  TransportResult r;
  ASSERT_TRUE(Result(r));
  EXPECT_TRUE(r.status.ok());
  EXPECT_EQ(r.code, kChanged);
  EXPECT_EQ(g_peer.requests, 101u);  // 100 whole blocks and 123 bytes
  EXPECT_TRUE(g_peer.size1_seen);
  EXPECT_EQ(g_peer.size1, source.size());
  ASSERT_EQ(g_peer.upload_size, source.size());
  size_t mismatches = 0;
  for (size_t i = 0; i < source.size(); ++i) {
    mismatches += g_upload[i] != BodyByte(i, 9) ? 1 : 0;
  }
  EXPECT_EQ(mismatches, 0u);
  for (size_t b = 0; b < 101; ++b) EXPECT_EQ(source.reads[b], 1u) << b;
}

// A lost block is sent again after the ACK timeout: read from the source
// again, the same bytes.
TEST_F(CoapClientStreamingTest, ARetransmittedBlockIsReadAgainIdentically) {
  PatternSource source(8 * 1024);
  g_peer.drop_request = 6;  // block 5's first transmission
  g_peer.capture_block = 5;
  ASSERT_TRUE(Post(&source).ok());
  TransportResult r;
  ASSERT_TRUE(Result(r));
  EXPECT_TRUE(r.status.ok());
  EXPECT_EQ(r.code, kChanged);
  EXPECT_EQ(client_->retransmissions(), 1u);
  EXPECT_EQ(g_peer.requests, 9u);
  EXPECT_EQ(source.reads[5], 2u);  // the retransmission read it again
  EXPECT_EQ(source.reads[4], 1u);
  // Both transmissions of block 5 (the lost one and the retransmission)
  // carried the source's bytes.
  ASSERT_EQ(g_peer.captures, 2u);
  for (size_t t = 0; t < 2; ++t) {
    ASSERT_EQ(g_peer.capture_size[t], 1024u);
    size_t mismatches = 0;
    for (size_t i = 0; i < 1024; ++i) {
      mismatches += g_peer.capture[t][i] != BodyByte(5 * 1024 + i, 9) ? 1 : 0;
    }
    EXPECT_EQ(mismatches, 0u) << t;
  }
  ASSERT_EQ(g_peer.upload_size, source.size());
  size_t mismatches = 0;
  for (size_t i = 0; i < source.size(); ++i) {
    mismatches += g_upload[i] != BodyByte(i, 9) ? 1 : 0;
  }
  EXPECT_EQ(mismatches, 0u);
}

// A source error ends the exchange with that status, after the blocks
// before it; at block 0 StartRequest succeeds and the result reports it.
TEST_F(CoapClientStreamingTest, ASourceErrorEndsTheUpload) {
  PatternSource source(8 * 1024);
  source.fail_at = 3 * 1024;
  ASSERT_TRUE(Post(&source).ok());
  TransportResult r;
  ASSERT_TRUE(Result(r));
  EXPECT_EQ(r.status, Status::DataLoss());
  EXPECT_EQ(g_peer.requests, 3u);
  PatternSource first(4 * 1024);
  first.fail_at = 0;
  ASSERT_TRUE(Post(&first).ok());
  ASSERT_TRUE(client_->TakeResult(r));
  EXPECT_EQ(r.status, Status::DataLoss());
  EXPECT_EQ(g_peer.requests, 3u);  // nothing sent
}

// A payload and a source at once is a caller error; a source of 0 bytes is
// an empty body (no Content-Format, no payload, no Block1).
TEST_F(CoapClientStreamingTest, PayloadAndSourceAreExclusive) {
  PatternSource empty(0);
  TransportRequest request;
  request.method = CoapMethod::kPost;
  request.path = "v1/update";
  request.payload = Bytes("x", 1);
  request.payload_source = &empty;
  EXPECT_EQ(client_->StartRequest(request, Response()),
            Status::InvalidArgument());
  EXPECT_EQ(g_peer.requests, 0u);
  request.payload = ConstByteSpan();
  ASSERT_TRUE(client_->StartRequest(request, Response()).ok());
  TransportResult r;
  ASSERT_TRUE(Result(r));
  EXPECT_TRUE(r.status.ok());
  EXPECT_EQ(g_peer.requests, 1u);
  EXPECT_FALSE(g_peer.size1_seen);
  EXPECT_FALSE(g_peer.content_format_seen);
  EXPECT_EQ(g_peer.upload_size, 0u);
}

// A Block2 body of several blocks into a sink while the response buffer
// holds 128 bytes: each block written once, in order; a one-datagram body
// is one write at 0, an empty body none.
TEST_F(CoapClientStreamingTest, Block2DownloadIntoASink) {
  g_peer.body_size[0] = 5000;
  ExpectDownload(5000, 0, 5, 1);
  g_peer.body_size[0] = 100;
  ExpectDownload(100, 0, 1, 1);
  g_peer.body_size[0] = 0;
  ExpectDownload(0, 0, 0, 0);
}

// The server answers the GET of block 3 with block 2 again (under the
// current token) before block 3: the sink gets block 2 once.
TEST_F(CoapClientStreamingTest, ADuplicatedBlockIsNotWrittenTwice) {
  g_peer.body_size[0] = 6000;
  g_peer.stale_block = 3;
  ExpectDownload(6000, 0, 6, 1);
}

// The resource changes after its block 1 was served (ETag A -> B): the
// client starts again at block 0, the sink sees offset 0 again and ends
// with the whole new body: A's blocks 0-1, then B's 0-3.
TEST_F(CoapClientStreamingTest, AnETagChangeRestartsTheSinkAtZero) {
  g_peer.body_size[0] = 5000;
  g_peer.body_size[1] = 3500;
  g_peer.switch_after_block = 1;
  ExpectDownload(3500, 1, 2 + 4, 2);
}

// A sink that has read enough returns CANCELLED: no further GET, and the
// result reports CANCELLED.
TEST_F(CoapClientStreamingTest, ASinkErrorStopsTheDownload) {
  g_peer.body_size[0] = 8000;
  RecordingSink sink;
  sink.cancel_at_write = 3;
  TransportResult r;
  ASSERT_TRUE(Get(&sink, r).ok());
  EXPECT_EQ(r.status, Status::Cancelled());
  EXPECT_EQ(g_peer.requests, 3u);
  EXPECT_EQ(sink.writes, 3u);
  g_now += 100000;  // nothing more is sent later either
  EXPECT_TRUE(client_->Poll(0).ok());
  EXPECT_FALSE(client_->TakeResult(r));
  EXPECT_EQ(g_peer.requests, 3u);
}

// An error response's body (a StatusBody) goes to the response buffer,
// not to the sink.
TEST_F(CoapClientStreamingTest, AnErrorBodyGoesToTheBuffer) {
  g_peer.code = kNotFound;
  RecordingSink sink;
  TransportResult r;
  ASSERT_TRUE(Get(&sink, r).ok());
  EXPECT_TRUE(r.status.ok());
  EXPECT_EQ(r.code, kNotFound);
  EXPECT_EQ(sink.writes, 0u);
  ASSERT_EQ(r.payload_size, 12u);
  EXPECT_EQ(std::memcmp(response_, "no such task", 12), 0);
}

}  // namespace
}  // namespace edgeadmm::coap
