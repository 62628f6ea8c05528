// Mbed TLS 2.28 configuration for hosted from-source targets (armhf): the
// device SDK's crypto (mbedtls_config_sdk_crypto.h, shared with the Cortex-M
// configuration mbedtls_config.h) plus what
// libcoap 4.3.1's Mbed TLS backend (src/coap_mbedtls.c) needs for a CoAP
// client over DTLS 1.2 with pre-shared keys: TLS-PSK-WITH-AES-128-CCM(-8),
// the CoAP mandatory suites. The server side is on too: the armhf tests run
// an in-process libcoap DTLS server as the client's peer.
//
// libcoap's backend also calls the X.509/PK parsers (certificates, raw public
// keys) without compile-time guards, so the smallest certificate stack that
// satisfies check_config.h is here (X.509 parsing, PK with one EC curve);
// no certificate-based key exchange is enabled, so no handshake uses it.
//
// Heap: the standard calloc/free (libcoap allocates per session). Entropy for
// the TLS DRBG: the OS (getrandom). Selected with -DMBEDTLS_CONFIG_FILE by
// cmake/CrossDependencies.cmake; the Cortex-M build keeps mbedtls_config.h.
#ifndef EDGEADMM_MBEDTLS_CONFIG_DTLS_CLIENT_H_
#define EDGEADMM_MBEDTLS_CONFIG_DTLS_CLIENT_H_

// System support.
#define MBEDTLS_HAVE_TIME
#define MBEDTLS_HAVE_TIME_DATE
#define MBEDTLS_FS_IO  // mbedtls_x509_crt_parse_file (libcoap PKI setup)
#define MBEDTLS_TIMING_C
#define MBEDTLS_VERSION_C
#define MBEDTLS_ERROR_C  // readable errors in libcoap's log
#define MBEDTLS_DEBUG_C  // libcoap forwards Mbed TLS debug output to its log

// The SDK's crypto (the same modules as the Cortex-M build).
#include "mbedtls_config_sdk_crypto.h"

// Entropy for the DTLS stack's own DRBG (OS source; SHA-256 accumulator).
#define MBEDTLS_ENTROPY_C

// DTLS 1.2 with pre-shared keys.
#define MBEDTLS_SSL_TLS_C
#define MBEDTLS_SSL_CLI_C
#define MBEDTLS_SSL_SRV_C
#define MBEDTLS_SSL_PROTO_TLS1_2
#define MBEDTLS_SSL_PROTO_DTLS
#define MBEDTLS_SSL_DTLS_ANTI_REPLAY
#define MBEDTLS_SSL_DTLS_HELLO_VERIFY
#define MBEDTLS_SSL_DTLS_CLIENT_PORT_REUSE
#define MBEDTLS_SSL_COOKIE_C
#define MBEDTLS_SSL_EXTENDED_MASTER_SECRET
#define MBEDTLS_SSL_SERVER_NAME_INDICATION
#define MBEDTLS_SSL_ALPN
#define MBEDTLS_KEY_EXCHANGE_PSK_ENABLED
// CoAP PDUs are at most one 1024-byte block plus headers per datagram; 4 KiB
// record buffers (instead of 16 KiB each way) keep a session small.
#define MBEDTLS_SSL_IN_CONTENT_LEN 4096
#define MBEDTLS_SSL_OUT_CONTENT_LEN 4096

// Certificate parsing that libcoap's backend references unconditionally.
#define MBEDTLS_X509_USE_C
#define MBEDTLS_X509_CRT_PARSE_C
#define MBEDTLS_PK_C
#define MBEDTLS_PK_PARSE_C
#define MBEDTLS_ASN1_PARSE_C
#define MBEDTLS_OID_C
#define MBEDTLS_BIGNUM_C
#define MBEDTLS_ECP_C
#define MBEDTLS_ECP_DP_SECP256R1_ENABLED

#include "mbedtls/check_config.h"

#endif  // EDGEADMM_MBEDTLS_CONFIG_DTLS_CLIENT_H_
