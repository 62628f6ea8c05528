// The heap-free printf subset of platform/baremetal (format.h).
#include "edgeadmm/baremetal/format.h"

#include <climits>
#include <cstdint>

#include "gtest/gtest.h"

namespace edgeadmm::baremetal {
namespace {

// Formats into a static buffer (one result alive at a time).
template <typename... Args>
const char* F(const char* format, Args... args) {
  static char buffer[96];
  Format(buffer, sizeof(buffer), format, args...);
  return buffer;
}

TEST(FormatTest, Integers) {
  EXPECT_STREQ(F("%d|%i|%u", -42, 7, 42u), "-42|7|42");
  EXPECT_STREQ(F("%5d|%-5d|%05d", 42, 42, -42), "   42|42   |-0042");
  EXPECT_STREQ(F("%x|%X|%08x", 255u, 255u, 0xbeefu), "ff|FF|0000beef");
  EXPECT_STREQ(F("%lld", LLONG_MIN), "-9223372036854775808");
  EXPECT_STREQ(F("%llu", ULLONG_MAX), "18446744073709551615");
  EXPECT_STREQ(F("%zu|%ld", size_t{123}, -5L), "123|-5");
  EXPECT_STREQ(F("%+d|% d", 3, 3), "+3| 3");
  EXPECT_STREQ(F("%.3d", 7), "007");
}

// The null %s argument is the point of the last check.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-overflow"
TEST(FormatTest, StringsAndCharacters) {
  EXPECT_STREQ(F("[%s][%6s][%-6s][%.2s]", "ab", "ab", "ab", "abc"),
               "[ab][    ab][ab    ][ab]");
  EXPECT_STREQ(F("%c%c%%", 'o', 'k'), "ok%");
  EXPECT_STREQ(F("%s", static_cast<const char*>(nullptr)), "(null)");
}
#pragma GCC diagnostic pop

TEST(FormatTest, FixedPoint) {
  EXPECT_STREQ(F("%f", 3.14159), "3.141590");
  EXPECT_STREQ(F("%.2f|%8.3f|%-8.1f|", 2.675, -1.5, 0.26),
               "2.67|  -1.500|0.3     |");
  // Exact binary ties round up (glibc rounds them to even: "0.2").
  EXPECT_STREQ(F("%.1f", 0.25), "0.3");
  EXPECT_STREQ(F("%.0f|%.1f", 2.5, 9.96), "3|10.0");
  EXPECT_STREQ(F("%.3f", 1e-9), "0.000");
  EXPECT_STREQ(F("%f", -0.0), "-0.000000");
}

TEST(FormatTest, ExponentialAndGeneral) {
  EXPECT_STREQ(F("%e", 12345.678), "1.234568e+04");
  EXPECT_STREQ(F("%.2E", 0.000123), "1.23E-04");
  EXPECT_STREQ(F("%.3e", 9.9996), "1.000e+01");
  EXPECT_STREQ(F("%e", 1e-300), "1.000000e-300");
  EXPECT_STREQ(F("%g|%g|%g", 100000.0, 1e6, 1e-5), "100000|1e+06|1e-05");
  EXPECT_STREQ(F("%g|%g", 0.5, 0.0), "0.5|0");
  // About 15 significant digits are exact (see format.h).
  EXPECT_STREQ(F("%.15g|%.10g", 0.1, 2.0 / 3.0), "0.1|0.6666666667");
  EXPECT_STREQ(F("%f|%e", 1.0 / 0.0, -1.0 / 0.0), "inf|-inf");
}

TEST(FormatTest, TruncatesAndReportsFullLength) {
  char small[5];
  EXPECT_EQ(Format(small, sizeof(small), "%s", "abcdefgh"), 8);
  EXPECT_STREQ(small, "abcd");
  EXPECT_EQ(Format(nullptr, 0, "%d", 12345), 5);
}

}  // namespace
}  // namespace edgeadmm::baremetal
