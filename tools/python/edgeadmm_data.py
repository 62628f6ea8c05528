"""Data sets, model metrics, plots and JSON reports for the EdgeADMM harness.

Reads LIBSVM files (plain or .xz) into dense arrays, writes synthetic ones,
scores a linear model (accuracy, logistic loss, the majority class, the
non-private central optimum), plots series to PNG and writes JSON reports.
edgeadmm_stack.py re-exports these names, so the scripts call them as
es.<name>. Run with Debian's /usr/bin/python3 (numpy and matplotlib from apt).
"""

from __future__ import annotations

import json
import lzma
from typing import IO, Any, Optional, Sequence, Tuple

import numpy as np


def open_text(path: str) -> IO[str]:
    """Opens a plain or .xz text file."""
    if path.endswith(".xz"):
        return lzma.open(path, "rt")
    return open(path, "rt")


def read_libsvm(path: str, dim: int) -> Tuple[np.ndarray, np.ndarray]:
    """Dense (features, labels) of a LIBSVM file with a fixed dimension."""
    rows, labels = [], []
    with open_text(path) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            labels.append(1.0 if float(parts[0]) > 0 else -1.0)
            row = np.zeros(dim)
            for item in parts[1:]:
                index, value = item.split(":")
                if int(index) <= dim:
                    row[int(index) - 1] = float(value)
            rows.append(row)
    return np.array(rows), np.array(labels)


def write_synthetic_libsvm(path: str, samples: int, dim: int, seed: int,
                           truth: Optional[np.ndarray] = None) -> np.ndarray:
    """Writes a binary-feature LIBSVM file labelled by a fixed linear model
    (the fallback when no real data is found). Returns the model."""
    rng = np.random.default_rng(seed)
    if truth is None:
        truth = np.random.default_rng(12345).normal(size=dim)
    features = (rng.random((samples, dim)) < 0.12).astype(float)
    margin = features @ truth + 0.3 * rng.normal(size=samples)
    labels = np.where(margin >= np.median(margin), 1, -1)
    with open(path, "w") as f:
        for x, y in zip(features, labels):
            items = " ".join(f"{i + 1}:1" for i in np.flatnonzero(x))
            f.write(f"{'+1' if y > 0 else '-1'} {items}\n")
    return truth


def accuracy(features: np.ndarray, labels: np.ndarray, z: np.ndarray
             ) -> float:
    """Fraction of records whose label has the sign of aᵀz."""
    predicted = np.where(features @ z >= 0, 1.0, -1.0)
    return float(np.mean(predicted == labels))


def logistic_loss(features: np.ndarray, labels: np.ndarray, z: np.ndarray
                  ) -> float:
    """Mean logistic loss log(1 + exp(-y aᵀz))."""
    return float(np.mean(np.logaddexp(0.0, -labels * (features @ z))))


def majority_rate(labels: np.ndarray) -> float:
    """Accuracy of always predicting the more frequent label."""
    positive = float(np.mean(labels > 0))
    return max(positive, 1.0 - positive)


def central_logistic_optimum(features: np.ndarray, labels: np.ndarray,
                             l2: float, iterations: int = 50) -> np.ndarray:
    """The non-private central optimum of mean logistic loss + (l2/2)||z||²
    over all records (Newton's method; the objective prox-admm's fixed
    point minimizes when devices hold equally many records)."""
    n, p = features.shape
    z = np.zeros(p)
    for _ in range(iterations):
        margin = labels * (features @ z)
        sig = 0.5 * (1.0 - np.tanh(0.5 * margin))  # 1 / (1 + e^margin)
        grad = -(features.T @ (labels * sig)) / n + l2 * z
        weight = sig * (1.0 - sig)
        hess = (features.T * weight) @ features / n + (l2 + 1e-12) * np.eye(p)
        step = np.linalg.solve(hess, grad)
        z -= step
        if np.linalg.norm(step) < 1e-10 * (1.0 + np.linalg.norm(z)):
            break
    return z


# --------------------------------------------------------------------------
# Plots


def plot_series(path: str, x: Sequence[float],
                series: Sequence[Tuple[str, Sequence[float]]], xlabel: str,
                ylabel: str, title: str,
                hlines: Sequence[Tuple[str, float]] = (),
                marks: Sequence[Tuple[str, float, float]] = ()) -> None:
    """One PNG line plot; `series` is a list of (label, y), `hlines` of
    (label, y) reference levels (dashed), `marks` of (label, x, y) points
    (a star and a dotted vertical line, e.g. the released round)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4), dpi=100)
    for label, y in series:
        ax.plot(x, y, marker="o", markersize=3, label=label)
    for (label, y), style in zip(hlines, ("--", "-.", ":", "--")):
        ax.axhline(y, linestyle=style, color="0.35" if style == "--" else
                   "tab:green", linewidth=1.2, label=label)
    for label, mx, my in marks:
        ax.axvline(mx, linestyle=":", color="tab:red", linewidth=1)
        ax.plot([mx], [my], marker="*", markersize=14, color="tab:red",
                linestyle="none", label=label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    if len(series) + len(hlines) + len(marks) > 1 or series[0][0]:
        ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def write_json(path: str, value: Any) -> None:
    with open(path, "w") as f:
        json.dump(value, f, indent=2, sort_keys=True)
        f.write("\n")
