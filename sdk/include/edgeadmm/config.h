// Compile-time configuration of the device SDK.
//
// Every value has a default here and can be overridden with -D or by a project
// header named by EDGEADMM_CONFIG_FILE (included first). Runtime policy
// (aggregator address, budgets, ...) is not here: it lives in runtime config
// structs validated by Init.
#pragma once

#ifdef EDGEADMM_CONFIG_FILE
#include EDGEADMM_CONFIG_FILE
#endif

// Largest model dimension p the SDK accepts (bounds wire buffers and state).
#ifndef EDGEADMM_CFG_MAX_FEATURES
#define EDGEADMM_CFG_MAX_FEATURES 8192
#endif

// Longest record-space vector (one value per record of the job, N): an
// admm-sharing job's (papers 000/003) task u_m and y and a party's share
// (plus its scoring-phase partial scores) hold N values each, the gateway's
// released (v, y) 2N. Linux builds (the daemon, Linux devices on x86-64,
// aarch64, armhf) take 65536, so the full a9a (N = 32,561) fits; other
// targets (the Cortex-M4F port) keep EDGEADMM_CFG_MAX_FEATURES. Memory cost:
// docs/protocol.md, "Sizes". EDGEADMM_CFG_MAX_SHARING_RECORDS, its name
// before 2026-11-29, is still honoured.
#if !defined(EDGEADMM_CFG_MAX_RECORD_DIMENSION) && \
    defined(EDGEADMM_CFG_MAX_SHARING_RECORDS)
#define EDGEADMM_CFG_MAX_RECORD_DIMENSION EDGEADMM_CFG_MAX_SHARING_RECORDS
#endif
#ifndef EDGEADMM_CFG_MAX_RECORD_DIMENSION
#if defined(__linux__)
#define EDGEADMM_CFG_MAX_RECORD_DIMENSION 65536
#else
#define EDGEADMM_CFG_MAX_RECORD_DIMENSION EDGEADMM_CFG_MAX_FEATURES
#endif
#endif

// CRC-32 (crc32.h) by four 1 KB tables, four bytes per step (1), or by one
// 64-byte table, half a byte per step (0). Linux builds take 1: about 6x the
// speed, which a device that persists its record every round (and a fleet of
// thousands in one process) feels; other targets (the Cortex-M4F port) keep 0
// for their flash. Both give the same CRC.
#ifndef EDGEADMM_CFG_CRC32_SLICED
#if defined(__linux__)
#define EDGEADMM_CFG_CRC32_SLICED 1
#else
#define EDGEADMM_CFG_CRC32_SLICED 0
#endif
#endif

// Largest number of local records m_i one device holds.
#ifndef EDGEADMM_CFG_MAX_LOCAL_SAMPLES
#define EDGEADMM_CFG_MAX_LOCAL_SAMPLES 65536
#endif

// Iterative prox solver (Newton-CG): outer iteration cap and the relative KKT
// residual tolerance ||grad||/max(1,||v||/s) it stops at.
#ifndef EDGEADMM_CFG_NEWTON_MAX_ITERATIONS
#define EDGEADMM_CFG_NEWTON_MAX_ITERATIONS 50
#endif
#ifndef EDGEADMM_CFG_NEWTON_TOLERANCE
#define EDGEADMM_CFG_NEWTON_TOLERANCE 1e-10
#endif
// The tolerance actually used is at least this many machine epsilons of the
// compute type (Real, real.h): 1e-10 is below float32's resolution.
#ifndef EDGEADMM_CFG_NEWTON_TOLERANCE_EPSILONS
#define EDGEADMM_CFG_NEWTON_TOLERANCE_EPSILONS 16
#endif
#ifndef EDGEADMM_CFG_CG_MAX_ITERATIONS
#define EDGEADMM_CFG_CG_MAX_ITERATIONS 250
#endif

// Reseed the DRBG after this many generate calls (NIST SP 800-90A allows far
// more; a lower value bounds the damage of a leaked state).
#ifndef EDGEADMM_CFG_DRBG_RESEED_INTERVAL
#define EDGEADMM_CFG_DRBG_RESEED_INTERVAL 10000
#endif

// Assertions on programming errors (1 = on, also in release builds).
#ifndef EDGEADMM_CFG_ASSERT_ENABLED
#define EDGEADMM_CFG_ASSERT_ENABLED 1
#endif

// Minimum level passed to the log hook (0 debug ... 3 error).
#ifndef EDGEADMM_CFG_LOG_LEVEL
#define EDGEADMM_CFG_LOG_LEVEL 1
#endif

static_assert(EDGEADMM_CFG_MAX_FEATURES > 0 &&
                  EDGEADMM_CFG_MAX_FEATURES <= (1 << 20),
              "EDGEADMM_CFG_MAX_FEATURES must be in [1, 2^20]");
static_assert(EDGEADMM_CFG_MAX_RECORD_DIMENSION > 0 &&
                  EDGEADMM_CFG_MAX_RECORD_DIMENSION <= (1 << 20),
              "EDGEADMM_CFG_MAX_RECORD_DIMENSION must be in [1, 2^20]");
static_assert(EDGEADMM_CFG_MAX_LOCAL_SAMPLES > 0 &&
                  EDGEADMM_CFG_MAX_LOCAL_SAMPLES <= (1 << 24),
              "EDGEADMM_CFG_MAX_LOCAL_SAMPLES must be in [1, 2^24]");
static_assert(EDGEADMM_CFG_NEWTON_MAX_ITERATIONS >= 1,
              "EDGEADMM_CFG_NEWTON_MAX_ITERATIONS must be positive");
static_assert(EDGEADMM_CFG_CG_MAX_ITERATIONS >= 1,
              "EDGEADMM_CFG_CG_MAX_ITERATIONS must be positive");
static_assert(EDGEADMM_CFG_DRBG_RESEED_INTERVAL >= 1,
              "EDGEADMM_CFG_DRBG_RESEED_INTERVAL must be positive");
