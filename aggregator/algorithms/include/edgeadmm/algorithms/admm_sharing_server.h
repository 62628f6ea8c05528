// Server side of ADMM sharing over distributed features (paper 000, Hu et
// al.; digest 000 part A): the central node's z-update (eq. 7) and y-update
// (eq. 8) for the logistic loss, with the labels held by the aggregator.
//
// Loss: l(z) = c·Σ_i log(1 + e^{−Y_i z_i}), Y_i ∈ {−1, +1}, with the loss
// weight c a parameter (c = 1/N keeps the paper's ERM objective
// (1/N)Σ_i l_i + λR, digest A1: the 1/N factor sits inside l, so ρ and y
// scale with 1/N and |y_i| ≤ c).
// Round t, from the parties' shares s_m = D_m x̃_m^{t+1} (N values each):
//   s   = Σ_m s_m
//   z_i = argmin c·log(1 + e^{−Y_i z}) − y_i z + (ρ/2)(s_i − z)²   (eq. 7)
//   y   = y + ρ(s − z)                                               (eq. 8)
// and the broadcast is (v, y) with v = s − z (Alg. 1 line 12), identical for
// every party. Each scalar problem is ρ-strongly convex; it is solved by
// Newton's method safeguarded by bisection on the bracket
// [s_i + (y_i − c)/ρ, s_i + (y_i + c)/ρ] (φ' is increasing and |c·l'| ≤ c),
// stopping when |φ'(z_i)| ≤ kZTolerance·max(c, |y_i|) (so |z_i − z_i*| ≤
// that / ρ). Lemma 2 (paper 000): y^{t+1} = ∇l(z^{t+1}) up to that residual.
// Used by the job algorithm admm-sharing (admm_sharing.h).
#pragma once

#include <cstddef>
#include <vector>

#include "edgeadmm/status.h"

namespace edgeadmm::algorithms {

struct ScalarZReport {
  double z = 0;
  double gradient = 0;  // φ'(z) at the returned z
  int iterations = 0;
};

struct SharingRoundReport {
  int max_newton_iterations = 0;
  double max_abs_gradient = 0;  // max_i |φ_i'(z_i)|
};

class AdmmSharingServer {
 public:
  static constexpr double kZTolerance = 1e-12;
  static constexpr int kMaxNewtonIterations = 100;

  // One scalar problem of eq. (7): argmin c·log(1+e^{−label·z}) − y·z +
  // (ρ/2)(s − z)².
  static ScalarZReport SolveZ(double label, double y, double s, double rho,
                              double loss_weight);

  // INVALID_ARGUMENT unless ρ and c are finite and positive and every label
  // is ±1. State starts at y = z = 0 (and v = 0: x = 0 at start).
  Status Init(std::vector<double> labels, double rho, double loss_weight);

  // Resumes from a persisted (z, y) (each samples() long, finite); v is
  // recomputed by the next ApplyRound. INVALID_ARGUMENT (state unchanged)
  // before Init, for a wrong length or a non-finite value.
  Status Restore(const std::vector<double>& z, const std::vector<double>& y);

  // eqs. (7), (8) from one share per party (each labels.size() long).
  // INVALID_ARGUMENT for no shares, a wrong length or a non-finite value
  // (state unchanged).
  Status ApplyRound(const std::vector<std::vector<double>>& shares,
                    SharingRoundReport* report);

  // c·Σ_i log(1 + e^{−Y_i t_i}) for a vector of margins t.
  double Loss(const std::vector<double>& t) const;
  // ∇l(t)_i = −c·Y_i / (1 + e^{Y_i t_i}).
  std::vector<double> LossGradient(const std::vector<double>& t) const;

  const std::vector<double>& z() const { return z_; }
  const std::vector<double>& y() const { return y_; }
  // The broadcast residual v = Σ_m s_m − z.
  const std::vector<double>& v() const { return v_; }
  size_t samples() const { return labels_.size(); }

 private:
  std::vector<double> labels_;
  double rho_ = 0;
  double c_ = 0;
  std::vector<double> z_;
  std::vector<double> y_;
  std::vector<double> v_;
};

}  // namespace edgeadmm::algorithms
