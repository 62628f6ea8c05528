// The x86-64 products with the data matrix (SSE2 and, where the CPU has it,
// AVX) against the plain loops' order of additions, bit for bit, on shapes
// with every remainder of rows and columns modulo 4.
#include <gtest/gtest.h>

#include <vector>

#include "math/row_kernels_x86.h"
#include "math_test_support.h"

#if EDGEADMM_ROW_KERNELS_X86
namespace edgeadmm {
namespace internal {
namespace {

using math_testing::DotInOrder;
using math_testing::FillVector;

constexpr size_t kMaxM = 23;
constexpr size_t kMaxP = 131;
math_testing::SyntheticData<kMaxM, kMaxP> g_data;

std::vector<RowKernelWidth> Widths() {
  std::vector<RowKernelWidth> widths = {RowKernelWidth::kSse2};
  if (HostRowKernelWidth() == RowKernelWidth::kAvx) {
    widths.push_back(RowKernelWidth::kAvx);
  }
  return widths;
}

TEST(RowKernelsX86Test, EveryWidthAddsInThePlainLoopsOrder) {
  for (const RowKernelWidth width : Widths()) {
    for (size_t m = 1; m <= kMaxM; m += 1 + m / 4) {
      for (size_t p = 1; p <= kMaxP; p += 1 + p / 3) {
        const DatasetView data = g_data.Fill(7 * m + p, m, p, false);
        Real x[kMaxP];
        Real t[kMaxM];
        FillVector(3 + p, 1.7, x, p);
        FillVector(5 + m, 0.9, t, m);
        Real rows[kMaxM];
        Real columns[kMaxP];
        MultiplyRowsX86(width, data, Span<const Real>(x, p),
                        Span<Real>(rows, m));
        MultiplyTransposedX86(width, data, Span<const Real>(t, m),
                              Span<Real>(columns, p));
        for (size_t j = 0; j < m; ++j) {
          ASSERT_EQ(rows[j], DotInOrder(g_data.features + j * p, x, p))
              << "width " << static_cast<int>(width) << " m " << m << " p " << p
              << " row " << j;
        }
        for (size_t i = 0; i < p; ++i) {
          Real expected = 0;
          for (size_t j = 0; j < m; ++j) {
            expected += t[j] * g_data.features[j * p + i];
          }
          ASSERT_EQ(columns[i], expected)
              << "width " << static_cast<int>(width) << " m " << m << " p " << p
              << " column " << i;
        }
      }
    }
  }
}

TEST(RowKernelsX86Test, TheHostWidthIsTheOneThisCpuRuns) {
  const bool avx = __builtin_cpu_supports("avx");
  EXPECT_EQ(HostRowKernelWidth(),
            avx ? RowKernelWidth::kAvx : RowKernelWidth::kSse2);
}

}  // namespace
}  // namespace internal
}  // namespace edgeadmm
#endif
