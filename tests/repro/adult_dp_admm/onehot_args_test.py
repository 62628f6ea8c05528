"""The one-hot setup's defaults and its sweep's privacy calibration
(ctest repro_adult_onehot_args_test, < 1 s, no data, no stack):
- `--onehot` alone runs N = 10 with its tuned defaults; `--devices 100`
  selects paper 004's N with the N = 100 ones (onehot.N100), and an
  explicit flag still wins (docs/results.md, "Paper 004 one-hot");
- the sweep's step ε for a record-level target is the largest whose paper
  004 ε̄ (App. A moments accountant) stays within it: at the target,
  within 1e-6 above it the bound is exceeded.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import onehot  # noqa: E402
import run  # noqa: E402


def parse(*flags):
    return run.parse_args(["--onehot", "--build-dir", "b", "--out", "o",
                           *flags])


def main():
    problems = []
    a = parse()
    if (a.devices, a.rounds, a.l2, a.rho, a.clip) != (
            10, 200, 1e-4, 0.01, 1.0):
        problems.append(f"N = 10 defaults changed: {vars(a)}")
    a = parse("--devices", "100")
    if (a.rounds, a.l2, a.rho, a.clip) != (400, 1e-5, 0.1, 0.3):
        problems.append(f"--devices 100 defaults: {vars(a)}")
    if a.seeds != [1, 2, 3, 4, 5] or a.epsilons != [0.1, 0.2, 0.5]:
        problems.append(f"--devices 100 seeds/epsilons: {vars(a)}")
    a = parse("--devices", "100", "--rounds", "800", "--clip", "0.25")
    if (a.rounds, a.clip, a.l2) != (800, 0.25, 1e-5):
        problems.append(f"explicit flags lost: {vars(a)}")
    for target, rounds in ((0.5, 400), (0.5, 200), (0.2, 400)):
        step = onehot.step_epsilon_for(target, rounds, onehot.DELTA)
        bar = onehot.paper_epsilon_bar(step, rounds, onehot.DELTA)
        above = onehot.paper_epsilon_bar(step + 1e-6, rounds, onehot.DELTA)
        if not (bar <= target < above):
            problems.append(f"step eps {step} for {target} over {rounds}: "
                            f"eps-bar {bar}, {above} one step above")
    for p in problems:
        print(f"FAIL: {p}")
    print("ok" if not problems else f"{len(problems)} failure(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
