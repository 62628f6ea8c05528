#include "edgeadmm/algorithms/admm_sharing_server.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace edgeadmm::algorithms {
namespace {

// 1/(1 + e^{u}) without overflow.
double SigmoidOfMinus(double u) {
  if (u >= 0) {
    const double e = std::exp(-u);
    return e / (1 + e);
  }
  return 1 / (1 + std::exp(u));
}

// log(1 + e^{−u}) without overflow.
double LogisticLoss(double u) {
  return u > 0 ? std::log1p(std::exp(-u)) : -u + std::log1p(std::exp(u));
}

}  // namespace

ScalarZReport AdmmSharingServer::SolveZ(double label, double y, double s,
                                        double rho, double c) {
  // φ'(z) = −c·Y/(1 + e^{Yz}) − y + ρ(z − s), φ'' = c·σ(1 − σ) + ρ ≥ ρ.
  auto gradient = [&](double z, double* curvature) {
    const double q = SigmoidOfMinus(label * z);  // 1/(1 + e^{Yz})
    *curvature = c * q * (1 - q) + rho;
    return -c * label * q - y + rho * (z - s);
  };
  double lo = s + (y - c) / rho;  // φ'(lo) ≤ 0
  double hi = s + (y + c) / rho;  // φ'(hi) ≥ 0
  const double tolerance = kZTolerance * std::max(c, std::abs(y));
  ScalarZReport r;
  r.z = std::min(std::max(s + y / rho, lo), hi);  // warm start
  double h = 0;
  for (r.iterations = 0; r.iterations < kMaxNewtonIterations; ++r.iterations) {
    r.gradient = gradient(r.z, &h);
    if (std::abs(r.gradient) <= tolerance) return r;
    if (r.gradient > 0) {
      hi = r.z;
    } else {
      lo = r.z;
    }
    double next = r.z - r.gradient / h;
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);  // bisection
    if (next == r.z) break;  // bracket exhausted at double resolution
    r.z = next;
  }
  r.gradient = gradient(r.z, &h);
  return r;
}

Status AdmmSharingServer::Init(std::vector<double> labels, double rho,
                               double loss_weight) {
  if (labels.empty() || !std::isfinite(rho) || !(rho > 0) ||
      !std::isfinite(loss_weight) || !(loss_weight > 0)) {
    return Status::InvalidArgument();
  }
  for (double b : labels) {
    if (b != 1 && b != -1) return Status::InvalidArgument();
  }
  labels_ = std::move(labels);
  rho_ = rho;
  c_ = loss_weight;
  z_.assign(labels_.size(), 0.0);
  y_.assign(labels_.size(), 0.0);
  v_.assign(labels_.size(), 0.0);
  return Status::Ok();
}

Status AdmmSharingServer::Restore(const std::vector<double>& z,
                                  const std::vector<double>& y) {
  const size_t n = labels_.size();
  if (n == 0 || z.size() != n || y.size() != n) {
    return Status::InvalidArgument();
  }
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(z[i]) || !std::isfinite(y[i])) {
      return Status::InvalidArgument();
    }
  }
  z_ = z;
  y_ = y;
  return Status::Ok();
}

Status AdmmSharingServer::ApplyRound(
    const std::vector<std::vector<double>>& shares,
    SharingRoundReport* report) {
  const size_t n = labels_.size();
  if (n == 0 || shares.empty()) return Status::InvalidArgument();
  std::vector<double> s(n, 0.0);
  for (const auto& share : shares) {
    if (share.size() != n) return Status::InvalidArgument();
    for (size_t i = 0; i < n; ++i) {
      if (!std::isfinite(share[i])) return Status::InvalidArgument();
      s[i] += share[i];
    }
  }
  SharingRoundReport r;
  for (size_t i = 0; i < n; ++i) {
    // eq. (7) with y^t, then eq. (8).
    const ScalarZReport zi = SolveZ(labels_[i], y_[i], s[i], rho_, c_);
    r.max_newton_iterations = std::max(r.max_newton_iterations, zi.iterations);
    r.max_abs_gradient = std::max(r.max_abs_gradient, std::abs(zi.gradient));
    z_[i] = zi.z;
    y_[i] += rho_ * (s[i] - z_[i]);
    v_[i] = s[i] - z_[i];  // broadcast with y (Alg. 1 line 12)
  }
  if (report != nullptr) *report = r;
  return Status::Ok();
}

double AdmmSharingServer::Loss(const std::vector<double>& t) const {
  double sum = 0;
  for (size_t i = 0; i < labels_.size(); ++i) {
    sum += LogisticLoss(labels_[i] * t[i]);
  }
  return c_ * sum;
}

std::vector<double> AdmmSharingServer::LossGradient(
    const std::vector<double>& t) const {
  std::vector<double> g(labels_.size());
  for (size_t i = 0; i < labels_.size(); ++i) {
    g[i] = -c_ * labels_[i] * SigmoidOfMinus(labels_[i] * t[i]);
  }
  return g;
}

}  // namespace edgeadmm::algorithms
