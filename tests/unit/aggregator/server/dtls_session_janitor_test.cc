// The record headers that make the daemon drop an established session: only
// a client's first ClientHello (handshake, epoch 0, sequence 0).
#include "edgeadmm/server/dtls_session_janitor.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace edgeadmm::server {
namespace {

// A DTLS 1.2 record header: type, version, epoch, 48-bit sequence, length.
struct Header {
  uint8_t bytes[13] = {22, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 60};
};

TEST(DtlsSessionJanitorTest, FirstClientHelloHeaderIsRecognised) {
  Header h;
  EXPECT_TRUE(IsFirstClientHelloHeader(h.bytes, sizeof(h.bytes)));
}

TEST(DtlsSessionJanitorTest, OtherRecordHeadersAreNot) {
  Header later_handshake;
  later_handshake.bytes[10] = 1;  // sequence 1 in epoch 0
  EXPECT_FALSE(IsFirstClientHelloHeader(later_handshake.bytes, 13));
  Header next_epoch;
  next_epoch.bytes[4] = 1;  // epoch 1 (encrypted handshake)
  EXPECT_FALSE(IsFirstClientHelloHeader(next_epoch.bytes, 13));
  Header high_sequence;
  high_sequence.bytes[5] = 0x80;  // top byte of the sequence number
  EXPECT_FALSE(IsFirstClientHelloHeader(high_sequence.bytes, 13));
  Header application_data;
  application_data.bytes[0] = 23;
  EXPECT_FALSE(IsFirstClientHelloHeader(application_data.bytes, 13));
  Header alert;
  alert.bytes[0] = 21;
  EXPECT_FALSE(IsFirstClientHelloHeader(alert.bytes, 13));
  Header short_header;
  EXPECT_FALSE(IsFirstClientHelloHeader(short_header.bytes, 12));
}

}  // namespace
}  // namespace edgeadmm::server
