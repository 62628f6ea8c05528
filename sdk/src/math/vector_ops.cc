#include "vector_ops.h"

#include <cmath>

#include "edgeadmm/assert.h"
#include "row_kernels_x86.h"

namespace edgeadmm {
namespace internal {

// Sizes are checked once; the loops then use raw pointers (Span's
// operator[] checks every index).

// Four interleaved partial sums, combined as (s0 + s1) + (s2 + s3) and then
// the tail: the additions no longer wait on one another, and the compiler can
// pair them in vector registers on hosts. The order is fixed by the code, so
// every target still adds in the same order.
Real Dot(Span<const Real> a, Span<const Real> b) {
  EDGEADMM_ASSERT(a.size() == b.size());
  const Real* __restrict x = a.data();
  const Real* __restrict y = b.data();
  const size_t n = a.size();
  const size_t blocks = n - n % 4;
  Real s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (size_t i = 0; i < blocks; i += 4) {
    s0 += x[i] * y[i];
    s1 += x[i + 1] * y[i + 1];
    s2 += x[i + 2] * y[i + 2];
    s3 += x[i + 3] * y[i + 3];
  }
  Real sum = (s0 + s1) + (s2 + s3);
  for (size_t i = blocks; i < n; ++i) sum += x[i] * y[i];
  return sum;
}

void Axpy(Real alpha, Span<const Real> x, Span<Real> y) {
  EDGEADMM_ASSERT(x.size() == y.size());
  const Real* __restrict in = x.data();
  Real* __restrict out = y.data();
  const size_t n = x.size();
  const size_t blocks = n - n % 4;
  for (size_t i = 0; i < blocks; i += 4) {
    out[i] += alpha * in[i];
    out[i + 1] += alpha * in[i + 1];
    out[i + 2] += alpha * in[i + 2];
    out[i + 3] += alpha * in[i + 3];
  }
  for (size_t i = blocks; i < n; ++i) out[i] += alpha * in[i];
}

void Scale(Real alpha, Span<Real> x) {
  for (Real& value : x) value *= alpha;
}

Real Norm(Span<const Real> x) { return std::sqrt(Dot(x, x)); }

#if EDGEADMM_ROW_KERNELS_X86
void MultiplyRows(const DatasetView& data, Span<const Real> x, Span<Real> y) {
  MultiplyRowsX86(HostRowKernelWidth(), data, x, y);
}

void MultiplyTransposed(const DatasetView& data, Span<const Real> t,
                        Span<Real> y) {
  MultiplyTransposedX86(HostRowKernelWidth(), data, t, y);
}
#else
// Other targets (the in-order Cortex-M FPU, float builds, ARM Linux): the
// plain loops, which the x86 kernels reproduce bit for bit.
void MultiplyRows(const DatasetView& data, Span<const Real> x, Span<Real> y) {
  EDGEADMM_ASSERT(y.size() == data.samples());
  for (size_t j = 0; j < data.samples(); ++j) y[j] = Dot(data.Row(j), x);
}

void MultiplyTransposed(const DatasetView& data, Span<const Real> t,
                        Span<Real> y) {
  EDGEADMM_ASSERT(t.size() == data.samples());
  for (Real& value : y) value = 0;
  for (size_t j = 0; j < data.samples(); ++j) Axpy(t[j], data.Row(j), y);
}
#endif

Real StableNorm(Span<const Real> x) {
  Real scale = 0;
  for (const Real value : x) {
    const Real magnitude = std::fabs(value);
    if (magnitude > scale) {
      scale = magnitude;
    } else if (!(magnitude <= scale)) {
      return magnitude;  // NaN
    }
  }
  if (scale == 0 || !std::isfinite(scale)) return scale;
  Real sum = 0;
  for (const Real value : x) {
    const Real scaled = value / scale;
    sum += scaled * scaled;
  }
  return scale * std::sqrt(sum);
}

}  // namespace internal
}  // namespace edgeadmm
