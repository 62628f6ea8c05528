#!/usr/bin/env bash
# Hand-run check that the discrete Gaussian tests can fail: applies one
# deliberate bug at a time to sdk/src/noise/discrete_gaussian_sampler.cc,
# rebuilds the two test binaries in build/host-release, runs them, and
# restores the source. Every mutant must be caught by at least one test.
#   tests/unit/sdk/noise/discrete_gaussian_mutants.sh   (from the repo root,
#   after `cmake --preset host-release`)
set -uo pipefail
cd "$(dirname "$0")/../../../.."
src=sdk/src/noise/discrete_gaussian_sampler.cc
backup=$(mktemp)
cp "$src" "$backup"
trap 'cp "$backup" "$src"; rm -f "$backup"' EXIT

mutants=(
  # name|sed expression
  "laplace-U-off-by-one|s/const uint64_t u, UniformBelow(t))/const uint64_t u, UniformBelow(t + 1))/"
  "laplace-V-step-off-by-one|s/      w += t;/      w += t + 1;/"
  "laplace-keeps-minus-zero|s/if (sign == 1 \&\& x == 0) continue;/(void)0;/"
  "alg1-parity-flipped|s/return (k \& 1u) == 1u;/return (k \& 1u) == 0u;/"
  "alg3-center-off-by-one|s/const uint64_t xt = x \* noise.den_t();/const uint64_t xt = (x + 1) * noise.den_t();/"
  "uniform-accepts-n|s/if (w < n) return w;/if (w <= n) return w;/"
  "alg3-t-plus-two|s/p.t_ = IntegerSqrt(p.num_ \/ p.den_) + 1;/p.t_ = IntegerSqrt(p.num_ \/ p.den_) + 2;/"
)
tests="sdk_discrete_gaussian_sampler_test|sdk_discrete_gaussian_sampler_host_test"
escaped=0
for m in "${mutants[@]}"; do
  name=${m%%|*}
  expr=${m#*|}
  cp "$backup" "$src"
  sed -i "$expr" "$src"
  if cmp -s "$backup" "$src"; then
    echo "$name: the sed expression did not apply" >&2
    escaped=1
    continue
  fi
  cmake --build --preset host-release -j2 --target \
    sdk_discrete_gaussian_sampler_test sdk_discrete_gaussian_sampler_host_test \
    > /dev/null 2>&1 || { echo "$name: build failed" >&2; escaped=1; continue; }
  failed=$(ctest --preset host-release -R "^($tests)\$" --timeout 30 2>&1 |
    grep -E "\*\*\*Failed|Timeout|Exception" | awk '{print $4}' | tr '\n' ' ')
  detail=$(for t in sdk_discrete_gaussian_sampler_test \
      sdk_discrete_gaussian_sampler_host_test; do
    timeout 30 build/host-release/tests/unit/sdk/noise/$t 2>&1 |
      grep -E "^\[  FAILED  \] [A-Za-z]+\.[A-Za-z]+ \(" | awk '{print $4}'
  done | tr '\n' ' ')
  if [[ -z "$failed" ]]; then
    echo "$name: NOT caught" && escaped=1
  else
    echo "$name: caught by $failed[$detail]"
  fi
done
cp "$backup" "$src"
cmake --build --preset host-release -j2 --target \
  sdk_discrete_gaussian_sampler_test sdk_discrete_gaussian_sampler_host_test \
  > /dev/null 2>&1
exit $escaped
