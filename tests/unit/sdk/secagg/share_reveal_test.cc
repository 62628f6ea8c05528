// A device's unmasking answer (sdk/src/secagg/share_reveal.cc): the self
// seed's share for listed survivors, the mask key's for the others, exactly
// one per neighbour; nothing for an unsorted list, a list without the
// device or naming a device that sent no shares, or a count in all that is
// below the list's or the threshold. Portable.
#include "edgeadmm/secagg/share_reveal.h"

#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

constexpr uint32_t kOwn = 7;

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
  template <size_t N>
  Status Select(const uint32_t (&listed)[N], uint32_t survivors,
                uint32_t min_survivors, size_t out = 3) {
    SurvivorAnswer answer;
    answer.survivors = survivors;
    answer.listed = Span<const uint32_t>(listed, N);
    RevealRound round;
    round.own_index = kOwn;
    round.min_survivors = min_survivors;
    return SelectRevealedShares(Span<const ReceivedShares>(received_, 3),
                                answer, round, Span<RevealedShare>(out_, out));
  }
  ReceivedShares received_[3];
  RevealedShare out_[3];
};

TEST_F(ShareRevealTest, OneShareOfTheRightSecretPerNeighbour) {
  const uint32_t listed[3] = {5, 7, 9};  // 2 dropped; 30 survived in all
  ASSERT_TRUE(Select(listed, 30, 30).ok());
  EXPECT_EQ(out_[0].sender, 2u);
  EXPECT_FALSE(out_[0].self_seed);
  EXPECT_EQ(out_[0].share.value[0], std::byte{20});  // mask key share
  EXPECT_TRUE(out_[1].self_seed);
  EXPECT_EQ(out_[1].share.value[0], std::byte{11});  // self seed share
  EXPECT_TRUE(out_[2].self_seed);
  EXPECT_EQ(out_[2].share.value[0], std::byte{12});
  EXPECT_EQ(out_[2].share.index, 4);
  // Only the device itself survived among its neighbourhood.
  const uint32_t alone[1] = {kOwn};
  ASSERT_TRUE(Select(alone, 20, 20).ok());
  for (const RevealedShare& r : out_) EXPECT_FALSE(r.self_seed);
}

TEST_F(ShareRevealTest, RefusesBadLists) {
  const uint32_t unsorted[3] = {7, 5, 9};
  EXPECT_EQ(Select(unsorted, 30, 1), Status::InvalidArgument());
  const uint32_t twice[3] = {5, 7, 7};
  EXPECT_EQ(Select(twice, 30, 1), Status::InvalidArgument());
  // A device that sent this one no shares (1), listed or in place of one.
  const uint32_t stranger[4] = {1, 5, 7, 9};
  EXPECT_EQ(Select(stranger, 30, 1), Status::InvalidArgument());
  const uint32_t stranger_only[2] = {3, 7};
  EXPECT_EQ(Select(stranger_only, 30, 1), Status::InvalidArgument());
  const uint32_t without_me[3] = {2, 5, 9};
  EXPECT_EQ(Select(without_me, 30, 1), Status::FailedPrecondition());
  const uint32_t listed[3] = {5, 7, 9};
  // The count in all: below the list's, below the floor.
  EXPECT_EQ(Select(listed, 2, 1), Status::InvalidArgument());
  EXPECT_EQ(Select(listed, 29, 30), Status::FailedPrecondition());
  EXPECT_EQ(out_[1].share.value[0], std::byte{0});                 // zeroized
  EXPECT_EQ(Select(listed, 30, 1, 2), Status::InvalidArgument());  // out short
  // The same answer at the limits is taken.
  EXPECT_TRUE(Select(listed, 3, 3).ok());
}

}  // namespace
}  // namespace edgeadmm
