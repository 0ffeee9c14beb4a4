"""How a forecast is scored beside its baselines: MASE per series, then over the series (`ScaledErrors`), as
`val/mase` and the M4 competition's `mase_m4`."""

from collections.abc import Sequence

import torch
from torchmetrics import Metric
from torchmetrics.utilities import dim_zero_cat

from runkit.forecasting.baselines import BASELINES
from runkit.forecasting.windows import Windows


class ScaledErrors(Metric):
    """MASE of the model and of each baseline: per series, the MAE of its windows over the seasonal naive's MAE on
    the same windows, then the geometric mean over the series (Davydenko and Fildes' AvgRelMAE). With one series,
    the model's MAE over the seasonal naive's. Not the arithmetic mean: a series the naive forecasts almost
    exactly (a flat stretch) gives a ratio of 10 or 100 that would outweigh every other series, where its log
    counts as much as any other's (docs/tasks.md, "Many series").

    Beside it, where `insample` is set, MASE as the M4 competition scales it (`mase_m4`, `mase_m4_<baseline>`):
    per series, the MAE of its windows over the in-sample MAE of the one-step seasonal naive on the steps before
    the part (`SeriesDataModule.insample`), then the arithmetic mean over the series."""

    full_state_update = False

    def __init__(self) -> None:
        super().__init__()
        self.add_state("series", default=[], dist_reduce_fx="cat")
        self.add_state("errors", default=[], dist_reduce_fx="cat")
        self.insample: torch.Tensor | None = None  # [S]: each series' in-sample seasonal naive MAE, by index

    def update(self, forecasts: torch.Tensor, target: torch.Tensor, series: torch.Tensor) -> None:
        """`forecasts` `[B, 1 + len(BASELINES) + K, H * C]` (the model's first, then the baselines', then any `K` more
        scored alike: `overall` gives theirs), `target` `[B, H * C]`, `series` `[B]`."""
        self.series.append(series)
        self.errors.append((forecasts - target.unsqueeze(1)).abs().mean(dim=2))

    def by_series(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The series indices `[S]` and, for each, the MASE of the model and of each baseline `[S, 1 + 4 (+ K)]`; a
        series the seasonal naive forecasts exactly has no scale and is left out."""
        ids, total, _ = self.totals()
        naive = total[:, 1 + BASELINES.index("seasonal_naive")]
        return ids[naive > 0], total[naive > 0] / naive[naive > 0].unsqueeze(1)

    def totals(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The series indices `[S]`, each one's summed absolute errors `[S, 1 + 4]` and its count of windows `[S]`."""
        series, errors = dim_zero_cat(self.series), dim_zero_cat(self.errors)
        ids, which = torch.unique(series, return_inverse=True)
        total = errors.new_zeros(len(ids), errors.shape[1]).index_add_(0, which, errors)
        return ids, total, torch.bincount(which, minlength=len(ids))

    def overall(self, m4: bool = False) -> torch.Tensor:
        """Every column's MASE over the series `[1 + 4 + ...]` (the geometric mean; `m4`: the M4 MASE's arithmetic
        mean), the columns past the baselines too (the forecaster's blends), every process's windows."""
        with self.sync_context():
            return self.means(m4)

    def means(self, m4: bool = False) -> torch.Tensor:
        """`overall` on the states as they are (`compute` runs synced already)."""
        if m4:
            return self.m4_by_series()[1].mean(dim=0)
        return self.by_series()[1].clamp(min=1e-12).log().mean(dim=0).exp()

    def compute(self) -> dict[str, torch.Tensor]:
        mase = self.means()
        names = ["mase", *(f"mase_{name}" for name in BASELINES)]
        scores = {name: mase[i] for i, name in enumerate(names) if name != "mase_seasonal_naive"}
        if self.insample is not None:
            m4 = self.means(m4=True)
            scores |= {name.replace("mase", "mase_m4", 1): m4[i] for i, name in enumerate(names)}
        return scores

    def m4_by_series(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The series indices `[S]` and each one's M4 MASE, the model's and each baseline's `[S, 1 + 4]`; a series
        whose history the seasonal naive forecasts exactly has no scale and is left out."""
        assert self.insample is not None
        ids, total, count = self.totals()
        mae = total / count.unsqueeze(1).to(total.dtype)
        scale = self.insample.to(mae.device, mae.dtype)[ids]
        kept = torch.isfinite(scale) & (scale > 0)
        return ids[kept], mae[kept] / scale[kept].unsqueeze(1)


def scored_baselines(windows: Sequence[Windows], insample: torch.Tensor | None = None) -> ScaledErrors:
    """`ScaledErrors` over `windows` of each baseline, the seasonal naive's in the model's place: what a model is
    scored beside, without one."""
    baselines = torch.cat([w.baselines for w in windows])
    series = torch.cat([torch.full((len(w),), w.series) for w in windows])
    naive = baselines[:, BASELINES.index("seasonal_naive")].unsqueeze(1)
    metric = ScaledErrors()
    metric.insample = insample
    metric.update(torch.cat([naive, baselines], dim=1), torch.cat([w.targets for w in windows]), series)
    return metric
