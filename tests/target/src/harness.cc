// Runner of the MCU test harness (include/gtest/gtest.h): runs every
// registered test in order, prints GoogleTest-like progress lines and a final
// `N passed, N failed` on the semihosting console; main() returns 0 only if at
// least one test ran and none failed.
#include <cstdint>
#include <cstring>

#include "edgeadmm/baremetal/format.h"
#include "edgeadmm/board/board.h"
#include "gtest/gtest.h"

namespace testing {
namespace {

using edgeadmm::baremetal::Format;
using edgeadmm::board::ConsoleWrite;

internal::TestInfo* first_test = nullptr;
internal::TestInfo* last_test = nullptr;
bool current_failed = false;
bool current_fatal = false;
const ScopedTrace* top_trace = nullptr;
double current_float_relative = 0;
double float_slack_used = 0;

}  // namespace

void Text::Append(const char* text) {
  while (*text != '\0' && length_ + 1 < sizeof(buffer_)) {
    buffer_[length_++] = *text++;
  }
  buffer_[length_] = '\0';
}

void Text::AppendSigned(long long value) {
  char digits[24];
  Format(digits, sizeof(digits), "%lld", value);
  Append(digits);
}

void Text::AppendUnsigned(unsigned long long value) {
  char digits[24];
  Format(digits, sizeof(digits), "%llu", value);
  Append(digits);
}

void Text::AppendDouble(double value) {
  char digits[32];
  Format(digits, sizeof(digits), "%.17g", value);
  Append(digits);
}

void Text::AppendPointer(const void* pointer) {
  char digits[24];
  Format(digits, sizeof(digits), "%p", pointer);
  Append(digits);
}

const ScopedTrace* ScopedTrace::Top() { return top_trace; }
void ScopedTrace::Push() {
  outer_ = top_trace;
  top_trace = this;
}
void ScopedTrace::Pop() { top_trace = outer_; }

namespace internal {

void AssertHelper::operator=(const Message& message) const {
  current_failed = true;
  if (fatal_) current_fatal = true;
  char line[320];
  Format(line, sizeof(line), "%s:%d: Failure\n%s\n", file_, line_,
         result_.text().c_str());
  ConsoleWrite(line);
  if (message.c_str()[0] != '\0') {
    ConsoleWrite(message.c_str());
    ConsoleWrite("\n");
  }
  if (ScopedTrace::Top() != nullptr) ConsoleWrite("Trace:\n");
  for (const ScopedTrace* t = ScopedTrace::Top(); t != nullptr;
       t = t->outer()) {
    ConsoleWrite(t->c_str());
    ConsoleWrite("\n");
  }
}

bool HasFatalFailure() { return current_fatal; }

double CurrentFloatRelative() { return current_float_relative; }

void NoteFloatSlackUsed(double relative) {
  if (relative > float_slack_used) float_slack_used = relative;
}

void RegisterTest(TestInfo* info) {
  info->next = nullptr;
  if (last_test == nullptr) {
    first_test = info;
  } else {
    last_test->next = info;
  }
  last_test = info;
}

bool AlmostEqualDoubles(double a, double b) {
  if (a != a || b != b) return false;  // NaN equals nothing
  // Map the sign-magnitude bit patterns onto a monotone unsigned scale.
  auto biased = [](double x) {
    uint64_t bits;
    std::memcpy(&bits, &x, sizeof(bits));
    constexpr uint64_t kSign = uint64_t{1} << 63;
    return (bits & kSign) != 0 ? ~bits + 1 : bits | kSign;
  };
  const uint64_t ba = biased(a);
  const uint64_t bb = biased(b);
  return (ba >= bb ? ba - bb : bb - ba) <= 4;
}

}  // namespace internal
}  // namespace testing

int main() {
  using edgeadmm::baremetal::Format;
  int passed = 0;
  int failed = 0;
  char line[160];
  for (testing::internal::TestInfo* t = testing::first_test; t != nullptr;
       t = t->next) {
    Format(line, sizeof(line), "[ RUN      ] %s.%s\n", t->suite, t->name);
    edgeadmm::board::ConsoleWrite(line);
    testing::current_failed = false;
    testing::current_fatal = false;
    testing::current_float_relative =
        testing::internal::kFloatBuild
            ? testing::internal::FloatToleranceFor(t->suite, t->name)
            : 0;
    testing::float_slack_used = 0;
    t->run();
    const bool ok = !testing::current_failed;
    if (testing::float_slack_used > 0) {
      Format(line, sizeof(line), "[ SLACK    ] %s.%s %.3g of %.3g\n", t->suite,
             t->name, testing::float_slack_used,
             testing::current_float_relative);
      edgeadmm::board::ConsoleWrite(line);
    }
    Format(line, sizeof(line), "[ %s ] %s.%s\n", ok ? "      OK" : " FAILED ",
           t->suite, t->name);
    edgeadmm::board::ConsoleWrite(line);
    ++(ok ? passed : failed);
  }
  Format(line, sizeof(line), "%d passed, %d failed\n", passed, failed);
  edgeadmm::board::ConsoleWrite(line);
  return (failed == 0 && passed > 0) ? 0 : 1;
}
