"""Windows over a series: `input_length` steps in, the next `horizon` steps out, all inside one split."""

import torch
from torch.utils.data import Dataset

from project.data.series.baselines import BASELINES, naive_sources, seasonal_drift


class Windows(Dataset):
    """Every window whose inputs and targets lie in steps `[start, end)` of the series.

    An item is `(inputs [L, C + K], future covariates [H * K], targets [H * C], baselines [4, H * C])`:
    inputs are the standardised values and covariates, targets the values in their own units, and the
    baselines (in the same units) the forecasts of `baselines.BASELINES` for the same window.

    Args:
        values: `[T, C]` in their own units; scaled: `[T, C]` standardised; covariates: `[T, K]` standardised.
        period: the seasonal-naive forecast repeats the last `period` input steps.
        ets: `[T + 1, H, C]`, row `t` the Holt-Winters forecast from origin `t` (`holt_winters_forecasts`);
            None: zeros (a window to forecast from, whose baselines nobody scores).
    """

    def __init__(
        self,
        values: torch.Tensor,
        scaled: torch.Tensor,
        covariates: torch.Tensor,
        start: int,
        end: int,
        input_length: int,
        horizon: int,
        period: int,
        ets: torch.Tensor | None = None,
    ) -> None:
        self.values, self.scaled, self.covariates = values, scaled, covariates
        self.input_length, self.horizon, self.period = input_length, horizon, period
        self.start = start
        self.count = max(0, end - start - input_length - horizon + 1)
        # Every window at once, so that an item is a few views (the loader's Python work per sample is what a
        # small LSTM would otherwise wait for): `unfold` makes the sliding windows without copying.
        now = torch.arange(self.count) + start + input_length  # each window's first forecast step
        ahead = now.unsqueeze(1) + torch.arange(horizon)  # [N, H]
        self.targets = values[ahead].reshape(self.count, horizon * values.shape[1])
        self.future = covariates[ahead].reshape(self.count, horizon * covariates.shape[1])
        back, _ = naive_sources(horizon, period)
        seasonal = values[now.unsqueeze(1) - back]  # one period back, while still in the inputs
        last = values[now - 1].unsqueeze(1).expand(-1, horizon, -1)
        drift = seasonal_drift(values, now, input_length, horizon, period)
        holt_winters = ets[now] if ets is not None else torch.zeros_like(seasonal)
        forecasts = {"last_value": last, "seasonal_naive": seasonal, "seasonal_drift": drift, "ets": holt_winters}
        self.baselines = torch.stack([forecasts[name] for name in BASELINES], dim=1).reshape(
            self.count, len(BASELINES), horizon * values.shape[1]
        )
        table = torch.cat([scaled, covariates], dim=1)[start : end - horizon]
        # [N, F, L], a view; no window at all (a part shorter than one): none, with the right shape.
        self.inputs = (
            table.unfold(0, input_length, 1) if self.count else table.new_zeros(0, table.shape[1], input_length)
        )

    def __len__(self) -> int:
        return self.count

    def span(self, index: int) -> tuple[int, int]:
        """The steps `[first, last + 1)` window `index` reads, inputs and targets."""
        first = self.start + index
        return first, first + self.input_length + self.horizon

    @property
    def steps(self) -> tuple[int, int]:
        """The steps all windows together read, `[first, last + 1)`; (0, 0) when there is none."""
        return (self.span(0)[0], self.span(self.count - 1)[1]) if self.count else (0, 0)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        return self.inputs[index].T, self.future[index], self.targets[index], self.baselines[index]
