#include "edgeadmm/drbg.h"

#include <climits>

#include "edgeadmm/result.h"

namespace edgeadmm {
namespace {

// Maps the Mbed TLS CTR_DRBG error codes to canonical codes.
Status FromMbedtls(int error) {
  switch (error) {
    case 0:
      return Status::Ok();
    case MBEDTLS_ERR_CTR_DRBG_ENTROPY_SOURCE_FAILED:
      return Status::Unavailable();
    case MBEDTLS_ERR_CTR_DRBG_INPUT_TOO_BIG:
    case MBEDTLS_ERR_CTR_DRBG_REQUEST_TOO_BIG:
      return Status::InvalidArgument();
    default:
      return Status::Internal();
  }
}

const unsigned char* Bytes(ConstByteSpan span) {
  return reinterpret_cast<const unsigned char*>(span.data());
}

}  // namespace

Drbg::Drbg() { mbedtls_ctr_drbg_init(&context_); }

Drbg::~Drbg() { mbedtls_ctr_drbg_free(&context_); }

int Drbg::EntropyCallback(void* self, unsigned char* out, size_t size) {
  Drbg& drbg = *static_cast<Drbg*>(self);
  const Status status =
      drbg.entropy_->Read(ByteSpan(reinterpret_cast<std::byte*>(out), size));
  return status.ok() ? 0 : MBEDTLS_ERR_CTR_DRBG_ENTROPY_SOURCE_FAILED;
}

Status Drbg::Init(EntropySource& entropy, ConstByteSpan personalization) {
  if (personalization.size() > kMaxPersonalizationBytes) {
    return Status::InvalidArgument();
  }
  // A context may be seeded only once: start from a fresh one.
  mbedtls_ctr_drbg_free(&context_);
  mbedtls_ctr_drbg_init(&context_);
  initialized_ = false;
  entropy_ = &entropy;
  const int error =
      mbedtls_ctr_drbg_seed(&context_, &Drbg::EntropyCallback, this,
                            Bytes(personalization), personalization.size());
  if (error != 0) {
    mbedtls_ctr_drbg_free(&context_);
    mbedtls_ctr_drbg_init(&context_);
    return FromMbedtls(error);
  }
  // Reseeding is driven by Generate so that every reseed is counted; keep
  // Mbed TLS's own counter from ever triggering one.
  mbedtls_ctr_drbg_set_reseed_interval(&context_, INT_MAX);
  requests_since_reseed_ = 0;
  initialized_ = true;
  return Status::Ok();
}

Status Drbg::Reseed(ConstByteSpan additional) {
  if (!initialized_) return Status::FailedPrecondition();
  if (additional.size() > kMaxAdditionalBytes) return Status::InvalidArgument();
  EDGEADMM_TRY(FromMbedtls(mbedtls_ctr_drbg_reseed(&context_, Bytes(additional),
                                                   additional.size())));
  requests_since_reseed_ = 0;
  if (reseed_count_ < UINT32_MAX) ++reseed_count_;
  return Status::Ok();
}

Status Drbg::Generate(ByteSpan out) {
  if (!initialized_) return Status::FailedPrecondition();
  size_t done = 0;
  do {
    if (requests_since_reseed_ >= EDGEADMM_CFG_DRBG_RESEED_INTERVAL) {
      EDGEADMM_TRY(Reseed(ConstByteSpan()));
    }
    size_t chunk = out.size() - done;
    if (chunk > MBEDTLS_CTR_DRBG_MAX_REQUEST) {
      chunk = MBEDTLS_CTR_DRBG_MAX_REQUEST;
    }
    EDGEADMM_TRY(FromMbedtls(mbedtls_ctr_drbg_random(
        &context_, reinterpret_cast<unsigned char*>(out.data() + done),
        chunk)));
    ++requests_since_reseed_;
    done += chunk;
  } while (done < out.size());
  return Status::Ok();
}

void Drbg::RestoreReseedCount(uint32_t persisted) {
  if (persisted > reseed_count_) reseed_count_ = persisted;
}

}  // namespace edgeadmm
