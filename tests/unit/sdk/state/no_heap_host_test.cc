// The noise, ledger and state code allocates nothing: everything from DRBG
// seeding to a full reseed cycle, noise, the ledger, paper 001's accountant
// and a state round trip
// runs inside a NoHeapScope (tests/support). Host-only (malloc interposer).
#include "edgeadmm/config.h"
#include "edgeadmm/device_state.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/memory_storage.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/gaussian_sampler.h"
#include "edgeadmm/norm_gamma_sampler.h"
#include "edgeadmm/penalty_perturbation_accountant.h"
#include "gtest/gtest.h"
#include "no_heap_check.h"

namespace edgeadmm {
namespace {

TEST(NoHeapTest, NoiseLedgerAndStateNeverAllocate) {
  EDGEADMM_REQUIRE_NO_HEAP_CHECK();
  constexpr size_t kDim = 123;
  static Real primary[kDim], secondary[kDim], restored[kDim], restored2[kDim];
  static std::byte blob[DeviceStateSerializedSize(kDim)];
  static std::byte storage_memory[4 * sizeof(blob)];
  bool all_ok = true;
  size_t violations;
  {
    NoHeapScope scope;
    TestEntropy entropy(1);
    Drbg drbg;
    all_ok &= drbg.Init(entropy, ConstByteSpan()).ok();
    GaussianSampler sampler(drbg);
    // Enough draws to pass a reseed: ~124 words per call, 32 words per DRBG
    // request, so ~3.9 requests per call.
    for (uint32_t i = 0; i < EDGEADMM_CFG_DRBG_RESEED_INTERVAL / 2 + 2; ++i) {
      all_ok &= sampler.AddNoise(1.5, Span<Real>(primary, kDim)).ok();
    }
    all_ok &= drbg.reseed_count() >= 1;
    all_ok &=
        SampleNormGammaNoise(sampler, 3.0, Span<Real>(secondary, kDim)).ok();
    DeviceState state;
    state.algorithm = AlgorithmKind::kPenaltyPerturbation;
    state.primary = Span<Real>(primary, kDim);
    state.secondary = Span<Real>(secondary, kDim);
    all_ok &= state.ledger.Charge(2.0, 4.0).ok();
    const Result<bool> exceed = state.ledger.WouldExceed(2.0, 4.0, 8.0, 1e-5);
    all_ok &= exceed.ok();
    all_ok &= state.ledger.Epsilon(1e-5).ok();
    PenaltyPerturbationParams pp;
    pp.degree = 2;
    pp.eta_growth = 1.05;
    PenaltyPerturbationAccountant pp_ledger;
    all_ok &= pp_ledger.Init(pp, 0.25, 9044).ok();
    for (uint32_t t = 1; t <= 50; ++t) all_ok &= pp_ledger.Charge(pp, t).ok();
    all_ok &= pp_ledger.WouldExceed(pp.Eta(51), pp.Alpha(51), 1.0).ok();
    all_ok &= PpGeometricLoss(PpNodeConstants{}, 0.5, 1.05, 3, 1, 50).ok();
    const StatusWithSize written =
        SerializeDeviceState(state, ByteSpan(blob, sizeof(blob)));
    all_ok &= written.ok();
    MemoryStorage storage(ByteSpan(storage_memory, sizeof(storage_memory)));
    all_ok &= storage.Write("state", ConstByteSpan(blob, written.size())).ok();
    all_ok &= storage.Read("state", ByteSpan(blob, sizeof(blob))).ok();
    DeviceState back;
    back.primary = Span<Real>(restored, kDim);
    back.secondary = Span<Real>(restored2, kDim);
    all_ok &=
        DeserializeDeviceState(ConstByteSpan(blob, written.size()), back).ok();
    all_ok &= restored[kDim - 1] == primary[kDim - 1];
    violations = scope.End();
  }
  EXPECT_TRUE(all_ok);
  EXPECT_EQ(violations, 0u) << LastHeapViolation();
}

}  // namespace
}  // namespace edgeadmm
