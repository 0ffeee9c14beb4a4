"""Windows over a series (or many): `input_length` steps in, the next `horizon` steps out, all inside one split."""

import torch
from torch.utils.data import ConcatDataset, Dataset

from runkit.forecasting.baselines import BASELINES, holt_winters_forecasts, naive_sources, seasonal_drift
from runkit.formats.series import Series


class Windows(Dataset):
    """Every window whose inputs and targets lie in steps `[start, end)` of the series.

    An item is `(inputs [L, C + K], future covariates [H * K], targets [H * C], baselines [4, H * C], series)`:
    inputs are the standardised values and covariates, targets the values in their own units, the
    baselines (in the same units) the forecasts of `baselines.BASELINES` for the same window, and `series`
    the index of the series the window comes from (0 where there is one), by which MASE is averaged.

    Args:
        values: `[T, C]` in their own units; scaled: `[T, C]` standardised; covariates: `[T, K]` standardised.
        period: the seasonal-naive forecast repeats the last `period` input steps.
        ets: `[T + 1, H, C]`, row `t` the Holt-Winters forecast from origin `t` (`holt_winters_forecasts`);
            None: zeros (a window to forecast from, whose baselines nobody scores).
        observed: `[T]`, 1 on the series' own steps and 0 on the padding before them (`padded`): the inputs'
            last feature, so that a window may reach back past the series' start (a short series whose history
            is shorter than `input_length`); None: every step is observed and no such feature is added.
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
        series: int = 0,
        observed: torch.Tensor | None = None,
    ) -> None:
        self.values, self.scaled, self.covariates, self.series = values, scaled, covariates, series
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
        drift = seasonal_drift(values, now, input_length, horizon, period, observed)
        holt_winters = ets[now] if ets is not None else torch.zeros_like(seasonal)
        forecasts = {"last_value": last, "seasonal_naive": seasonal, "seasonal_drift": drift, "ets": holt_winters}
        self.baselines = torch.stack([forecasts[name] for name in BASELINES], dim=1).reshape(
            self.count, len(BASELINES), horizon * values.shape[1]
        )
        table = torch.cat([scaled, covariates, *([observed.unsqueeze(1)] if observed is not None else [])], dim=1)
        table = table[start : end - horizon]
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

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, int]:
        return self.inputs[index].T, self.future[index], self.targets[index], self.baselines[index], self.series


def padded(series_table: torch.Tensor, before: int) -> torch.Tensor:
    """`series_table` `[T, F]` after `before` rows of zeros (a standardised value's mean): what a window reading
    past the series' start reads there, beside an observed feature of 0."""
    return torch.cat([series_table.new_zeros(before, *series_table.shape[1:]), series_table])


class PanelWindows(ConcatDataset):
    """The windows of many series, one `Windows` per series, in the order of their `series` index."""

    datasets: list[Windows]

    @property
    def targets(self) -> torch.Tensor:
        """`[N, H * C]`: every window's targets, as `Windows.targets`."""
        return torch.cat([windows.targets for windows in self.datasets])


def forecast_window(
    series: Series,
    scale: tuple[torch.Tensor, torch.Tensor],
    shape: tuple[int, int, int],
    future: torch.Tensor | None,
    own_units: bool,
    index: int = 0,
    observed: bool = False,
) -> Windows:
    """The window that forecasts the `horizon` steps after `series`' end from its last `input_length` steps, its
    targets unknown (zeros). `scale`: the (mean, std) training scaled it by; `shape`: (input_length, horizon,
    season); `future`: the covariates of the forecast steps `[horizon, K]`; `own_units`: the targets in the
    series' units (one series), else in its standardised ones; `index`: the series' index; `observed`: the
    network reads which steps are the series' own, and a series shorter than `input_length` is padded."""
    input_length, horizon, _ = shape
    tail = torch.cat([series.values, series.covariates], dim=1)[-input_length:]
    ahead = torch.zeros(horizon, tail.shape[1])  # the values ahead are unknown (and unused)
    count = series.values.shape[1]
    if future is not None:
        ahead[:, count:] = future
    steps = torch.cat([tail, ahead])
    mean, std = scale
    scaled = (steps - mean) / std
    values = steps[:, :count] if own_units else scaled[:, :count]
    args = (values, scaled[:, :count], scaled[:, count:])
    mask = None
    if observed:
        pad = input_length - len(tail)
        args, mask = tuple(padded(table, pad) for table in args), padded(torch.ones(len(steps)), pad)
    return Windows(*args, 0, len(args[0]), *shape, series=index, observed=mask)


def with_ets(
    window: Windows, series: Series, scale: tuple[torch.Tensor, torch.Tensor], own_units: bool, season: int
) -> Windows:
    """`window` (`forecast_window`'s, after `series`' end) holding, as its ETS baseline, Holt-Winters fitted on
    every step of `series` and run to its end: what a forecaster that blends in ETS forecasts with, at `predict`
    and in a server. In the targets' units: the series' own (`own_units`), or standardised by `scale`."""
    values = series.values
    if not own_units:
        count = values.shape[1]
        values = (values - scale[0][:count]) / scale[1][:count]
    forecast = holt_winters_forecasts(values, len(values), season, window.horizon)[-1]  # [H, C], after the end
    window.baselines[:, BASELINES.index("ets")] = forecast.reshape(-1).to(window.baselines.dtype)
    return window
