#include "edgeadmm/wire/coap_code.h"

namespace edgeadmm::wire {

Status StatusFromCoapCode(uint8_t code) {
  switch (code) {
    case kCoapBadRequest:
      return Status::InvalidArgument();
    case kCoapUnauthorized:
      return Status::Unauthenticated();
    case kCoapForbidden:
      return Status::PermissionDenied();
    case kCoapNotFound:
      return Status::NotFound();
    case kCoapMethodNotAllowed:
      return Status::Unimplemented();
    case kCoapRequestEntityIncomplete:
      return Status::DataLoss();
    case kCoapConflict:
      return Status::AlreadyExists();
    case kCoapPreconditionFailed:
      return Status::FailedPrecondition();
    case kCoapRequestEntityTooLarge:
      return Status::OutOfRange();
    case kCoapUnsupportedContentFormat:
      return Status::InvalidArgument();
    case kCoapTooManyRequests:
      return Status::ResourceExhausted();
    case kCoapInternalServerError:
      return Status::Internal();
    case kCoapServiceUnavailable:
      return Status::Unavailable();
    default:
      break;
  }
  switch (code >> 5) {
    case 2:
      return Status::Ok();
    case 4:
      return Status::InvalidArgument();
    case 5:
      return Status::Unavailable();
    default:
      return Status::Unknown();
  }
}

uint8_t CoapCodeFromStatus(Status status) {
  switch (status.code()) {
    case StatusCode::kOk:
      return kCoapChanged;
    case StatusCode::kInvalidArgument:
      return kCoapBadRequest;
    case StatusCode::kUnauthenticated:
      return kCoapUnauthorized;
    case StatusCode::kPermissionDenied:
      return kCoapForbidden;
    case StatusCode::kNotFound:
      return kCoapNotFound;
    case StatusCode::kUnimplemented:
      return kCoapMethodNotAllowed;
    case StatusCode::kDataLoss:
      return kCoapBadRequest;
    case StatusCode::kAlreadyExists:
      return kCoapConflict;
    case StatusCode::kFailedPrecondition:
      return kCoapPreconditionFailed;
    case StatusCode::kOutOfRange:
      return kCoapRequestEntityTooLarge;
    case StatusCode::kResourceExhausted:
      return kCoapTooManyRequests;
    case StatusCode::kUnavailable:
      return kCoapServiceUnavailable;
    default:
      return kCoapInternalServerError;
  }
}

}  // namespace edgeadmm::wire
