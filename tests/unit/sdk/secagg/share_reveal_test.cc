// A device's unmasking answer (sdk/src/secagg/share_reveal.cc): the self
// seed's share for listed survivors, the mask key's for the others, exactly
// one per neighbour; nothing for an unsorted list, a list without the
// device, or one below the threshold. Portable.
#include "edgeadmm/secagg/share_reveal.h"

#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

class ShareRevealTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const uint32_t senders[3] = {2, 5, 9};
    for (int i = 0; i < 3; ++i) {
      received_[i].sender = senders[i];
      received_[i].shares.self_seed.index = 4;
      received_[i].shares.mask_key.index = 4;
      received_[i].shares.self_seed.value[0] = static_cast<std::byte>(10 + i);
      received_[i].shares.mask_key.value[0] = static_cast<std::byte>(20 + i);
    }
  }
  Status Select(Span<const uint32_t> survivors, size_t min_survivors) {
    return SelectRevealedShares(Span<const ReceivedShares>(received_, 3),
                                survivors, 7, min_survivors,
                                Span<RevealedShare>(out_, 3));
  }
  ReceivedShares received_[3];
  RevealedShare out_[3];
};

TEST_F(ShareRevealTest, OneShareOfTheRightSecretPerNeighbour) {
  const uint32_t survivors[4] = {1, 5, 7, 9};  // 2 dropped
  ASSERT_TRUE(Select(Span<const uint32_t>(survivors, 4), 4).ok());
  EXPECT_EQ(out_[0].sender, 2u);
  EXPECT_FALSE(out_[0].self_seed);
  EXPECT_EQ(out_[0].share.value[0], std::byte{20});  // mask key share
  EXPECT_TRUE(out_[1].self_seed);
  EXPECT_EQ(out_[1].share.value[0], std::byte{11});  // self seed share
  EXPECT_TRUE(out_[2].self_seed);
  EXPECT_EQ(out_[2].share.value[0], std::byte{12});
  EXPECT_EQ(out_[2].share.index, 4);
}

TEST_F(ShareRevealTest, RefusesBadLists) {
  const uint32_t unsorted[3] = {7, 5, 9};
  EXPECT_EQ(Select(Span<const uint32_t>(unsorted, 3), 1),
            Status::InvalidArgument());
  const uint32_t twice[3] = {5, 7, 7};
  EXPECT_EQ(Select(Span<const uint32_t>(twice, 3), 1),
            Status::InvalidArgument());
  const uint32_t without_me[3] = {2, 5, 9};
  EXPECT_EQ(Select(Span<const uint32_t>(without_me, 3), 1),
            Status::FailedPrecondition());
  const uint32_t few[2] = {5, 7};
  EXPECT_EQ(Select(Span<const uint32_t>(few, 2), 3),
            Status::FailedPrecondition());
  EXPECT_EQ(out_[1].share.value[0], std::byte{0});  // zeroized
  EXPECT_EQ(SelectRevealedShares(Span<const ReceivedShares>(received_, 3),
                                 Span<const uint32_t>(few, 2), 7, 1,
                                 Span<RevealedShare>(out_, 2)),
            Status::InvalidArgument());
}

}  // namespace
}  // namespace edgeadmm
