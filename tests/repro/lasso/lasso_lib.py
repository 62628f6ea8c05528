"""Paper 002 App. E (synthetic Lasso): data, reference solver, in-process sweep.

Everything here is numpy only (Debian's python3-numpy). It is used by run.py
(the real-stack experiment) for three things that are not the stack itself:

* the synthetic data set, generated deterministically and written as LIBSVM
  files with real-valued labels (what the devices and the gateway's validator
  read);
* the non-private reference: the Lasso solved by proximal gradient (FISTA) to
  high precision, with κ chosen by K-fold cross-validation;
* an in-process simulation of the two algorithms exactly as the devices and
  the server run them (paper 002 Alg. 3 with clipping of x − z, App. E; and
  the proximal DP-SGD job), used ONLY for the hyper-parameter grid search at
  the smallest ε, as the paper did. No reported number comes from it.
"""

import math

import numpy as np

# --------------------------------------------------------------------------
# Data

P = 64            # features
SUPPORT = 8       # non-zeros of the ground truth
NOISE_STD = 0.1   # b = A x* + N(0, 0.01): 0.01 read as the variance
DATA_SEED = 20240002


def generate(n_train=1000, n_test=1000, seed=DATA_SEED):
    """The synthetic Lasso data of paper 002 App. E.

    Rows of A: N(0, I_p) vectors normalised to unit L2 norm (uniform on the
    unit sphere, as the paper says). Ground truth x*: 8 coordinates chosen
    uniformly without replacement, values U(-1, 1) (the paper says "uniform
    distribution with support of size 8" and no range). b = A x* + e with
    e ~ N(0, 0.1²). Train and test rows come from the same generator (the
    paper does not describe its test set). Returns a dict of arrays.
    """
    rng = np.random.default_rng(seed)
    truth = np.zeros(P)
    support = rng.choice(P, SUPPORT, replace=False)
    truth[support] = rng.uniform(-1.0, 1.0, SUPPORT)

    def draw(count):
        a = rng.normal(size=(count, P))
        a /= np.linalg.norm(a, axis=1, keepdims=True)
        return a, a @ truth + NOISE_STD * rng.normal(size=count)

    a_train, b_train = draw(n_train)
    a_test, b_test = draw(n_test)
    return {"truth": truth, "a_train": a_train, "b_train": b_train,
            "a_test": a_test, "b_test": b_test}


def write_libsvm(path, a, b):
    """Dense LIBSVM with real-valued labels (17 significant digits)."""
    with open(path, "w") as f:
        for row, label in zip(a, b):
            items = " ".join(f"{j + 1}:{v:.17g}" for j, v in enumerate(row)
                             if v != 0.0)
            f.write(f"{label:.17g} {items}\n")


# --------------------------------------------------------------------------
# Objective and the non-private reference


def soft_threshold(v, t):
    return np.sign(v) * np.maximum(np.abs(v) - t, 0.0)


def objective(a, b, z, kappa):
    """Lasso objective (1/(2n))||Az − b||² + κ||z||₁."""
    r = a @ z - b
    return 0.5 * float(np.mean(r * r)) + kappa * float(np.sum(np.abs(z)))


def lasso_fista(a, b, kappa, tol=1e-12, max_iter=200000):
    """argmin (1/(2n))||Ax − b||² + κ||x||₁ by FISTA with the exact step
    1/L, L = ||A||₂²/n; stops when the fixed-point residual of the prox-grad
    map is below tol (an upper bound on sub-optimality up to a factor)."""
    n = a.shape[0]
    lip = np.linalg.norm(a, 2) ** 2 / n
    step = 1.0 / lip
    x = np.zeros(a.shape[1])
    y = x.copy()
    t = 1.0
    for _ in range(max_iter):
        grad = a.T @ (a @ y - b) / n
        x_new = soft_threshold(y - step * grad, step * kappa)
        t_new = 0.5 * (1 + math.sqrt(1 + 4 * t * t))
        y = x_new + ((t - 1) / t_new) * (x_new - x)
        if np.max(np.abs(x_new - x)) < tol:
            x = x_new
            break
        x, t = x_new, t_new
    return x


def cross_validate_kappa(a, b, kappas, folds=5, seed=7):
    """κ with the lowest mean held-out squared error ½·mean((Ax − b)²) over
    `folds` random folds (the LassoCV criterion). Returns (best κ, table)."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(a.shape[0])
    parts = np.array_split(order, folds)
    table = []
    for kappa in kappas:
        errors = []
        for k in range(folds):
            held = parts[k]
            keep = np.concatenate([parts[j] for j in range(folds) if j != k])
            x = lasso_fista(a[keep], b[keep], kappa, tol=1e-10)
            r = a[held] @ x - b[held]
            errors.append(0.5 * float(np.mean(r * r)))
        table.append((float(kappa), float(np.mean(errors))))
    best = min(table, key=lambda row: row[1])[0]
    return best, table


# --------------------------------------------------------------------------
# Accountant for the sweep (the stack's numbers come from the real one)

ORDERS = np.concatenate([np.arange(1.1, 10.95, 0.1), np.arange(11, 64),
                         [128, 256, 512, 1024]])


def gaussian_epsilon(noise_multiplier, compositions, delta):
    """Classic RDP → DP conversion of `compositions` Gaussian mechanisms,
    minimised over the accountant's order grid (docs/privacy.md §1)."""
    rdp = compositions * ORDERS / (2 * noise_multiplier ** 2)
    return float(np.min(rdp + math.log(1 / delta) / (ORDERS - 1)))


def plan_noise_multiplier(compositions, epsilon, delta):
    """Smallest ν with gaussian_epsilon(ν) ≤ ε (bisection in log ν)."""
    lo, hi = math.log(0.05), math.log(1e6)
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if gaussian_epsilon(math.exp(mid), compositions, delta) <= epsilon:
            hi = mid
        else:
            lo = mid
    return math.exp(hi)


# --------------------------------------------------------------------------
# In-process simulation of the two jobs (hyper-parameter search only)


def clip_rows(v, c):
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    return v * np.minimum(1.0, c / np.maximum(norms, 1e-300))


def simulate_admm(a, b, kappa, lam, gamma, clip, sigma, rounds, q, m_min,
                  rng, trusted=False):
    """Paper 002 Alg. 3 as the stack runs it (`prox-admm`, squared loss, L1):
    Poisson(q) cohort, discarded below m_min; device i: x = prox_{γ f_i}(2z −
    u_i), Δu = 2λ·Clip(x − z, C) + λη (η ~ N(0, σ²I); u_i keeps the
    noiseless part); server ŝ += ΣΔu/n, z = S_{γκ}(ŝ). `trusted`: devices
    send no noise, the server adds N(0, (λσ)²I) to the sum. Returns z."""
    n, p = a.shape
    u = np.zeros((n, p))
    s_hat = np.zeros(p)
    z = np.zeros(p)
    sq = np.sum(a * a, axis=1)
    for _ in range(rounds):
        cohort = np.flatnonzero(rng.random(n) < q)
        if len(cohort) < m_min:
            continue
        ai = a[cohort]
        v = 2 * z - u[cohort]
        resid = (np.sum(ai * v, axis=1) - b[cohort]) / (1 + gamma * sq[cohort])
        x = v - gamma * resid[:, None] * ai
        clean = 2 * lam * clip_rows(x - z, clip)
        u[cohort] += clean
        total = clean.sum(axis=0)
        if trusted:
            total += lam * sigma * rng.normal(size=p)
        else:
            total += lam * sigma * math.sqrt(len(cohort)) * rng.normal(size=p)
        s_hat += total / n
        z = soft_threshold(s_hat, gamma * kappa)
    return z


def simulate_dp_sgd(a, b, kappa, lr, clip, sigma, rounds, q, m_min, rng,
                    local_steps=1):
    """The `dp-sgd` job: Poisson(q) cohort; device i: w = E gradient steps of
    ½(aᵀw − b)² from z with rate η, Δ = Clip(w − z, C) + N(0, σ²I); server
    z = S_{ηκ}(z + mean Δ). Returns z."""
    n, p = a.shape
    z = np.zeros(p)
    for _ in range(rounds):
        cohort = np.flatnonzero(rng.random(n) < q)
        if len(cohort) < m_min:
            continue
        ai, bi = a[cohort], b[cohort]
        w = np.tile(z, (len(cohort), 1))
        for _ in range(local_steps):
            w -= lr * (np.sum(ai * w, axis=1) - bi)[:, None] * ai
        delta = clip_rows(w - z, clip)
        total = delta.sum(axis=0) + sigma * math.sqrt(len(cohort)) * \
            rng.normal(size=p)
        z = soft_threshold(z + total / len(cohort), lr * kappa)
    return z
