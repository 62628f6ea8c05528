#include "edgeadmm/dtls/dtls_psk_link.h"

#include <mbedtls/ssl.h>

#include <cstring>
#include <new>

namespace edgeadmm::dtls {
namespace {

// RFC 7925's mandatory PSK suite first, then the other AES ones OpenSSL
// also offers.
const int kCipherSuites[] = {MBEDTLS_TLS_PSK_WITH_AES_128_CCM_8,
                             MBEDTLS_TLS_PSK_WITH_AES_128_CCM,
                             MBEDTLS_TLS_PSK_WITH_AES_128_GCM_SHA256, 0};

}  // namespace

struct DtlsPskLink::Impl {
  mbedtls_ssl_context ssl;
  mbedtls_ssl_config conf;
  const DtlsPskLinkConfig* config = nullptr;
  // Mbed TLS's DTLS timer (mbedtls_ssl_set_timer_cb): 0 = stopped.
  uint64_t timer_start = 0;
  uint32_t intermediate_ms = 0;
  uint32_t final_ms = 0;
  uint8_t pending[kMaxPendingBytes];  // one datagram waiting for the
  size_t pending_size = 0;            // handshake
  bool failed = false;
  bool lower_failed = false;  // the link below reported an error
  Status failure;

  Impl() {
    mbedtls_ssl_init(&ssl);
    mbedtls_ssl_config_init(&conf);
  }
  ~Impl() {
    mbedtls_ssl_free(&ssl);
    mbedtls_ssl_config_free(&conf);
  }

  static int Random(void* arg, unsigned char* out, size_t size) {
    auto* random = static_cast<RandomByteSource*>(arg);
    return random->Generate(ByteSpan(reinterpret_cast<std::byte*>(out), size))
                   .ok()
               ? 0
               : MBEDTLS_ERR_SSL_INTERNAL_ERROR;
  }
  static int SendRecord(void* arg, const unsigned char* bytes, size_t size) {
    auto* impl = static_cast<Impl*>(arg);
    const Status sent = impl->config->lower->Send(
        ConstByteSpan(reinterpret_cast<const std::byte*>(bytes), size));
    if (sent.ok()) return static_cast<int>(size);
    impl->lower_failed = true;
    return MBEDTLS_ERR_SSL_INTERNAL_ERROR;
  }
  static int ReceiveRecord(void* arg, unsigned char* bytes, size_t size) {
    auto* impl = static_cast<Impl*>(arg);
    const StatusWithSize got = impl->config->lower->Receive(
        ByteSpan(reinterpret_cast<std::byte*>(bytes), size));
    if (!got.ok()) {
      impl->lower_failed = true;
      return MBEDTLS_ERR_SSL_INTERNAL_ERROR;
    }
    if (got.size() == 0) return MBEDTLS_ERR_SSL_WANT_READ;
    return static_cast<int>(got.size());
  }
  static void SetTimer(void* arg, uint32_t intermediate, uint32_t final) {
    auto* impl = static_cast<Impl*>(arg);
    impl->intermediate_ms = intermediate;
    impl->final_ms = final;
    impl->timer_start = final == 0 ? 0 : impl->config->now_ms();
  }
  // -1 stopped, 0 running, 1 intermediate passed, 2 final passed.
  static int GetTimer(void* arg) {
    auto* impl = static_cast<Impl*>(arg);
    if (impl->final_ms == 0) return -1;
    const uint64_t elapsed = impl->config->now_ms() - impl->timer_start;
    if (elapsed >= impl->final_ms) return 2;
    if (elapsed >= impl->intermediate_ms) return 1;
    return 0;
  }
};

DtlsPskLink::DtlsPskLink(const DtlsPskLinkConfig& config) : config_(config) {
  static_assert(sizeof(Impl) <= sizeof(impl_storage_),
                "DtlsPskLink::impl_storage_ is too small for this Mbed TLS");
  static_assert(alignof(Impl) <= 8, "DtlsPskLink::impl_storage_ alignment");
}

DtlsPskLink::~DtlsPskLink() { Reset(); }

void DtlsPskLink::Reset() {
  if (impl_ == nullptr) return;
  impl_->~Impl();
  impl_ = nullptr;
}

bool DtlsPskLink::established() const {
  return impl_ != nullptr && impl_->ssl.state == MBEDTLS_SSL_HANDSHAKE_OVER;
}

bool DtlsPskLink::connecting() const {
  return impl_ != nullptr && !impl_->failed && !established();
}

const char* DtlsPskLink::cipher_suite() const {
  return established() ? mbedtls_ssl_get_ciphersuite(&impl_->ssl) : "";
}

Status DtlsPskLink::Open() {
  Reset();
  impl_ = new (impl_storage_) Impl();
  Impl& i = *impl_;
  i.config = &config_;
  if (mbedtls_ssl_config_defaults(&i.conf, MBEDTLS_SSL_IS_CLIENT,
                                  MBEDTLS_SSL_TRANSPORT_DATAGRAM,
                                  MBEDTLS_SSL_PRESET_DEFAULT) != 0) {
    Reset();
    return Status::Internal();
  }
  mbedtls_ssl_conf_rng(&i.conf, &Impl::Random, config_.random);
  mbedtls_ssl_conf_ciphersuites(&i.conf, kCipherSuites);
  mbedtls_ssl_conf_min_version(&i.conf, MBEDTLS_SSL_MAJOR_VERSION_3,
                               MBEDTLS_SSL_MINOR_VERSION_3);  // DTLS 1.2
  mbedtls_ssl_conf_handshake_timeout(&i.conf, config_.handshake_min_ms,
                                     config_.handshake_max_ms);
  const size_t identity_size = std::strlen(config_.identity);
  if (mbedtls_ssl_conf_psk(
          &i.conf, reinterpret_cast<const unsigned char*>(config_.key.data()),
          config_.key.size(),
          reinterpret_cast<const unsigned char*>(config_.identity),
          identity_size) != 0 ||
      mbedtls_ssl_setup(&i.ssl, &i.conf) != 0) {
    Reset();
    return Status::InvalidArgument();
  }
  mbedtls_ssl_set_bio(&i.ssl, &i, &Impl::SendRecord, &Impl::ReceiveRecord,
                      nullptr);
  mbedtls_ssl_set_timer_cb(&i.ssl, &i, &Impl::SetTimer, &Impl::GetTimer);
  return Status::Ok();
}

// Advances the handshake; OK with size 1 once established.
StatusWithSize DtlsPskLink::Drive() {
  Impl& i = *impl_;
  if (i.failed) return StatusWithSize(i.failure, 0);
  if (established()) return StatusWithSize(1);
  const int rc = mbedtls_ssl_handshake(&i.ssl);
  if (rc == 0) {
    if (i.pending_size > 0) {
      const int sent = mbedtls_ssl_write(&i.ssl, i.pending, i.pending_size);
      i.pending_size = 0;
      if (sent < 0) {
        i.failed = true;
        i.failure = Status::Unavailable();
        return StatusWithSize(i.failure, 0);
      }
    }
    return StatusWithSize(1);
  }
  if (rc == MBEDTLS_ERR_SSL_WANT_READ || rc == MBEDTLS_ERR_SSL_WANT_WRITE) {
    return StatusWithSize(0);
  }
  // Past our key exchange (the server read our identity and Finished) and
  // no answer, or a fatal alert: the key is refused. Before it: nobody
  // answered.
  i.failed = true;
  if (i.lower_failed) {
    i.failure = Status::Unavailable();
  } else if (i.ssl.state > MBEDTLS_SSL_SERVER_HELLO_DONE ||
             rc == MBEDTLS_ERR_SSL_FATAL_ALERT_MESSAGE) {
    i.failure = Status::Unauthenticated();
  } else {
    i.failure = Status::DeadlineExceeded();
  }
  return StatusWithSize(i.failure, 0);
}

Status DtlsPskLink::Send(ConstByteSpan datagram) {
  if (impl_ == nullptr || impl_->failed) {
    const Status opened = Open();
    if (!opened.ok()) return opened;
  }
  const StatusWithSize driven = Drive();
  if (!driven.ok()) return driven.status();
  if (driven.size() == 0) {  // handshake in progress: keep the latest
    if (datagram.size() > kMaxPendingBytes) return Status::ResourceExhausted();
    std::memcpy(impl_->pending, datagram.data(), datagram.size());
    impl_->pending_size = datagram.size();
    return Status::Ok();
  }
  const int sent = mbedtls_ssl_write(
      &impl_->ssl, reinterpret_cast<const unsigned char*>(datagram.data()),
      datagram.size());
  return sent == static_cast<int>(datagram.size()) ? Status::Ok()
                                                   : Status::Unavailable();
}

StatusWithSize DtlsPskLink::Receive(ByteSpan buffer) {
  if (impl_ == nullptr) return StatusWithSize(0);
  const StatusWithSize driven = Drive();
  if (!driven.ok() || driven.size() == 0) return driven;
  const int got = mbedtls_ssl_read(
      &impl_->ssl, reinterpret_cast<unsigned char*>(buffer.data()),
      buffer.size());
  if (got > 0) return StatusWithSize(static_cast<size_t>(got));
  if (got == MBEDTLS_ERR_SSL_WANT_READ || got == MBEDTLS_ERR_SSL_WANT_WRITE ||
      got == MBEDTLS_ERR_SSL_TIMEOUT) {
    return StatusWithSize(0);
  }
  // close_notify, a fatal alert, or the lower link failing: the session is
  // over; the next Send starts a new one.
  impl_->failed = true;
  impl_->failure = Status::Unavailable();
  return StatusWithSize(impl_->failure, 0);
}

void DtlsPskLink::Wait(uint32_t timeout_ms) {
  if (impl_ != nullptr && !established() && impl_->final_ms != 0) {
    // Wake when the handshake's flight is due again (Mbed TLS retransmits
    // when the final delay has passed).
    const uint64_t elapsed = config_.now_ms() - impl_->timer_start;
    const uint64_t due =
        elapsed >= impl_->final_ms ? 0 : impl_->final_ms - elapsed;
    if (due < timeout_ms) timeout_ms = static_cast<uint32_t>(due);
  }
  config_.lower->Wait(timeout_ms);
}

}  // namespace edgeadmm::dtls
