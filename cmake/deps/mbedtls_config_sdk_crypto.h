// The Mbed TLS 2.28 modules the device SDK uses, shared by the Cortex-M
// configuration (mbedtls_config.h) and the hosted DTLS client configuration
// (mbedtls_config_dtls_client.h). Included by those files only: not a
// configuration by itself.
#ifndef EDGEADMM_MBEDTLS_CONFIG_SDK_CRYPTO_H_
#define EDGEADMM_MBEDTLS_CONFIG_SDK_CRYPTO_H_

// Block cipher for CTR_DRBG and AES-CCM (DTLS-PSK records): constant tables
// in flash.
#define MBEDTLS_AES_C
#define MBEDTLS_AES_ROM_TABLES
#define MBEDTLS_CIPHER_C
#define MBEDTLS_CCM_C

// Deterministic random bit generators (NIST SP 800-90A) and their hashes.
// CTR_DRBG keeps its default AES-256 key so its output matches the host's
// Debian build bit for bit. No SHA-512: MBEDTLS_CTR_DRBG_ENTROPY_LEN stays 32
// on every target built from source.
#define MBEDTLS_CTR_DRBG_C
#define MBEDTLS_HMAC_DRBG_C
#define MBEDTLS_MD_C
#define MBEDTLS_SHA256_C

#endif  // EDGEADMM_MBEDTLS_CONFIG_SDK_CRYPTO_H_
