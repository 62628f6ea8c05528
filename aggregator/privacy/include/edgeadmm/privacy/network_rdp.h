// Network RDP of paper 002 Alg. 4 (private ADMM along a random walk on the
// complete graph; Definition 3, Theorem 4), per visit of the walk to the
// protected device, in clipped units (docs/privacy.md, "random-walk-admm").
//
// One step of device i sends Δu = 2λ·Clip(x − z, C) + λη, η ~ N(0, σ²I):
// under replace-one (Def. 3: D ~_i D') its sensitivity is 4λC with noise
// λσ, i.e. the local loss ε_loc(α) = 8αC²/σ² (paper 002 eq. (27) with
// Lγ → C). Another device j sees z only when the walk visits it; the lag m
// from i's step to j's next visit is geometric, P(m) = (1/n)(1 − 1/n)^(m−1),
// and a step seen m noisy steps later costs ε_loc/m (amplification by
// iteration, Thm 6, a_k = Δ/m). Weak convexity (Prop. 3) needs
// c = (α − 1)·ε_loc ≤ 1, i.e. σ ≥ 2√2·C·√(α(α−1)) (the digest's corrected
// condition; the paper prints σ > 2Lγ√(α(α−1))), and gives
//   ε_visit(α) = (1 + c)·E[ε_loc/m] = (1 + c)·ε_loc·ln n/(n − 1),
// using Σ_{m≥1} x^m/m = ln n at x = 1 − 1/n. The paper's printed closed form
// 8αC² ln n/(σ² n) drops the factor (1 + c) ∈ (1, 2] and uses n for n − 1
// (Paper002NetworkRdp in paper_accountants.h, with L = C and γ = 1, kept for
// comparison only). Composition over the K_i visits of device i adds curves.
//
// Nothing here is charged, stored as a ledger's ε or sent: Def. 3's view
// has no step counts, while a real device learns them (round ids, task
// notifications), and a holder that misses its step saw z and added no
// noise. The daemon charges the local Gaussian only (docs/privacy.md,
// "random-walk-admm"); this bound is reported beside it, labelled.
#pragma once

#include <cstdint>
#include <vector>

namespace edgeadmm::privacy {

// σ/C ≥ 2√2·√(α(α−1)): the weak-convexity condition c ≤ 1 at order α.
bool NetworkConditionHolds(double alpha, double sigma_over_clip);

// ε_visit(α) above for n ≥ 2 devices; +inf where the condition fails,
// for σ = 0 or n < 2 (no distinct observer: not claimed).
double RandomWalkVisitRdp(double alpha, double sigma_over_clip, int64_t n);

// The curve of one visit on `orders`.
std::vector<double> RandomWalkVisitCurve(const std::vector<double>& orders,
                                         double sigma_over_clip, int64_t n);

// The label every report of the network value carries.
inline constexpr const char* kNetworkBoundLabel =
    "paper 002 Thm. 4 network bound, valid only for an observer with "
    "Def. 3's view (no step counts), not charged";

// The network value reported per visit (never charged): at each order the
// smaller of ε_visit(α) and the local Gaussian ε_loc(α) = 8αC²/σ². Both
// bound Def. 3's observer j: its view (z at its visits) is a post-processing
// of the gateway's (every Δu, the path being independent of the data),
// which the local guarantee covers. Both scale with K_i, so the per-visit
// minimum composes to the minimum of the totals; it is never above the
// local ε (the condition drops the large orders small ε needs).
std::vector<double> RandomWalkObserverCurve(const std::vector<double>& orders,
                                            double sigma_over_clip, int64_t n);

}  // namespace edgeadmm::privacy
