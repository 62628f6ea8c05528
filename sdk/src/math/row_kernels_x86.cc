#include "row_kernels_x86.h"

#if EDGEADMM_ROW_KERNELS_X86
#include <immintrin.h>

#include "edgeadmm/assert.h"
#include "vector_ops.h"

namespace edgeadmm {
namespace internal {
namespace {

// One row's Dot (vector_ops.cc) is a chain of dependent additions; four rows
// interleaved keep the adders busy and read x once for four rows. Each row
// keeps Dot's four partial sums s0..s3 in the same lanes (SSE2: {s0, s1} and
// {s2, s3}; AVX: {s0, s1, s2, s3}), combines them as Dot does, then adds the
// tail; every y[i] of Aᵀ·t adds t[j]·a_j[i] for j = 0, 1, ... in order.
constexpr size_t kRowBlock = 4;

Real FinishLanes(const double s[4], const Real* a, const Real* x, size_t blocks,
                 size_t n) {
  Real sum = (s[0] + s[1]) + (s[2] + s[3]);
  for (size_t i = blocks; i < n; ++i) sum += a[i] * x[i];
  return sum;
}

Real FinishSse2(__m128d lo, __m128d hi, const Real* a, const Real* x,
                size_t blocks, size_t n) {
  double s[4];
  _mm_storeu_pd(s, lo);
  _mm_storeu_pd(s + 2, hi);
  return FinishLanes(s, a, x, blocks, n);
}

// y[0..3] = a_r · x for the four rows a_r (each of n values). Written out
// per row: GCC -O2 keeps arrays of vectors in memory.
void Dot4Sse2(const Real* __restrict a0, const Real* __restrict a1,
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
  y[0] = FinishSse2(lo0, hi0, a0, x, blocks, n);
  y[1] = FinishSse2(lo1, hi1, a1, x, blocks, n);
  y[2] = FinishSse2(lo2, hi2, a2, x, blocks, n);
  y[3] = FinishSse2(lo3, hi3, a3, x, blocks, n);
}

__attribute__((target("avx"))) void Dot4Avx(const Real* __restrict a0,
                                            const Real* __restrict a1,
                                            const Real* __restrict a2,
                                            const Real* __restrict a3,
                                            const Real* __restrict x, size_t n,
                                            Real* y) {
  const size_t blocks = n - n % 4;
  __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
  for (size_t i = 0; i < blocks; i += 4) {
    const __m256d xs = _mm256_loadu_pd(x + i);
    s0 = _mm256_add_pd(s0, _mm256_mul_pd(_mm256_loadu_pd(a0 + i), xs));
    s1 = _mm256_add_pd(s1, _mm256_mul_pd(_mm256_loadu_pd(a1 + i), xs));
    s2 = _mm256_add_pd(s2, _mm256_mul_pd(_mm256_loadu_pd(a2 + i), xs));
    s3 = _mm256_add_pd(s3, _mm256_mul_pd(_mm256_loadu_pd(a3 + i), xs));
  }
  double lanes[4][4];
  _mm256_storeu_pd(lanes[0], s0);
  _mm256_storeu_pd(lanes[1], s1);
  _mm256_storeu_pd(lanes[2], s2);
  _mm256_storeu_pd(lanes[3], s3);
  // Clean upper halves before SSE code runs again (GCC does not always
  // insert this here; dirty ones slow every later SSE instruction ~4x).
  _mm256_zeroupper();
  y[0] = FinishLanes(lanes[0], a0, x, blocks, n);
  y[1] = FinishLanes(lanes[1], a1, x, blocks, n);
  y[2] = FinishLanes(lanes[2], a2, x, blocks, n);
  y[3] = FinishLanes(lanes[3], a3, x, blocks, n);
}

// y[i] += t0·a0[i] + t1·a1[i] + t2·a2[i] + t3·a3[i], in that order, for
// i >= from.
void Axpy4Tail(const Real* t, const Real* a0, const Real* a1, const Real* a2,
               const Real* a3, Real* y, size_t from, size_t n) {
  for (size_t i = from; i < n; ++i) {
    Real acc = y[i];
    acc += t[0] * a0[i];
    acc += t[1] * a1[i];
    acc += t[2] * a2[i];
    acc += t[3] * a3[i];
    y[i] = acc;
  }
}

void Axpy4Sse2(const Real* t, const Real* __restrict a0,
               const Real* __restrict a1, const Real* __restrict a2,
               const Real* __restrict a3, Real* __restrict y, size_t n) {
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
  Axpy4Tail(t, a0, a1, a2, a3, y, i, n);
}

__attribute__((target("avx"))) void Axpy4Avx(const Real* t,
                                             const Real* __restrict a0,
                                             const Real* __restrict a1,
                                             const Real* __restrict a2,
                                             const Real* __restrict a3,
                                             Real* __restrict y, size_t n) {
  const __m256d t0 = _mm256_set1_pd(t[0]), t1 = _mm256_set1_pd(t[1]);
  const __m256d t2 = _mm256_set1_pd(t[2]), t3 = _mm256_set1_pd(t[3]);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    __m256d acc = _mm256_loadu_pd(y + i);
    acc = _mm256_add_pd(acc, _mm256_mul_pd(t0, _mm256_loadu_pd(a0 + i)));
    acc = _mm256_add_pd(acc, _mm256_mul_pd(t1, _mm256_loadu_pd(a1 + i)));
    acc = _mm256_add_pd(acc, _mm256_mul_pd(t2, _mm256_loadu_pd(a2 + i)));
    acc = _mm256_add_pd(acc, _mm256_mul_pd(t3, _mm256_loadu_pd(a3 + i)));
    _mm256_storeu_pd(y + i, acc);
  }
  _mm256_zeroupper();  // as in Dot4Avx
  Axpy4Tail(t, a0, a1, a2, a3, y, i, n);
}

}  // namespace

RowKernelWidth HostRowKernelWidth() {
  // libgcc's check covers the OS saving the AVX registers (XGETBV).
  static const RowKernelWidth width = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx") ? RowKernelWidth::kAvx
                                         : RowKernelWidth::kSse2;
  }();
  return width;
}

void MultiplyRowsX86(RowKernelWidth width, const DatasetView& data,
                     Span<const Real> x, Span<Real> y) {
  EDGEADMM_ASSERT(y.size() == data.samples());
  EDGEADMM_ASSERT(x.size() == data.dim());
  const auto dot4 = width == RowKernelWidth::kAvx ? Dot4Avx : Dot4Sse2;
  const size_t m = data.samples();
  const size_t blocks = m - m % kRowBlock;
  for (size_t j = 0; j < blocks; j += kRowBlock) {
    dot4(data.Row(j).data(), data.Row(j + 1).data(), data.Row(j + 2).data(),
         data.Row(j + 3).data(), x.data(), data.dim(), y.data() + j);
  }
  for (size_t j = blocks; j < m; ++j) y[j] = Dot(data.Row(j), x);
}

void MultiplyTransposedX86(RowKernelWidth width, const DatasetView& data,
                           Span<const Real> t, Span<Real> y) {
  EDGEADMM_ASSERT(t.size() == data.samples());
  EDGEADMM_ASSERT(y.size() == data.dim());
  const auto axpy4 = width == RowKernelWidth::kAvx ? Axpy4Avx : Axpy4Sse2;
  for (Real& value : y) value = 0;
  const size_t m = data.samples();
  const size_t blocks = m - m % kRowBlock;
  for (size_t j = 0; j < blocks; j += kRowBlock) {
    axpy4(t.data() + j, data.Row(j).data(), data.Row(j + 1).data(),
          data.Row(j + 2).data(), data.Row(j + 3).data(), y.data(), data.dim());
  }
  for (size_t j = blocks; j < m; ++j) Axpy(t[j], data.Row(j), y);
}

}  // namespace internal
}  // namespace edgeadmm
#endif
