#include "edgeadmm/wire/coap_code.h"

#include <gtest/gtest.h>

namespace edgeadmm::wire {
namespace {

TEST(CoapCodeTest, DocumentedCodesMapBothWays) {
  // (code, status) pairs of docs/protocol.md, "Response codes".
  const struct {
    uint8_t code;
    Status status;
  } pairs[] = {
      {kCoapBadRequest, Status::InvalidArgument()},
      {kCoapUnauthorized, Status::Unauthenticated()},
      {kCoapForbidden, Status::PermissionDenied()},
      {kCoapNotFound, Status::NotFound()},
      {kCoapMethodNotAllowed, Status::Unimplemented()},
      {kCoapConflict, Status::AlreadyExists()},
      {kCoapPreconditionFailed, Status::FailedPrecondition()},
      {kCoapRequestEntityTooLarge, Status::OutOfRange()},
      {kCoapTooManyRequests, Status::ResourceExhausted()},
      {kCoapInternalServerError, Status::Internal()},
      {kCoapServiceUnavailable, Status::Unavailable()},
  };
  for (const auto& p : pairs) {
    EXPECT_EQ(StatusFromCoapCode(p.code), p.status) << int(p.code);
    EXPECT_EQ(CoapCodeFromStatus(p.status), p.code) << p.status.str();
  }
  EXPECT_EQ(StatusFromCoapCode(kCoapRequestEntityIncomplete),
            Status::DataLoss());
  EXPECT_EQ(StatusFromCoapCode(kCoapUnsupportedContentFormat),
            Status::InvalidArgument());
  EXPECT_EQ(CoapCodeFromStatus(Status::DataLoss()), kCoapBadRequest);
  EXPECT_EQ(CoapCodeFromStatus(Status::Ok()), kCoapChanged);
}

TEST(CoapCodeTest, ClassesFallBack) {
  EXPECT_EQ(kCoapContent, 0x45);
  EXPECT_EQ(kCoapRequestEntityTooLarge, 0x8d);
  EXPECT_EQ(StatusFromCoapCode(kCoapContent), Status::Ok());
  EXPECT_EQ(StatusFromCoapCode(kCoapChanged), Status::Ok());
  EXPECT_EQ(StatusFromCoapCode(CoapCode(4, 6)), Status::InvalidArgument());
  EXPECT_EQ(StatusFromCoapCode(CoapCode(5, 4)), Status::Unavailable());
  EXPECT_EQ(StatusFromCoapCode(CoapCode(0, 1)), Status::Unknown());
}

}  // namespace
}  // namespace edgeadmm::wire
