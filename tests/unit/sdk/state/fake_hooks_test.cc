// Fake panic/log hooks (testing): a panic can be caught, the log is
// recorded. Portable; links edgeadmm::fake_hooks instead of the POSIX hooks.
#include "edgeadmm/fake/fake_hooks.h"

#include <cstring>

#include "edgeadmm/assert.h"
#include "edgeadmm/log.h"
#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

void FailAssert(void* arg) {
  int* value = static_cast<int*>(arg);
  EDGEADMM_ASSERT(*value == 0);
  *value = -1;  // not reached when the assert fires
}

TEST(FakeHooksTest, PanicIsCaughtAndRecorded) {
  const uint32_t before = fake::PanicCount();
  int value = 3;
  EXPECT_TRUE(fake::RunExpectingPanic(&FailAssert, &value));
  EXPECT_EQ(value, 3);
  EXPECT_EQ(fake::PanicCount(), before + 1);
  EXPECT_TRUE(std::strstr(fake::LastPanicMessage(), "*value == 0") != nullptr);
  value = 0;
  EXPECT_FALSE(fake::RunExpectingPanic(&FailAssert, &value));
  EXPECT_EQ(value, -1);
  EXPECT_EQ(fake::PanicCount(), before + 1);
}

TEST(FakeHooksTest, LogLinesAreRecorded) {
  fake::ResetLog();
  edgeadmm_log(EDGEADMM_LOG_LEVEL_WARN, "round %d refused", 7);
  edgeadmm_log(EDGEADMM_LOG_LEVEL_ERROR, "x");
  EXPECT_EQ(fake::LogCount(EDGEADMM_LOG_LEVEL_WARN), 1u);
  EXPECT_EQ(fake::LogCount(EDGEADMM_LOG_LEVEL_ERROR), 1u);
  EXPECT_EQ(fake::LogCount(EDGEADMM_LOG_LEVEL_DEBUG), 0u);
  EXPECT_STREQ(fake::LastLogLine(), "x");
  fake::ResetLog();
  EXPECT_EQ(fake::LogCount(EDGEADMM_LOG_LEVEL_WARN), 0u);
  EXPECT_STREQ(fake::LastLogLine(), "");
}

}  // namespace
}  // namespace edgeadmm
