// MCU test harness: the GoogleTest subset the SDK's portable tests use
// (TEST, TEST_F with SetUp/TearDown, EXPECT_/ASSERT_ TRUE FALSE EQ NE LT LE
// GT GE NEAR DOUBLE_EQ STREQ, `<< message`), with no heap, exceptions, RTTI or
// stdio. Tests register themselves through static constructors (run by the
// board's startup); the runner (harness.cc) prints one line per test and
// `N passed, N failed`, and main() returns non-zero on any failure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace testing {

// Bounded text buffer for failure messages (truncates silently).
class Text {
 public:
  void Append(const char* text);
  void AppendSigned(long long value);
  void AppendUnsigned(unsigned long long value);
  void AppendDouble(double value);
  void AppendPointer(const void* pointer);
  const char* c_str() const { return buffer_; }

 private:
  char buffer_[240] = {};
  size_t length_ = 0;
};

namespace internal {

template <typename T, typename = void>
struct HasStr : std::false_type {};
template <typename T>
struct HasStr<T, std::void_t<decltype(static_cast<const char*>(
                     std::declval<const T&>().str()))>> : std::true_type {};

// Prints a value the way the test failure message shows it.
template <typename T>
void PrintValue(Text& out, const T& value) {
  using D = std::decay_t<T>;
  if constexpr (std::is_same_v<D, bool>) {
    out.Append(value ? "true" : "false");
  } else if constexpr (std::is_same_v<D, std::nullptr_t>) {
    out.Append("nullptr");
  } else if constexpr (std::is_enum_v<D>) {
    out.AppendSigned(static_cast<long long>(value));
  } else if constexpr (std::is_integral_v<D> && std::is_signed_v<D>) {
    out.AppendSigned(value);
  } else if constexpr (std::is_integral_v<D>) {
    out.AppendUnsigned(value);
  } else if constexpr (std::is_floating_point_v<D>) {
    out.AppendDouble(static_cast<double>(value));
  } else if constexpr (std::is_same_v<D, const char*> ||
                       std::is_same_v<D, char*>) {
    out.Append(value == nullptr ? "(null)" : value);
  } else if constexpr (std::is_pointer_v<D>) {
    out.AppendPointer(static_cast<const void*>(value));
  } else if constexpr (HasStr<D>::value) {
    out.Append(value.str());
  } else {
    out.Append("<object>");
  }
}

}  // namespace internal

// The `<< message` part of an assertion.
class Message {
 public:
  template <typename T>
  Message& operator<<(const T& value) {
    internal::PrintValue(text_, value);
    return *this;
  }
  const char* c_str() const { return text_.c_str(); }

 private:
  Text text_;
};

// SCOPED_TRACE: adds "file:line: message" to every failure in its scope.
class ScopedTrace {
 public:
  template <typename T>
  ScopedTrace(const char* file, int line, const T& message) {
    text_.Append(file);
    text_.Append(":");
    text_.AppendSigned(line);
    text_.Append(": ");
    internal::PrintValue(text_, message);
    Push();
  }
  ~ScopedTrace() { Pop(); }
  ScopedTrace(const ScopedTrace&) = delete;
  ScopedTrace& operator=(const ScopedTrace&) = delete;

  // Innermost active trace (nullptr if none) and the one it encloses.
  static const ScopedTrace* Top();
  const ScopedTrace* outer() const { return outer_; }
  const char* c_str() const { return text_.c_str(); }

 private:
  void Push();
  void Pop();
  Text text_;
  const ScopedTrace* outer_ = nullptr;
};

// Base of every test; fixtures derive from it and override SetUp/TearDown.
class Test {
 public:
  virtual void SetUp() {}
  virtual void TearDown() {}

 protected:
  Test() = default;
  ~Test() = default;  // not virtual: no deleting destructor, no operator delete
};

namespace internal {

// Outcome of one check, with the failure description when it failed.
class AssertionResult {
 public:
  explicit AssertionResult(bool success) : success_(success) {}
  explicit operator bool() const { return success_; }
  Text& text() { return text_; }
  const Text& text() const { return text_; }

 private:
  bool success_;
  Text text_;
};

// Records a failure (and prints it) when assigned the user's message.
class AssertHelper {
 public:
  AssertHelper(const char* file, int line, bool fatal,
               const AssertionResult& result)
      : file_(file), line_(line), fatal_(fatal), result_(result) {}
  void operator=(const Message& message) const;

 private:
  const char* file_;
  int line_;
  bool fatal_;
  const AssertionResult& result_;
};

bool HasFatalFailure();

struct TestInfo {
  const char* suite;
  const char* name;
  void (*run)();
  TestInfo* next;
};

// Appends a test to the run list (in registration order).
void RegisterTest(TestInfo* info);

struct Registrar {
  explicit Registrar(TestInfo* info) { RegisterTest(info); }
};

template <typename T>
void RunTest() {
  T test;
  Test& base = test;  // SetUp/TearDown may be protected in the fixture
  base.SetUp();
  if (!HasFatalFailure()) test.TestBody();
  base.TearDown();
}

template <typename A, typename B>
AssertionResult Compare(bool success, const char* op, const char* a_text,
                        const char* b_text, const A& a, const B& b) {
  AssertionResult result(success);
  if (!success) {
    Text& t = result.text();
    t.Append("Expected: (");
    t.Append(a_text);
    t.Append(") ");
    t.Append(op);
    t.Append(" (");
    t.Append(b_text);
    t.Append("), actual: ");
    PrintValue(t, a);
    t.Append(" vs ");
    PrintValue(t, b);
  }
  return result;
}

template <typename Predicate, typename A, typename B>
AssertionResult CompareWith(Predicate predicate, const char* op,
                            const char* a_text, const char* b_text, const A& a,
                            const B& b) {
  return Compare(predicate(a, b), op, a_text, b_text, a, b);
}

// A float build of the SDK (EDGEADMM_REAL=float, the cortex-m4f preset)
// computes in float32, while the portable tests' tolerances are written for
// double: there NEAR and DOUBLE_EQ also accept |a − b| ≤
// r·max(1,|a|,|b|), with r the running test's float32 slack from the table
// in tests/target/src/float_tolerances.cc (each entry bounded, measured and
// justified there; a test not listed gets r = 0 and compares as written).
// The harness prints "[ SLACK    ] suite.name r_used" after a test that
// needed slack (the largest relative difference the slack let through), so
// the table can be checked and tightened. Double builds compare as written.
#if defined(EDGEADMM_REAL_FLOAT) && EDGEADMM_REAL_FLOAT
inline constexpr bool kFloatBuild = true;
#else
inline constexpr bool kFloatBuild = false;
#endif
// The running suite's r (0 in double builds), and the record of its use.
double CurrentFloatRelative();
// The table's r for the test (tests/target/src/float_tolerances.cc).
double FloatToleranceFor(const char* suite, const char* test);
void NoteFloatSlackUsed(double relative);

inline double FloatScale(double a, double b) {
  double scale = 1;
  if (a > scale || -a > scale) scale = a > 0 ? a : -a;
  if (b > scale || -b > scale) scale = b > 0 ? b : -b;
  return scale;
}
inline double FloatSlack(double a, double b) {
  return CurrentFloatRelative() * FloatScale(a, b);
}

// True when |a − b| ≤ bound, or within the float slack (noted as used).
inline bool WithinOrSlack(double a, double b, double bound) {
  const double difference = a > b ? a - b : b - a;
  if (difference <= bound) return true;
  if (!(difference <= FloatSlack(a, b))) return false;
  NoteFloatSlackUsed(difference / FloatScale(a, b));
  return true;
}

template <typename A, typename B, typename T>
AssertionResult Near(const char* a_text, const char* b_text, const A& a,
                     const B& b, const T& tolerance) {
  return Compare(WithinOrSlack(static_cast<double>(a), static_cast<double>(b),
                               static_cast<double>(tolerance)),
                 "near", a_text, b_text, a, b);
}

inline AssertionResult Boolean(bool value, bool expected, const char* text) {
  AssertionResult result(value == expected);
  if (value != expected) {
    result.text().Append("Value of: ");
    result.text().Append(text);
    result.text().Append(expected ? "\n  Actual: false\nExpected: true"
                                  : "\n  Actual: true\nExpected: false");
  }
  return result;
}

// True when a and b are within 4 units in the last place (GoogleTest's rule).
bool AlmostEqualDoubles(double a, double b);

inline bool StringsEqual(const char* a, const char* b) {
  if (a == nullptr || b == nullptr) return a == b;
  return std::strcmp(a, b) == 0;
}

}  // namespace internal
}  // namespace testing

#define EDGEADMM_TT_CLASS_(suite, name) suite##_##name##_Test

#define EDGEADMM_TT_DEFINE_(suite, name, parent)                           \
  class EDGEADMM_TT_CLASS_(suite, name) : public parent {                  \
   public:                                                                 \
    void TestBody();                                                       \
  };                                                                       \
  static ::testing::internal::TestInfo suite##_##name##_info_ = {          \
      #suite, #name,                                                       \
      &::testing::internal::RunTest<EDGEADMM_TT_CLASS_(suite, name)>,      \
      nullptr};                                                            \
  static const ::testing::internal::Registrar suite##_##name##_registrar_( \
      &suite##_##name##_info_);                                            \
  void EDGEADMM_TT_CLASS_(suite, name)::TestBody()

#define EDGEADMM_TT_CONCAT2_(a, b) a##b
#define EDGEADMM_TT_CONCAT_(a, b) EDGEADMM_TT_CONCAT2_(a, b)
#define SCOPED_TRACE(message)                       \
  const ::testing::ScopedTrace EDGEADMM_TT_CONCAT_( \
      edgeadmm_tt_trace_, __LINE__)(__FILE__, __LINE__, (message))

#define TEST(suite, name) EDGEADMM_TT_DEFINE_(suite, name, ::testing::Test)
#define TEST_F(fixture, name) EDGEADMM_TT_DEFINE_(fixture, name, fixture)

// `if (ok) ; else report = Message() << ...`; the fatal form returns from the
// test body (GoogleTest's technique, so `<< message` works on both).
#define EDGEADMM_TT_CHECK_(result_expr, fatal, on_failure)                    \
  switch (0)                                                                  \
  case 0:                                                                     \
  default:                                                                    \
    if (const ::testing::internal::AssertionResult edgeadmm_tt_result_ =      \
            (result_expr))                                                    \
      ;                                                                       \
    else                                                                      \
      on_failure ::testing::internal::AssertHelper(__FILE__, __LINE__, fatal, \
                                                   edgeadmm_tt_result_) =     \
          ::testing::Message()

#define EDGEADMM_TT_EXPECT_(result_expr) \
  EDGEADMM_TT_CHECK_(result_expr, false, )
#define EDGEADMM_TT_ASSERT_(result_expr) \
  EDGEADMM_TT_CHECK_(result_expr, true, return )

// Every operand is evaluated exactly once (it may have side effects).
#define EDGEADMM_TT_CMP_(op, a, b)                                            \
  ::testing::internal::CompareWith(                                           \
      [](const auto& x, const auto& y) { return static_cast<bool>(x op y); }, \
      #op, #a, #b, (a), (b))
#define EDGEADMM_TT_BOOL_(cond, expected) \
  ::testing::internal::Boolean(static_cast<bool>(cond), expected, #cond)
#define EDGEADMM_TT_NEAR_(a, b, tolerance) \
  ::testing::internal::Near(#a, #b, (a), (b), (tolerance))
#define EDGEADMM_TT_DOUBLE_EQ_(a, b)                            \
  ::testing::internal::CompareWith(                             \
      [](double x, double y) {                                  \
        return ::testing::internal::AlmostEqualDoubles(x, y) || \
               ::testing::internal::WithinOrSlack(x, y, 0);     \
      },                                                        \
      "~=", #a, #b, static_cast<double>(a), static_cast<double>(b))
#define EDGEADMM_TT_STREQ_(a, b)                        \
  ::testing::internal::CompareWith(                     \
      [](const char* x, const char* y) {                \
        return ::testing::internal::StringsEqual(x, y); \
      },                                                \
      "streq", #a, #b, static_cast<const char*>(a),     \
      static_cast<const char*>(b))

#define EXPECT_TRUE(cond) EDGEADMM_TT_EXPECT_(EDGEADMM_TT_BOOL_(cond, true))
#define EXPECT_FALSE(cond) EDGEADMM_TT_EXPECT_(EDGEADMM_TT_BOOL_(cond, false))
#define EXPECT_EQ(a, b) EDGEADMM_TT_EXPECT_(EDGEADMM_TT_CMP_(==, a, b))
#define EXPECT_NE(a, b) EDGEADMM_TT_EXPECT_(EDGEADMM_TT_CMP_(!=, a, b))
#define EXPECT_LT(a, b) EDGEADMM_TT_EXPECT_(EDGEADMM_TT_CMP_(<, a, b))
#define EXPECT_LE(a, b) EDGEADMM_TT_EXPECT_(EDGEADMM_TT_CMP_(<=, a, b))
#define EXPECT_GT(a, b) EDGEADMM_TT_EXPECT_(EDGEADMM_TT_CMP_(>, a, b))
#define EXPECT_GE(a, b) EDGEADMM_TT_EXPECT_(EDGEADMM_TT_CMP_(>=, a, b))
#define EXPECT_NEAR(a, b, tol) EDGEADMM_TT_EXPECT_(EDGEADMM_TT_NEAR_(a, b, tol))
#define EXPECT_DOUBLE_EQ(a, b) EDGEADMM_TT_EXPECT_(EDGEADMM_TT_DOUBLE_EQ_(a, b))
#define EXPECT_STREQ(a, b) EDGEADMM_TT_EXPECT_(EDGEADMM_TT_STREQ_(a, b))

#define ASSERT_TRUE(cond) EDGEADMM_TT_ASSERT_(EDGEADMM_TT_BOOL_(cond, true))
#define ASSERT_FALSE(cond) EDGEADMM_TT_ASSERT_(EDGEADMM_TT_BOOL_(cond, false))
#define ASSERT_EQ(a, b) EDGEADMM_TT_ASSERT_(EDGEADMM_TT_CMP_(==, a, b))
#define ASSERT_NE(a, b) EDGEADMM_TT_ASSERT_(EDGEADMM_TT_CMP_(!=, a, b))
#define ASSERT_LT(a, b) EDGEADMM_TT_ASSERT_(EDGEADMM_TT_CMP_(<, a, b))
#define ASSERT_LE(a, b) EDGEADMM_TT_ASSERT_(EDGEADMM_TT_CMP_(<=, a, b))
#define ASSERT_GT(a, b) EDGEADMM_TT_ASSERT_(EDGEADMM_TT_CMP_(>, a, b))
#define ASSERT_GE(a, b) EDGEADMM_TT_ASSERT_(EDGEADMM_TT_CMP_(>=, a, b))
#define ASSERT_NEAR(a, b, tol) EDGEADMM_TT_ASSERT_(EDGEADMM_TT_NEAR_(a, b, tol))
#define ASSERT_DOUBLE_EQ(a, b) EDGEADMM_TT_ASSERT_(EDGEADMM_TT_DOUBLE_EQ_(a, b))
#define ASSERT_STREQ(a, b) EDGEADMM_TT_ASSERT_(EDGEADMM_TT_STREQ_(a, b))
