// The products with the local data matrix on x86-64 hosts computing in
// double: four rows at a time in SSE2 (every x86-64) or AVX (when the CPU
// and the OS have it; chosen once at run time), with every sum in the order
// of the plain loops of vector_ops.cc, so that both widths and the plain
// loops give bit-identical results (no FMA: each lane rounds like the
// scalar code). Only built where EDGEADMM_ROW_KERNELS_X86 is 1.
#pragma once

#include "edgeadmm/dataset_view.h"
#include "edgeadmm/real.h"
#include "edgeadmm/span.h"

#if defined(__SSE2__) && defined(__x86_64__) && \
    !(defined(EDGEADMM_REAL_FLOAT) && EDGEADMM_REAL_FLOAT)
#define EDGEADMM_ROW_KERNELS_X86 1
#else
#define EDGEADMM_ROW_KERNELS_X86 0
#endif

#if EDGEADMM_ROW_KERNELS_X86
namespace edgeadmm {
namespace internal {

enum class RowKernelWidth { kSse2, kAvx };

// kAvx where this CPU and OS run AVX, else kSse2 (checked on first call).
RowKernelWidth HostRowKernelWidth();

// y = A·x and y = Aᵀ·t (MultiplyRows, MultiplyTransposed) with the given
// width; kAvx only where HostRowKernelWidth() is kAvx.
void MultiplyRowsX86(RowKernelWidth width, const DatasetView& data,
                     Span<const Real> x, Span<Real> y);
void MultiplyTransposedX86(RowKernelWidth width, const DatasetView& data,
                           Span<const Real> t, Span<Real> y);

}  // namespace internal
}  // namespace edgeadmm
#endif
