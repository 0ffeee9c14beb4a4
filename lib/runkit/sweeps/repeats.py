"""Summaries of repeated runs: mean, standard deviation and a 95 % interval of the mean (Student's t)."""

from collections.abc import Sequence

from runkit.sweeps.runs import mean_std

# Student's t at 0.975 for 1..30 degrees of freedom; beyond, the normal's 1.96 is within 2 %.
T_975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
    2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def interval95(values: Sequence[float]) -> tuple[float, float, float, float]:
    """Mean, sample standard deviation, and the 95 % confidence interval of the mean (lower, upper)."""
    mean, std = mean_std(values)
    if len(values) < 2:
        return mean, std, mean, mean
    df = len(values) - 1
    half = (T_975[df - 1] if df <= len(T_975) else 1.96) * std / len(values) ** 0.5
    return mean, std, mean - half, mean + half


def summary_line(name: str, values: Sequence[float]) -> str:
    mean, std, low, high = interval95(values)
    return f"  {name:<24} {mean:.4f} ± {std:.4f}   95 % CI [{low:.4f}, {high:.4f}]   (n={len(values)})"
