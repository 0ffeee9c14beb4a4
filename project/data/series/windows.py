"""Windows over a series: `input_length` steps in, the next `horizon` steps out, all inside one split."""

import torch
from torch.utils.data import Dataset


class Windows(Dataset):
    """Every window whose inputs and targets lie in steps `[start, end)` of the series.

    An item is `(inputs [L, C + K], future covariates [H * K], targets [H * C], baselines [2, H * C])`:
    inputs are the standardised values and covariates, targets the values in their own units, and the
    baselines (in the same units) the last-value and seasonal-naive forecasts of the same window.

    Args:
        values: `[T, C]` in their own units; scaled: `[T, C]` standardised; covariates: `[T, K]` standardised.
        period: the seasonal-naive forecast repeats the last `period` input steps.
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
    ) -> None:
        self.values, self.scaled, self.covariates = values, scaled, covariates
        self.input_length, self.horizon, self.period = input_length, horizon, period
        self.start = start
        self.count = max(0, end - start - input_length - horizon + 1)

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
        first, _ = self.span(index)
        now = first + self.input_length  # the first forecast step
        inputs = torch.cat([self.scaled[first:now], self.covariates[first:now]], dim=1)
        future = self.covariates[now : now + self.horizon].reshape(-1)
        target = self.values[now : now + self.horizon].reshape(-1)
        return inputs, future, target, self.baselines(now).reshape(2, -1)

    def baselines(self, now: int) -> torch.Tensor:
        """`[2, H, C]`: the last input value repeated; the value one period before each target step (the
        period before that, and so on, while that step is still ahead of `now`)."""
        last = self.values[now - 1].expand(self.horizon, -1)
        steps = torch.arange(self.horizon)
        back = now + steps - self.period * (steps // self.period + 1)
        return torch.stack([last, self.values[back]])
