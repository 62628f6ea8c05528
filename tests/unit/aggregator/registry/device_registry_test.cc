#include "edgeadmm/registry/device_registry.h"

#include <gtest/gtest.h>

#include <cmath>

#include "backend_test.h"
#include "test_database.h"

namespace edgeadmm::registry {
namespace {

// The same bodies on SQLite and on PostgreSQL.
class DeviceRegistryTest : public testing::BackendTest {};

TEST_P(DeviceRegistryTest, AddGivesFreshRandomPsk) {
  testing::TempDatabase t(GetParam());
  DeviceRegistry reg(t.db());
  auto a = reg.Add("sensor-1");
  auto b = reg.Add("sensor-2");
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(a->size(), kPskBytes);
  EXPECT_NE(*a, *b);
  EXPECT_NE(*a, std::vector<uint8_t>(kPskBytes, 0));
  auto psk = reg.LookupPsk("sensor-1");
  ASSERT_TRUE(psk.ok());
  EXPECT_EQ(*psk, *a);
}

TEST_P(DeviceRegistryTest, RejectsBadAndDuplicateIds) {
  testing::TempDatabase t(GetParam());
  DeviceRegistry reg(t.db());
  EXPECT_EQ(reg.Add("").status(), Status::InvalidArgument());
  EXPECT_EQ(reg.Add("has space").status(), Status::InvalidArgument());
  EXPECT_EQ(reg.Add(std::string(kMaxDeviceIdLength + 1, 'a')).status(),
            Status::InvalidArgument());
  EXPECT_TRUE(reg.Add(std::string(kMaxDeviceIdLength, 'a')).ok());
  EXPECT_TRUE(reg.Add("dup").ok());
  const std::string before = testing::Snapshot(t.db());
  EXPECT_EQ(reg.Add("dup").status(), Status::AlreadyExists());
  EXPECT_EQ(testing::Snapshot(t.db()), before);
}

TEST_P(DeviceRegistryTest, AddManyEnrollsAllInOneTransaction) {
  testing::TempDatabase t(GetParam());
  DeviceRegistry reg(t.db());
  std::vector<std::string> ids;
  for (int i = 0; i < 2000; ++i) ids.push_back("bulk-" + std::to_string(i));
  size_t failed = 99;
  auto psks = reg.AddMany(ids, &failed);
  ASSERT_TRUE(psks.ok());
  EXPECT_EQ(failed, ids.size());
  ASSERT_EQ(psks->size(), ids.size());
  EXPECT_NE((*psks)[0], (*psks)[1]);
  for (size_t i : {size_t{0}, size_t{777}, size_t{1999}}) {
    auto psk = reg.LookupPsk(ids[i]);
    ASSERT_TRUE(psk.ok());
    EXPECT_EQ(*psk, (*psks)[i]);
  }
  auto list = reg.List();
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->size(), ids.size());
}

TEST_P(DeviceRegistryTest, AddManyIsAllOrNothingAndNamesTheCulprit) {
  testing::TempDatabase t(GetParam());
  DeviceRegistry reg(t.db());
  ASSERT_TRUE(reg.Add("old").ok());
  const std::string before = testing::Snapshot(t.db());
  size_t failed = 0;
  EXPECT_EQ(reg.AddMany({"a", "b", "old", "c"}, &failed).status(),
            Status::AlreadyExists());
  EXPECT_EQ(failed, 2u);
  EXPECT_EQ(reg.AddMany({"a", "b", "a"}, &failed).status(),
            Status::AlreadyExists());
  EXPECT_EQ(failed, 2u);
  EXPECT_EQ(reg.AddMany({"a", "bad id"}, &failed).status(),
            Status::InvalidArgument());
  EXPECT_EQ(failed, 1u);
  EXPECT_EQ(reg.AddMany({}, &failed).status(), Status::InvalidArgument());
  // An error from the pre-commit hook (e.g. a key file that cannot be
  // written) rolls the whole batch back.
  EXPECT_EQ(reg.AddMany({"a", "b"}, &failed,
                        [](const DeviceRegistry::PskList& psks) {
                          EXPECT_EQ(psks.size(), 2u);
                          return Status::Unavailable();
                        })
                .status(),
            Status::Unavailable());
  EXPECT_EQ(testing::Snapshot(t.db()), before);
  EXPECT_TRUE(reg.AddMany({"a", "b"}).ok());
  EXPECT_TRUE(reg.LookupPsk("b").ok());
}

TEST_P(DeviceRegistryTest, DisabledAndUnknownDevicesHaveNoPsk) {
  testing::TempDatabase t(GetParam());
  DeviceRegistry reg(t.db());
  ASSERT_TRUE(reg.Add("d1").ok());
  ASSERT_TRUE(reg.Disable("d1").ok());
  EXPECT_EQ(reg.LookupPsk("d1").status(), Status::PermissionDenied());
  EXPECT_EQ(reg.LookupPsk("nobody").status(), Status::NotFound());
  ASSERT_TRUE(reg.Enable("d1").ok());
  EXPECT_TRUE(reg.LookupPsk("d1").ok());
  ASSERT_TRUE(reg.Remove("d1").ok());
  EXPECT_EQ(reg.LookupPsk("d1").status(), Status::NotFound());
  EXPECT_EQ(reg.Remove("d1"), Status::NotFound());
  EXPECT_EQ(reg.Disable("nobody"), Status::NotFound());
}

TEST_P(DeviceRegistryTest, ListIsSortedWithState) {
  testing::TempDatabase t(GetParam());
  DeviceRegistry reg(t.db());
  ASSERT_TRUE(reg.Add("b").ok());
  ASSERT_TRUE(reg.Add("a").ok());
  ASSERT_TRUE(reg.Disable("b").ok());
  auto list = reg.List();
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].id, "a");
  EXPECT_TRUE((*list)[0].enabled);
  EXPECT_EQ((*list)[1].id, "b");
  EXPECT_FALSE((*list)[1].enabled);
}

// Lifetime budgets (docs/privacy.md, "Lifetime budget"): stored, listed,
// removed; nonsense refused without a change.
TEST_P(DeviceRegistryTest, LifetimeBudgetIsSetListedAndRemoved) {
  testing::TempDatabase t(GetParam());
  DeviceRegistry reg(t.db());
  ASSERT_TRUE(reg.Add("d1").ok());
  EXPECT_FALSE(reg.Get("d1")->lifetime.has_value());
  ASSERT_TRUE(reg.SetLifetimeBudget("d1", LifetimeBudget{4.5, 1e-6}).ok());
  auto d = reg.Get("d1");
  ASSERT_TRUE(d.ok());
  ASSERT_TRUE(d->lifetime.has_value());
  EXPECT_EQ(d->lifetime->epsilon, 4.5);
  EXPECT_EQ(d->lifetime->delta, 1e-6);
  EXPECT_EQ((*reg.List())[0].lifetime->epsilon, 4.5);
  for (const LifetimeBudget bad :
       {LifetimeBudget{0, 1e-5}, LifetimeBudget{-1, 1e-5},
        LifetimeBudget{INFINITY, 1e-5}, LifetimeBudget{NAN, 1e-5},
        LifetimeBudget{1, 0}, LifetimeBudget{1, 1}}) {
    EXPECT_EQ(reg.SetLifetimeBudget("d1", bad), Status::InvalidArgument());
  }
  EXPECT_EQ(reg.Get("d1")->lifetime->epsilon, 4.5);
  EXPECT_EQ(reg.SetLifetimeBudget("nobody", LifetimeBudget{1, 1e-5}),
            Status::NotFound());
  ASSERT_TRUE(reg.SetLifetimeBudget("d1", std::nullopt).ok());
  EXPECT_FALSE(reg.Get("d1")->lifetime.has_value());
}

EDGEADMM_INSTANTIATE_BACKENDS(DeviceRegistryTest);

}  // namespace
}  // namespace edgeadmm::registry
