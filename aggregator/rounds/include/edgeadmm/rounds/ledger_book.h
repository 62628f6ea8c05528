// LedgerBook: the privacy ledgers the daemon keeps for one job
// (docs/privacy.md, section 2), their budget check and their charges.
//
// Scopes, one RDP curve each (composition = addition):
//   "central"       trusted-aggregator: the one central ledger; otherwise a
//                   copy of the worst device's "central:<id>" curve
//   "central:<id>"  participation policies: what the released models reveal
//                   about device <id> (zero-out, ν·√m_k or ν); for an
//                   algorithm that ChargesLocalAsCentral its local curve
//                   per upload (an UnchargedNetworkRdp is never charged);
//                   for an
//                   algorithm with a ParticipationCharge, its ν per
//                   participation under trusted-aggregator
//   "local:<id>"    local DP of device <id>'s own uploads (replace-one, ν/2):
//                   the curve its own DevicePrivacyLedger keeps
// Under secure-aggregation "central:<id>" (zero-out) and "local:<id>"
// (replace-one) are both charged the round's distributed discrete Gaussian
// sum (secure_round_charge.h): the gateway sees no upload alone; RDP with
// the improved conversion.
// The central scopes' ε uses the job's accountant (privacy.accountant: PLD of
// the charged schedule by default, pld_round_accountant.h, or RDP); the local
// scopes' ε always uses the RDP accountant, the number the device's own
// ledger computes. Every row stores its conversion ("pld" or "improved").
// Central curves change only when a round commits (Plan, then Apply after
// the store's transaction). A local curve is charged when the aggregator
// accepts the upload (PlanLocal/ApplyLocal): it saw the upload whether or
// not the round later commits, is discarded or is lost in a crash.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "edgeadmm/algorithms/algorithm.h"
#include "edgeadmm/jobs/job_config.h"
#include "edgeadmm/privacy/rdp_filter.h"
#include "edgeadmm/registry/device_registry.h"
#include "edgeadmm/result.h"
#include "edgeadmm/rounds/epsilon_memo.h"
#include "edgeadmm/rounds/round_accountant.h"
#include "edgeadmm/rounds/round_store.h"
#include "edgeadmm/rounds/secure_round_charge.h"
#include "edgeadmm/rounds/shared_curves.h"

namespace edgeadmm::rounds {

// A committed round's charges, computed before the commit.
struct LedgerCharge {
  RoundMechanism central;      // the round's central mechanism
  double central_epsilon = 0;  // of the job after the round
  struct Device {
    size_t index = 0;
    SharedCurves::Curve central;  // the device's curve after the round
    double central_epsilon = 0;
  };
  std::vector<Device> devices;       // participation policies: the participants
  std::vector<double> next_central;  // trusted-aggregator's central curve
  // ε of every device's central curve after the round.
  std::vector<double> next_device_epsilon;
};

// One accepted upload's charge to its device's local ledger.
struct LocalCharge {
  size_t index = 0;
  SharedCurves::Curve local;  // the curve after the upload
  double epsilon = 0;
};

class LedgerBook {
 public:
  static constexpr char kCentralScope[] = "central";
  static constexpr char kDeviceCentralPrefix[] = "central:";
  static constexpr char kDeviceLocalPrefix[] = "local:";

  // Empty ledgers for `devices` (index = position). `accountant` (the RDP
  // accountant of every curve), `config` and `devices` must outlive the book.
  LedgerBook(const RoundAccountant& accountant, const jobs::JobConfig& config,
             const std::vector<std::string>& devices);

  // Restores the newest curve of every scope from the store; `index` maps
  // each device id to its position in `devices`. DATA_LOSS for a curve of
  // the wrong length or a scope naming a device not in the job.
  Status Load(RoundStore& store,
              const std::unordered_map<std::string, size_t>& index);

  // The round's mechanism as the central ledgers see it with m accepted
  // uploads, and as each participant's local ledger sees it.
  RoundMechanism CentralMechanism(size_t m) const;
  RoundMechanism LocalMechanism() const;

  // Would one more round keep every ledger within the job's budgets? Worst
  // case: m_min uploads (least noise) and any enrolled device among them.
  // When not, `*reason` (if not null) names the ledger, its observer, the ε
  // it would reach and the budget.
  bool WithinBudget(std::string* reason = nullptr);

  // The charges of a round that committed with the uploads of `participants`
  // (device indices). Changes nothing until Apply.
  LedgerCharge Plan(const std::vector<size_t>& participants);
  // The rows `charge` adds to the store's ledger table (pointers into
  // `charge` and the book: use before Apply).
  std::vector<LedgerRowRef> Rows(const LedgerCharge& charge) const;
  // Makes a committed charge the book's state.
  void Apply(LedgerCharge&& charge);
  // A charge that leaves the book as it is (Apply changes nothing), with
  // the central mechanism of `participants` participants: the commit of a
  // secure round charged before its sum was unmasked.
  LedgerCharge Unchanged(size_t participants) const;

  // The local charge of one accepted upload by device `index`, its store row
  // (pointers into `charge`), and adopting it once stored.
  LocalCharge PlanLocal(size_t index);
  LedgerRowRef LocalRow(const LocalCharge& charge) const;
  void ApplyLocal(LocalCharge&& charge);

  // Lifetime budgets across jobs (docs/privacy.md, "Lifetime budget"), one
  // per device and ledger kind: an RDP filter built from the registry's
  // budget and the sum of the device's curves of that kind in every other
  // job. The device is sampled only while both filters admit earlier + this
  // job's curve + one more worst-case round.
  struct Lifetime {
    privacy::RdpFilter filter;
    std::vector<double> earlier;  // order_count() values
  };
  void SetLifetime(registry::LifetimeLedger ledger, size_t index,
                   Lifetime lifetime);
  // A new budget for a device that has one (its earlier jobs are known).
  void SetLifetimeFilter(registry::LifetimeLedger ledger, size_t index,
                         const privacy::RdpFilter& filter) {
    lifetime(ledger).at(index).filter = filter;
  }
  void ClearLifetime(registry::LifetimeLedger ledger, size_t index) {
    lifetime(ledger).erase(index);
  }
  bool HasLifetime(registry::LifetimeLedger ledger, size_t index) const {
    return lifetime(ledger).count(index) != 0;
  }
  // The filter's ε (at its order and δ) of earlier + this job's curve + one
  // more round of `ledger`; 0 without a budget.
  double NextLifetimeEpsilon(registry::LifetimeLedger ledger,
                             size_t index) const;
  // The order of that filter (0 without a budget).
  double LifetimeOrder(registry::LifetimeLedger ledger, size_t index) const {
    const auto it = lifetime(ledger).find(index);
    return it == lifetime(ledger).end() ? 0.0 : it->second.filter.order();
  }
  // Whether device `index` may take part in one more round: every lifetime
  // budget it has admits it (true without one); otherwise `*refused` is the
  // ledger that does not. `reserved_local`/`reserved_central` (if not null):
  // curves of other jobs' open rounds, counted on top of `earlier`.
  bool LifetimeAllows(
      size_t index, registry::LifetimeLedger* refused = nullptr,
      const std::vector<double>* reserved_local = nullptr,
      const std::vector<double>* reserved_central = nullptr) const;
  // The worst-case curves one more round adds to a member's local and
  // central lifetime ledgers (what its open round reserves).
  const std::vector<double>& local_round_rdp() const { return local_rdp_; }
  const std::vector<double>& worst_central_round_rdp() const {
    return worst_central_rdp_;
  }

  // The conversion of the central scopes' ε (kPld or the accountant's).
  privacy::Conversion central_conversion() const {
    return central_accountant_->conversion();
  }
  // The job's central ε (the number `job status` shows).
  double central_epsilon() const { return central_epsilon_; }
  // ε of one device's local ledger (0 before its first charge).
  double LocalEpsilon(size_t device);
  // Whether device `index` has taken part as often as the algorithm's
  // ParticipationCharge allows (false without one): it is not sampled again.
  bool ParticipationCapReached(size_t index) const;
  // Distinct per-device curves held (SharedCurves; tests, profiles).
  size_t distinct_curves() const { return curves_.size(); }

 private:
  double OwnNoiseMultiplier() const;
  // Names of the conversions stored with the central and local rows.
  const char* central_conversion_name() const {
    return privacy::ConversionName(central_conversion());
  }
  const char* local_conversion_name() const {
    return privacy::ConversionName(accountant_->conversion());
  }
  double CentralEpsilon(const std::vector<double>& central,
                        const std::vector<double>& device_epsilon);
  bool trusted_aggregator() const;
  bool secure_aggregation() const {
    return config_->policy == privacy::Policy::kSecureAggregation;
  }
  // Trusted-aggregator's one central curve charged per round (false when
  // the algorithm charges per participation: per-device curves instead).
  bool one_central_curve() const;

  const RoundAccountant* accountant_;
  const jobs::JobConfig* config_;
  const std::vector<std::string>* devices_;
  // The algorithm's per-participation charge (null: none); before pld_,
  // whose construction reads it.
  const algorithms::ParticipationCharge* participation_;
  // Secure-aggregation's per-round charge (empty rdp under other policies);
  // before pld_, whose construction reads CentralMechanism.
  SecureRoundCharge secure_;
  // The PLD accountant of a job whose privacy.accountant is pld (null for
  // rdp); heap-held so the memo's pointer survives moving the book.
  std::unique_ptr<const RoundAccountant> pld_;
  const RoundAccountant* central_accountant_;  // pld_ or accountant_
  EpsilonMemo epsilon_;                        // local scopes (RDP)
  EpsilonMemo central_epsilon_memo_;           // central scopes
  // Per-round curves that depend on the job's config only: the budget
  // check's worst-case central round and the local round of one upload.
  std::vector<double> worst_central_rdp_;
  // The curve per accepted upload on "central:<id>" when the algorithm
  // charges it its local one (Algorithm::ChargesLocalAsCentral), or empty.
  std::vector<double> upload_central_rdp_;
  std::vector<double> local_rdp_;
  std::vector<double> central_;  // trusted-aggregator
  // The per-device curves, by device index, each distinct curve held once.
  SharedCurves curves_;
  std::vector<SharedCurves::Curve> device_central_;
  std::vector<SharedCurves::Curve> device_local_;
  // ε of each device_central_ curve (0 if uncharged), kept so a commit
  // converts only its participants' curves.
  std::vector<double> device_central_epsilon_;
  // ε of each device's central and local ledger after one more worst-case
  // round (the budget check); NaN = to be recomputed (its ledger changed).
  std::vector<double> budget_central_;
  std::vector<double> budget_local_;
  double central_epsilon_ = 0;
  // Each device's count of charged participations in this job (for the
  // algorithm's ParticipationCharge).
  std::vector<int64_t> participations_;
  // The curve of device `index` in this job after one more worst-case
  // round of `ledger`.
  std::vector<double> NextJobCurve(registry::LifetimeLedger ledger,
                                   size_t index) const;
  std::unordered_map<size_t, Lifetime>& lifetime(
      registry::LifetimeLedger ledger) {
    return ledger == registry::LifetimeLedger::kLocal ? local_lifetime_
                                                      : central_lifetime_;
  }
  const std::unordered_map<size_t, Lifetime>& lifetime(
      registry::LifetimeLedger ledger) const {
    return ledger == registry::LifetimeLedger::kLocal ? local_lifetime_
                                                      : central_lifetime_;
  }
  // Budgeted devices only.
  std::unordered_map<size_t, Lifetime> local_lifetime_;
  std::unordered_map<size_t, Lifetime> central_lifetime_;
};

}  // namespace edgeadmm::rounds
