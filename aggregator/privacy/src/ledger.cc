#include "edgeadmm/privacy/ledger.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "checks.h"

namespace edgeadmm::privacy {
namespace {

constexpr const char* kMagic = "edgeadmm-privacy-ledger";
constexpr int kVersion = 1;

std::string Hex(double value) {
  char buffer[40];
  std::snprintf(buffer, sizeof(buffer), "%a", value);
  return buffer;
}

bool ParseHex(const std::string& token, double* out) {
  if (token.empty()) return false;
  char* end = nullptr;
  *out = std::strtod(token.c_str(), &end);
  return end == token.c_str() + token.size();
}

host::Error Corrupt(const std::string& what) {
  return host::Error::DataLoss("malformed privacy ledger: " + what);
}

}  // namespace

host::ErrorOr<CentralLedger> CentralLedger::Create(Policy policy, Budget budget,
                                                   OrderGrid grid) {
  EDGEADMM_HOST_TRY(internal::CheckPositive("budget epsilon", budget.epsilon));
  EDGEADMM_HOST_TRY(internal::CheckOpenUnit("budget delta", budget.delta));
  return CentralLedger(policy, budget, std::move(grid));
}

std::vector<std::string> CentralLedger::ChargedSubjects(
    const RoundDescriptor& round) const {
  if (policy_ == Policy::kTrustedAggregator) return {kCentralSubject};
  return round.participants;
}

host::ErrorOr<EpsilonReport> CentralLedger::Label(
    EpsilonReport report, const std::string& subject) const {
  report.subject = subject;
  report.policy = PolicyName(policy_);
  return report;
}

host::ErrorOr<BudgetCheckResult> CentralLedger::BudgetCheck(
    const RoundDescriptor& round) const {
  EDGEADMM_HOST_TRY_ASSIGN(const Mechanism mechanism,
                           ChargedMechanism(policy_, round));
  EDGEADMM_HOST_TRY_ASSIGN(const RdpCurve* step, cache_.Get(mechanism));
  EDGEADMM_HOST_TRY_ASSIGN(EpsilonReport worst, Report());
  for (const std::string& subject : ChargedSubjects(round)) {
    auto it = subjects_.find(subject);
    Accountant after = it == subjects_.end() ? Accountant(grid_) : it->second;
    EDGEADMM_HOST_TRY(after.ComposeCurve(*step, mechanism));
    EDGEADMM_HOST_TRY_ASSIGN(EpsilonReport report,
                             after.Epsilon(budget_.delta, budget_.conversion));
    if (report.epsilon > worst.epsilon || worst.compositions == 0) {
      EDGEADMM_HOST_TRY_ASSIGN(worst, Label(report, subject));
    }
  }
  BudgetCheckResult result;
  result.within_budget = worst.epsilon <= budget_.epsilon;
  result.projected = worst;
  return result;
}

host::Error CentralLedger::Charge(const RoundDescriptor& round) {
  EDGEADMM_HOST_TRY_ASSIGN(const Mechanism mechanism,
                           ChargedMechanism(policy_, round));
  if (policy_ != Policy::kTrustedAggregator &&
      round.participants.size() != round.accepted_uploads) {
    return host::Error::InvalidArgument(
        "a charge needs exactly the m_k = " +
        std::to_string(round.accepted_uploads) + " accepted devices, got " +
        std::to_string(round.participants.size()) + " ids");
  }
  if (has_last_round_ && round.round <= last_round_) {
    return host::Error::FailedPrecondition(
        "round " + std::to_string(round.round) +
        " is not after the last charged round " + std::to_string(last_round_));
  }
  EDGEADMM_HOST_TRY_ASSIGN(const RdpCurve* step, cache_.Get(mechanism));
  for (const std::string& subject : ChargedSubjects(round)) {
    auto it = subjects_.try_emplace(subject, grid_).first;
    EDGEADMM_HOST_TRY(it->second.ComposeCurve(*step, mechanism));
  }
  has_last_round_ = true;
  last_round_ = round.round;
  ++rounds_charged_;
  return host::Error::Ok();
}

host::ErrorOr<EpsilonReport> CentralLedger::Report() const {
  EDGEADMM_HOST_TRY_ASSIGN(
      EpsilonReport worst,
      Accountant(grid_).Epsilon(budget_.delta, budget_.conversion));
  worst.policy = PolicyName(policy_);
  bool first = true;
  for (const auto& [subject, accountant] : subjects_) {
    EDGEADMM_HOST_TRY_ASSIGN(
        EpsilonReport report,
        accountant.Epsilon(budget_.delta, budget_.conversion));
    if (first || report.epsilon > worst.epsilon) {
      EDGEADMM_HOST_TRY_ASSIGN(worst, Label(report, subject));
      first = false;
    }
  }
  return worst;
}

host::ErrorOr<EpsilonReport> CentralLedger::ReportFor(
    const std::string& subject) const {
  auto it = subjects_.find(subject);
  if (it == subjects_.end()) {
    return host::Error(
        StatusCode::kNotFound,
        "subject '" + subject + "' has no charges in this ledger");
  }
  EDGEADMM_HOST_TRY_ASSIGN(
      EpsilonReport report,
      it->second.Epsilon(budget_.delta, budget_.conversion));
  return Label(report, subject);
}

std::vector<std::string> CentralLedger::Subjects() const {
  std::vector<std::string> names;
  names.reserve(subjects_.size());
  for (const auto& entry : subjects_) names.push_back(entry.first);
  return names;
}

std::string CentralLedger::Serialize() const {
  std::string out = std::string(kMagic) + " " + std::to_string(kVersion) + "\n";
  out += std::string("policy ") + PolicyName(policy_) + "\n";
  out += "budget " + Hex(budget_.epsilon) + " " + Hex(budget_.delta) + " " +
         ConversionName(budget_.conversion) + "\n";
  out += "rounds " + std::to_string(rounds_charged_) + " " +
         (has_last_round_ ? std::to_string(last_round_) : "-") + "\n";
  out += "orders " + std::to_string(grid_.size());
  for (double a : grid_.orders()) out += " " + Hex(a);
  out += "\n";
  for (const auto& [subject, accountant] : subjects_) {
    out += "subject " + subject + " " +
           std::to_string(accountant.compositions()) + " " +
           std::to_string(accountant.mechanism_bits()) + " " +
           std::to_string(accountant.neighbouring_bits());
    for (double v : accountant.curve().values()) out += " " + Hex(v);
    out += "\n";
  }
  out += "end\n";
  return out;
}

host::ErrorOr<CentralLedger> CentralLedger::Deserialize(
    const std::string& text) {
  std::istringstream in(text);
  std::string word, value;
  int version = 0;
  if (!(in >> word >> version) || word != kMagic || version != kVersion) {
    return Corrupt("bad header");
  }
  if (!(in >> word >> value) || word != "policy") return Corrupt("no policy");
  auto policy = ParsePolicy(value);
  if (!policy.ok()) return Corrupt(policy.error().message());
  Budget budget;
  std::string eps_text, delta_text;
  if (!(in >> word >> eps_text >> delta_text >> value) || word != "budget" ||
      !ParseHex(eps_text, &budget.epsilon) ||
      !ParseHex(delta_text, &budget.delta)) {
    return Corrupt("bad budget line");
  }
  auto conversion = ParseConversion(value);
  if (!conversion.ok()) return Corrupt(conversion.error().message());
  budget.conversion = conversion.value();
  uint64_t rounds = 0;
  if (!(in >> word >> rounds >> value) || word != "rounds") {
    return Corrupt("bad rounds line");
  }
  size_t count = 0;
  if (!(in >> word >> count) || word != "orders" || count == 0 ||
      count > 100000) {
    return Corrupt("bad orders line");
  }
  std::vector<double> orders(count);
  for (double& a : orders) {
    if (!(in >> word) || !ParseHex(word, &a)) return Corrupt("bad order");
  }
  auto grid = OrderGrid::Create(std::move(orders));
  if (!grid.ok()) return Corrupt(grid.error().message());
  auto ledger = Create(policy.value(), budget, grid.value());
  if (!ledger.ok()) return Corrupt(ledger.error().message());
  CentralLedger result = std::move(ledger).value();
  result.rounds_charged_ = rounds;
  if (value != "-") {
    char* end = nullptr;
    result.last_round_ = std::strtoull(value.c_str(), &end, 10);
    if (end != value.c_str() + value.size()) return Corrupt("bad last round");
    result.has_last_round_ = true;
  }
  while (in >> word && word == "subject") {
    std::string subject;
    uint64_t compositions = 0;
    unsigned mechanism_bits = 0, neighbouring_bits = 0;
    if (!(in >> subject >> compositions >> mechanism_bits >>
          neighbouring_bits) ||
        mechanism_bits > 255 || neighbouring_bits > 255 ||
        !ValidateSubjectId(subject).ok()) {
      return Corrupt("bad subject line");
    }
    std::vector<double> values(count);
    for (double& v : values) {
      if (!(in >> word) || !ParseHex(word, &v)) return Corrupt("bad RDP value");
    }
    auto curve = RdpCurve::FromValues(result.grid_, std::move(values));
    if (!curve.ok()) return Corrupt(curve.error().message());
    auto accountant =
        Accountant::Restore(std::move(curve).value(), compositions,
                            static_cast<uint8_t>(mechanism_bits),
                            static_cast<uint8_t>(neighbouring_bits));
    if (!accountant.ok()) return Corrupt(accountant.error().message());
    result.subjects_.insert_or_assign(subject, std::move(accountant).value());
  }
  if (word != "end") return Corrupt("missing end marker (truncated?)");
  return result;
}

}  // namespace edgeadmm::privacy
