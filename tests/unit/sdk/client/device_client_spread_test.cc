// RoundTask.upload_spread_ms: a cohort notified at once spreads its uploads
// over the task's spread, each device its own share (docs/protocol.md,
// "Upload spread").
#include <algorithm>
#include <new>

#include "client_test_rig.h"
#include "edgeadmm/device_client.h"
#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

using testing::ClientRig;
using testing::kRigDevices;
using testing::RigDevice;

alignas(ClientRig) unsigned char spread_rig_storage[sizeof(ClientRig)];

// The virtual time (ms) at which each rig device's first upload was
// accepted, with the fake aggregator's tasks stating `spread_ms`; every
// device computes its step in the rig's first polls.
struct UploadTimes {
  uint64_t computed = 0;  // when the last device had computed its step
  uint64_t accepted[kRigDevices] = {};
};

bool RunOneRound(uint32_t spread_ms, UploadTimes& times) {
  FakeAggregatorConfig config = ClientRig::DefaultConfig();
  config.upload_spread_ms = spread_ms;
  auto* rig = new (spread_rig_storage) ClientRig(LinkConfig{}, config);
  bool all = false;
  for (int i = 0; i < 2000 && !all; ++i) {
    rig->PollOnce();
    all = true;
    bool computed = true;
    for (size_t d = 0; d < kRigDevices; ++d) {
      RigDevice& device = rig->device(d);
      computed = computed && device.client.counters().steps_computed == 1;
      const FakeDeviceEntry* e = rig->server().Find(device.id);
      if (e != nullptr && e->accepted == 1 && times.accepted[d] == 0) {
        times.accepted[d] = rig->now_ms();
      }
      all = all && times.accepted[d] != 0;
    }
    if (computed && times.computed == 0) times.computed = rig->now_ms();
  }
  rig->~ClientRig();
  return all;
}

TEST(DeviceClientSpreadTest, ACohortSpreadsItsUploadsOverTheTasksSpread) {
  constexpr uint32_t kSpreadMs = 5000;
  UploadTimes spread;
  ASSERT_TRUE(RunOneRound(kSpreadMs, spread));
  UploadTimes at_once;
  ASSERT_TRUE(RunOneRound(0, at_once));
  const auto [first, last] =
      std::minmax_element(spread.accepted, spread.accepted + kRigDevices);
  // Each device waited its own share, within the spread (plus the
  // exchange's few 100-ms polls), so the uploads came apart...
  EXPECT_LE(*last, spread.computed + kSpreadMs + 500);
  EXPECT_GE(*last - *first, 1000u);
  // ...where without a spread they come in the same polls.
  const auto [first0, last0] =
      std::minmax_element(at_once.accepted, at_once.accepted + kRigDevices);
  EXPECT_LE(*last0 - *first0, 200u);
  EXPECT_LT(*last0, *last);
}

}  // namespace
}  // namespace edgeadmm
