#include "edgeadmm/status.h"

#include <cstring>

#include "edgeadmm/result.h"
#include "edgeadmm/workspace.h"
#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

Result<int> Half(int x) {
  if (x % 2 != 0) return Status::InvalidArgument();
  return x / 2;
}

Status Quarter(int x, int* out) {
  EDGEADMM_TRY_ASSIGN(int half, Half(x));
  EDGEADMM_TRY_ASSIGN(*out, Half(half));
  return Status::Ok();
}

TEST(StatusTest, CodesHaveCanonicalNames) {
  EXPECT_STREQ(Status::Ok().str(), "OK");
  EXPECT_STREQ(Status::DataLoss().str(), "DATA_LOSS");
  EXPECT_STREQ(Status::ResourceExhausted().str(), "RESOURCE_EXHAUSTED");
  EXPECT_EQ(Status::Unauthenticated().code(), StatusCode::kUnauthenticated);
  EXPECT_FALSE(Status::Internal().ok());
}

TEST(StatusTest, TryPropagatesFirstError) {
  int out = -1;
  EXPECT_TRUE(Quarter(12, &out).ok());
  EXPECT_EQ(out, 3);
  EXPECT_EQ(Quarter(6, &out), Status::InvalidArgument());  // 6/2 = 3 is odd
  EXPECT_EQ(Quarter(5, &out), Status::InvalidArgument());
}

TEST(StatusTest, StatusWithSizeCarriesBoth) {
  StatusWithSize s(Status::OutOfRange(), 7);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.size(), 7u);
  EXPECT_EQ(s.status(), Status::OutOfRange());
}

TEST(WorkspaceTest, AllocatesAlignedZeroedSlicesAndRefusesOverflow) {
  alignas(16) std::byte memory[Workspace::Bytes<double>(10) +
                               Workspace::Bytes<float>(3)];
  std::memset(memory, 0xAB, sizeof(memory));
  Workspace ws(ByteSpan(memory, sizeof(memory)));
  auto a = ws.Allocate<double>(10);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a->data()) % Workspace::kAlignment, 0u);
  for (double v : *a) EXPECT_EQ(v, 0.0);
  auto b = ws.Allocate<float>(3);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(ws.Allocate<double>(100).status(), Status::ResourceExhausted());
  EXPECT_EQ(ws.Allocate<double>(SIZE_MAX / 4).status(),
            Status::ResourceExhausted());
}

}  // namespace
}  // namespace edgeadmm
