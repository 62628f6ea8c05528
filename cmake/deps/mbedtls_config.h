// Mbed TLS 2.28 configuration for the device SDK on Cortex-M: the crypto the
// SDK uses plus a DTLS 1.2 PSK client (platform/dtls, issue 12), no entropy
// sources (the SDK's DRBGs are seeded from the platform entropy port), no
// libc heap: allocations (the DTLS session's record buffers, handshake and
// transform state) come from a static pool given to
// mbedtls_memory_buffer_alloc_init() (platform/dtls, dtls_memory_pool.h);
// until then they fail cleanly. A firmware that does not call the SSL API
// links none of the SSL modules (static library, per-object linking).
// Selected with -DMBEDTLS_CONFIG_FILE by cmake/CrossDependencies.cmake.
#ifndef EDGEADMM_MBEDTLS_CONFIG_H_
#define EDGEADMM_MBEDTLS_CONFIG_H_

// Platform: no libc stdio/heap/exit, no OS entropy, no time.
#define MBEDTLS_PLATFORM_C
#define MBEDTLS_PLATFORM_MEMORY
#define MBEDTLS_PLATFORM_NO_STD_FUNCTIONS
#define MBEDTLS_MEMORY_BUFFER_ALLOC_C
#define MBEDTLS_NO_PLATFORM_ENTROPY
// The pool allocator stops on a corrupted heap with mbedtls_exit(): the
// platform's panic hook instead of newlib's exit (platform/dtls,
// dtls_memory_pool.cc).
#ifdef __cplusplus
extern "C"
#endif
    void
    edgeadmm_mbedtls_exit(int status);
#define MBEDTLS_PLATFORM_EXIT_MACRO edgeadmm_mbedtls_exit

// The SDK's modules (AES with ROM tables, CIPHER, CCM, CTR_DRBG, HMAC_DRBG,
// MD, SHA-256), then the smaller table and code variants for flash.
#include "mbedtls_config_sdk_crypto.h"
#define MBEDTLS_AES_FEWER_TABLES
#define MBEDTLS_SHA256_SMALLER

// Secure aggregation's key agreement (sdk/src/secagg/key_agreement.cc)
// needs only the MD layer's HMAC-SHA256 above: X25519 is the SDK's own
// (x25519.cc), so no bignum or curve module is built; the PSK-only SSL layer
// uses none either.

// DTLS 1.2 client, PSK key exchange only (RFC 4279), the CoAP suites of
// RFC 7252/7925: TLS_PSK_WITH_AES_128_CCM_8, then TLS_PSK_WITH_AES_128_CCM
// (the daemon's OpenSSL negotiates the client's first). No certificates,
// X.509, RSA or ECDHE; no renegotiation, tickets, debug or error strings; no
// time or timing module (the DTLS timers come from the board clock through
// mbedtls_ssl_set_timer_cb).
#define MBEDTLS_SSL_TLS_C
#define MBEDTLS_SSL_CLI_C
#define MBEDTLS_SSL_PROTO_TLS1_2
#define MBEDTLS_SSL_PROTO_DTLS
#define MBEDTLS_SSL_DTLS_ANTI_REPLAY
#define MBEDTLS_SSL_EXTENDED_MASTER_SECRET
#define MBEDTLS_KEY_EXCHANGE_PSK_ENABLED
#define MBEDTLS_SSL_CIPHERSUITES \
  MBEDTLS_TLS_PSK_WITH_AES_128_CCM_8, MBEDTLS_TLS_PSK_WITH_AES_128_CCM
// Record buffers: one CoAP datagram (a 1024-byte Block1/Block2 block plus
// header and options; the SDK CoapClient's tx/rx buffers) per record each
// way instead of 16 KiB. Handshake reassembly/buffering of out-of-order
// messages: bounded to 9/8 of the input record (PSK handshake messages are
// tens of bytes).
#define MBEDTLS_SSL_IN_CONTENT_LEN 1200
#define MBEDTLS_SSL_OUT_CONTENT_LEN 1200
#define MBEDTLS_SSL_DTLS_MAX_BUFFERING 1350

#include "mbedtls/check_config.h"

#endif  // EDGEADMM_MBEDTLS_CONFIG_H_
