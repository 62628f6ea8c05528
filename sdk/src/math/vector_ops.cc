#include "vector_ops.h"

#include <cmath>

#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#endif

#include "edgeadmm/assert.h"

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

// x86-64 hosts computing in double: four rows at a time with SSE2. One
// row's Dot is two chains of dependent vector additions (latency-bound: ~1.7x
// Eigen's GEMV on a9a); four rows interleaved keep the adder busy and read x
// once for four rows. Each row keeps Dot's four partial sums in the same
// lanes ({s0, s1}, {s2, s3}) and combines them as Dot does, and every y[i]
// still adds t[j]·a_j[i] for j = 0, 1, ... one product at a time: the results
// are bit-identical to the plain loops (SSE2 has no FMA; each lane rounds
// like the scalar code). Other targets (the in-order Cortex-M FPU, float
// builds) keep the plain loops.
#if defined(__SSE2__) && defined(__x86_64__) && \
    !(defined(EDGEADMM_REAL_FLOAT) && EDGEADMM_REAL_FLOAT)
namespace {

constexpr size_t kRowBlock = 4;

// Lane sums of Dot's {s0, s1} and {s2, s3}, combined as Dot does, plus the
// tail i >= blocks.
Real Finish(__m128d lo, __m128d hi, const Real* a, const Real* x, size_t blocks,
            size_t n) {
  double l[2];
  double h[2];
  _mm_storeu_pd(l, lo);
  _mm_storeu_pd(h, hi);
  Real sum = (l[0] + l[1]) + (h[0] + h[1]);
  for (size_t i = blocks; i < n; ++i) sum += a[i] * x[i];
  return sum;
}

// y[0..3] = a_r · x for the four rows a_r (each of n values). Written out
// per row: GCC -O2 keeps arrays of vectors in memory.
void Dot4(const Real* __restrict a0, const Real* __restrict a1,
          const Real* __restrict a2, const Real* __restrict a3,
          const Real* __restrict x, size_t n, Real* y) {
  const size_t blocks = n - n % 4;
  __m128d lo0 = _mm_setzero_pd(), hi0 = lo0, lo1 = lo0, hi1 = lo0;
  __m128d lo2 = lo0, hi2 = lo0, lo3 = lo0, hi3 = lo0;
  for (size_t i = 0; i < blocks; i += 4) {
    const __m128d x01 = _mm_loadu_pd(x + i);
    const __m128d x23 = _mm_loadu_pd(x + i + 2);
    lo0 = _mm_add_pd(lo0, _mm_mul_pd(_mm_loadu_pd(a0 + i), x01));
    hi0 = _mm_add_pd(hi0, _mm_mul_pd(_mm_loadu_pd(a0 + i + 2), x23));
    lo1 = _mm_add_pd(lo1, _mm_mul_pd(_mm_loadu_pd(a1 + i), x01));
    hi1 = _mm_add_pd(hi1, _mm_mul_pd(_mm_loadu_pd(a1 + i + 2), x23));
    lo2 = _mm_add_pd(lo2, _mm_mul_pd(_mm_loadu_pd(a2 + i), x01));
    hi2 = _mm_add_pd(hi2, _mm_mul_pd(_mm_loadu_pd(a2 + i + 2), x23));
    lo3 = _mm_add_pd(lo3, _mm_mul_pd(_mm_loadu_pd(a3 + i), x01));
    hi3 = _mm_add_pd(hi3, _mm_mul_pd(_mm_loadu_pd(a3 + i + 2), x23));
  }
  y[0] = Finish(lo0, hi0, a0, x, blocks, n);
  y[1] = Finish(lo1, hi1, a1, x, blocks, n);
  y[2] = Finish(lo2, hi2, a2, x, blocks, n);
  y[3] = Finish(lo3, hi3, a3, x, blocks, n);
}

// y += t0·a0 + t1·a1 + t2·a2 + t3·a3, adding the rows in that order for
// every entry.
void Axpy4(const Real* t, const Real* __restrict a0, const Real* __restrict a1,
           const Real* __restrict a2, const Real* __restrict a3,
           Real* __restrict y, size_t n) {
  const __m128d t0 = _mm_set1_pd(t[0]), t1 = _mm_set1_pd(t[1]);
  const __m128d t2 = _mm_set1_pd(t[2]), t3 = _mm_set1_pd(t[3]);
  size_t i = 0;
  for (; i + 2 <= n; i += 2) {
    __m128d acc = _mm_loadu_pd(y + i);
    acc = _mm_add_pd(acc, _mm_mul_pd(t0, _mm_loadu_pd(a0 + i)));
    acc = _mm_add_pd(acc, _mm_mul_pd(t1, _mm_loadu_pd(a1 + i)));
    acc = _mm_add_pd(acc, _mm_mul_pd(t2, _mm_loadu_pd(a2 + i)));
    acc = _mm_add_pd(acc, _mm_mul_pd(t3, _mm_loadu_pd(a3 + i)));
    _mm_storeu_pd(y + i, acc);
  }
  for (; i < n; ++i) {
    Real acc = y[i];
    acc += t[0] * a0[i];
    acc += t[1] * a1[i];
    acc += t[2] * a2[i];
    acc += t[3] * a3[i];
    y[i] = acc;
  }
}

}  // namespace

void MultiplyRows(const DatasetView& data, Span<const Real> x, Span<Real> y) {
  EDGEADMM_ASSERT(y.size() == data.samples());
  EDGEADMM_ASSERT(x.size() == data.dim());
  const size_t m = data.samples();
  const size_t blocks = m - m % kRowBlock;
  for (size_t j = 0; j < blocks; j += kRowBlock) {
    Dot4(data.Row(j).data(), data.Row(j + 1).data(), data.Row(j + 2).data(),
         data.Row(j + 3).data(), x.data(), data.dim(), y.data() + j);
  }
  for (size_t j = blocks; j < m; ++j) y[j] = Dot(data.Row(j), x);
}

void MultiplyTransposed(const DatasetView& data, Span<const Real> t,
                        Span<Real> y) {
  EDGEADMM_ASSERT(t.size() == data.samples());
  EDGEADMM_ASSERT(y.size() == data.dim());
  for (Real& value : y) value = 0;
  const size_t m = data.samples();
  const size_t blocks = m - m % kRowBlock;
  for (size_t j = 0; j < blocks; j += kRowBlock) {
    Axpy4(t.data() + j, data.Row(j).data(), data.Row(j + 1).data(),
          data.Row(j + 2).data(), data.Row(j + 3).data(), y.data(), data.dim());
  }
  for (size_t j = blocks; j < m; ++j) Axpy(t[j], data.Row(j), y);
}
#else
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
