// Independent Monte Carlo check of the PLD accountant in the many-rounds
// regime the mpmath goldens do not reach (run by hand, not by ctest):
//   pld_monte_carlo <q> <nu> <rounds> <samples>
// Samples the composed privacy loss of the remove direction directly,
//   L = sum_t log(1 - q + q e^{(2 x_t - 1) / (2 nu^2)}),
//   x_t ~ (1 - q) N(0, nu^2) + q N(1, nu^2),
// estimates delta(eps) = E[(1 - e^{eps - L})_+] with its standard error, and
// prints it beside the accountant's delta (an upper bound: it should sit at
// or above the estimate, within a few standard errors).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "edgeadmm/privacy/pld_accountant.h"

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s q nu rounds samples\n", argv[0]);
    return 2;
  }
  const double q = std::atof(argv[1]);
  const double nu = std::atof(argv[2]);
  const long rounds = std::atol(argv[3]);
  const long samples = std::atol(argv[4]);
  std::mt19937_64 rng(12345);
  std::normal_distribution<double> noise(0.0, nu);
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  std::vector<double> losses(static_cast<size_t>(samples));
  for (double& l : losses) {
    l = 0.0;
    for (long t = 0; t < rounds; ++t) {
      const double x = noise(rng) + (coin(rng) < q ? 1.0 : 0.0);
      l += std::log1p(q * std::expm1((2.0 * x - 1.0) / (2.0 * nu * nu)));
    }
  }
  edgeadmm::privacy::PldAccountant accountant;
  if (!accountant.Compose(q, nu, static_cast<uint64_t>(rounds)).ok()) return 1;
  for (double eps : {0.0, 0.005, 0.01, 0.02, 0.03, 0.1, 0.3}) {
    double sum = 0.0, sum2 = 0.0;
    for (double l : losses) {
      const double v = l > eps ? -std::expm1(eps - l) : 0.0;
      sum += v;
      sum2 += v * v;
    }
    const double n = static_cast<double>(samples);
    const double mean = sum / n;
    const double se = std::sqrt(std::max(0.0, sum2 / n - mean * mean) / n);
    const auto pld = accountant.Delta(eps);
    std::printf("eps %.3f  monte carlo %.5g +- %.2g  pld %.5g\n", eps, mean, se,
                pld.ok() ? pld.value() : NAN);
  }
  return 0;
}
