// Mbed TLS 2.28 configuration for the device SDK on cross targets (Cortex-M,
// armhf): only the crypto the SDK uses, no entropy sources (the SDK seeds its
// DRBG from the platform entropy port), no heap (allocations, if any module
// needs them, come from a static pool given to
// mbedtls_memory_buffer_alloc_init(); until then they fail cleanly).
// Selected with -DMBEDTLS_CONFIG_FILE by cmake/CrossDependencies.cmake.
#ifndef EDGEADMM_MBEDTLS_CONFIG_H_
#define EDGEADMM_MBEDTLS_CONFIG_H_

// Platform: no libc stdio/heap/exit, no OS entropy, no time.
#define MBEDTLS_PLATFORM_C
#define MBEDTLS_PLATFORM_MEMORY
#define MBEDTLS_PLATFORM_NO_STD_FUNCTIONS
#define MBEDTLS_MEMORY_BUFFER_ALLOC_C
#define MBEDTLS_NO_PLATFORM_ENTROPY

// The SDK's modules (AES with ROM tables, CIPHER, CCM, CTR_DRBG, HMAC_DRBG,
// MD, SHA-256), then the smaller table and code variants for flash.
#include "mbedtls_config_sdk_crypto.h"
#define MBEDTLS_AES_FEWER_TABLES
#define MBEDTLS_SHA256_SMALLER

#include "mbedtls/check_config.h"

#endif  // EDGEADMM_MBEDTLS_CONFIG_H_
