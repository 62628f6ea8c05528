#!/usr/bin/python3
"""Reference Renyi divergences of the Poisson-subsampled Gaussian mechanism.

Independent of the C++ library: integrates the Renyi divergence numerically
with mpmath (Debian's python3-mpmath) at 25 significant digits.

Mechanism (add/remove neighbours, sensitivity 1, noise std sigma, rate q):
  mu0 = N(0, sigma^2)                      (dataset without the subject)
  mu1 = (1 - q) N(0, sigma^2) + q N(1, sigma^2)   (dataset with the subject)
For each grid point it computes both directions
  forward  D_a(mu1 || mu0) = log( int mu0 (mu1/mu0)^a ) / (a - 1)
  reverse  D_a(mu0 || mu1) = log( int mu0 (mu1/mu0)^(1 - a) ) / (a - 1)
and writes both plus their maximum, which is what an accountant must report
for add/remove neighbours (the two directions are the two neighbour orders).

Each integral is computed twice (Gauss-Legendre over sub-intervals of width
4 sigma and of width 2 sigma); a point is skipped (and listed on stderr and in the CSV
header comment) when the two disagree by more than 1e-15 relative, since the
reference must be far more accurate than the 1e-6 tolerance of the C++ test.

Run with the system interpreter: /usr/bin/python3 make_rdp_golden.py > CSV
"""
import sys
import time

import mpmath as mp

mp.mp.dps = 25

QS = ["0.001", "0.01", "0.1", "0.5", "1"]
SIGMAS = ["0.5", "1", "2", "5", "10"]
ORDERS = ["1.1", "1.5", "2", "2.5", "3", "3.7", "4", "5.5", "8", "10.5", "16",
          "20.5", "32", "40.25", "64"]


def log_moment(q, sigma, power):
  """log of int mu0(z) * ((1-q) + q exp((2z-1)/(2 sigma^2)))^power dz."""
  two_s2 = 2 * sigma * sigma
  log_norm = -mp.log(sigma * mp.sqrt(2 * mp.pi))

  def integrand(z):
    ratio = (1 - q) + q * mp.exp((2 * z - 1) / two_s2)
    return mp.exp(log_norm - z * z / two_s2 + power * mp.log(ratio))

  # Locate the mass: sample the integrand every sigma/4 on a wide interval
  # that contains both possible peaks (near 0 and near the tilted mean
  # `power`) and keep, with 3 sigma of margin, the part above 1e-60 of the
  # largest sample. The integrand varies on the scale sigma, so no peak can
  # hide between samples; what is dropped is below 1e-45 of the integral.
  lo = min(mp.mpf(0), power, 1 - power) - 30 * sigma
  hi = max(mp.mpf(1), power, 1 - power) + 30 * sigma
  steps = int(mp.ceil((hi - lo) / (sigma / 4)))
  grid = [lo + (hi - lo) * k / steps for k in range(steps + 1)]
  values = [integrand(z) for z in grid]
  peak = max(values)
  keep = [z for z, v in zip(grid, values) if v > peak * mp.mpf("1e-60")]
  lo, hi = keep[0] - 3 * sigma, keep[-1] + 3 * sigma

  def quad(width):
    pieces = int(mp.ceil((hi - lo) / width))
    points = [lo + (hi - lo) * k / pieces for k in range(pieces + 1)]
    return mp.log(mp.quad(integrand, points, method="gauss-legendre"))

  return quad(4 * sigma), quad(2 * sigma)


def main():
  start = time.time()
  skipped = []
  rows = []
  for q_text in QS:
    for sigma_text in SIGMAS:
      q, sigma = mp.mpf(q_text), mp.mpf(sigma_text)
      for alpha_text in ORDERS:
        alpha = mp.mpf(alpha_text)
        fwd_gl, fwd_ts = log_moment(q, sigma, alpha)
        rev_gl, rev_ts = log_moment(q, sigma, 1 - alpha)
        bad = []
        for name, x, y in (("forward", fwd_gl, fwd_ts),
                           ("reverse", rev_gl, rev_ts)):
          if abs(x - y) > mp.mpf("1e-15") * abs(x):
            bad.append("%s: %s vs %s" % (name, mp.nstr(x, 20), mp.nstr(y, 20)))
        if bad:
          skipped.append("q=%s sigma=%s alpha=%s: quadratures disagree (%s)" %
                         (q_text, sigma_text, alpha_text, "; ".join(bad)))
          continue
        print("q=%s sigma=%s alpha=%s done at %.0f s" %
              (q_text, sigma_text, alpha_text, time.time() - start),
              file=sys.stderr, flush=True)
        fwd = fwd_gl / (alpha - 1)
        rev = rev_gl / (alpha - 1)
        rows.append((q_text, sigma_text, alpha_text, mp.nstr(fwd, 25),
                     mp.nstr(rev, 25), mp.nstr(max(fwd, rev), 25),
                     "forward" if fwd >= rev else "reverse"))
  print("# Poisson-subsampled Gaussian RDP, add/remove, sensitivity 1; "
        "made by make_rdp_golden.py (mpmath %s, %d digits)" %
        (mp.__version__, mp.mp.dps))
  for s in skipped:
    print("# skipped " + s)
  print("q,sigma,alpha,rdp_forward,rdp_reverse,rdp_max,max_direction")
  for r in rows:
    print(",".join(r))
  for s in skipped:
    print("skipped " + s, file=sys.stderr)
  print("%d points, %d skipped, %.1f s" % (len(rows), len(skipped),
                                            time.time() - start),
        file=sys.stderr)


if __name__ == "__main__":
  main()
