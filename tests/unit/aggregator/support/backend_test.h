// Tests that run the same bodies against both store backends:
//   class FooTest : public testing::BackendTest {};
//   TEST_P(FooTest, Bar) { testing::TempDatabase t(GetParam()); ... }
//   EDGEADMM_INSTANTIATE_BACKENDS(FooTest);
// The PostgreSQL instance is skipped, with the reason, only when the server
// binaries are absent (scripts/setup installs them).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "test_database.h"

namespace edgeadmm::testing {

class BackendTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    std::string why_not;
    if (!BackendAvailable(GetParam(), &why_not)) GTEST_SKIP() << why_not;
  }
};

// `backend` if it can run here, else SQLite: for a fixture's TempDatabase
// member, built before SetUp skips the test.
inline Backend UsableBackend(Backend backend) {
  std::string why_not;
  return BackendAvailable(backend, &why_not) ? backend : Backend::kSqlite;
}

inline std::string BackendParamName(
    const ::testing::TestParamInfo<Backend>& info) {
  return BackendName(info.param);
}

}  // namespace edgeadmm::testing

#define EDGEADMM_INSTANTIATE_BACKENDS(suite)                                \
  INSTANTIATE_TEST_SUITE_P(                                                 \
      Backends, suite, ::testing::ValuesIn(::edgeadmm::testing::kBackends), \
      ::edgeadmm::testing::BackendParamName)
