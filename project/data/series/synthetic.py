"""A generated hourly series: trend, a daily and a weekly season, and noise that lingers."""

import math
from datetime import datetime, timedelta

import torch


def seasonal_series(length: int = 6000, seed: int = 0, noise: float = 0.3) -> torch.Tensor:
    """`[length, 1]`: a slow trend, a daily (24-step) and a weekly (168-step) season whose weekday shape a
    daily seasonal-naive forecast cannot follow, and AR(1) noise (a forecast can use the last values; a
    seasonal naive forecast repeats yesterday's noise)."""
    gen = torch.Generator().manual_seed(seed)
    t = torch.arange(length, dtype=torch.float64)
    trend = 0.002 * t
    daily = 1.0 * torch.sin(2 * math.pi * t / 24) + 0.4 * torch.sin(4 * math.pi * t / 24)
    # Weekdays differ in level and weekends in the daily swing: yesterday is a poor guess on Mondays and Saturdays.
    day = (t // 24) % 7
    weekly = 0.8 * torch.sin(2 * math.pi * t / 168) + torch.where(day >= 5, -0.6 + 0.5 * daily, torch.zeros_like(t))
    shocks = noise * torch.randn(length, generator=gen, dtype=torch.float64)
    ar = torch.zeros(length, dtype=torch.float64)
    for i in range(1, length):
        ar[i] = 0.8 * ar[i - 1] + shocks[i]
    return (10 + trend + daily + weekly + ar).float().unsqueeze(1)


def hours(count: int) -> list[str]:
    """ISO times an hour apart from 2020-01-01 00:00: the generated series' time column."""
    start = datetime(2020, 1, 1)
    return [(start + timedelta(hours=h)).isoformat(sep=" ", timespec="minutes") for h in range(count)]
