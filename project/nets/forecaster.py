"""An LSTM that reads a window of a series and forecasts the next steps at once, starting from the naive
forecasts of the same window."""

from typing import Literal

import torch
from torch import nn

from project.nets.init import init_weights


def normal_quantiles(levels: list[float]) -> torch.Tensor:
    """The standard normal's quantiles at `levels`: how far a forecast's quantiles sit from it, in `naive_error`s."""
    return torch.distributions.Normal(0.0, 1.0).icdf(torch.tensor(levels))


def naive_error(values: torch.Tensor, season: int) -> torch.Tensor:
    """`[B, 1, C]`: the root mean square of the seasonal naive's errors inside each window `[B, L, C]` (the
    change over one season), or of its deviations where the window holds no full season."""
    if season < values.shape[1]:
        changes = values[:, season:] - values[:, :-season]
    else:
        changes = values - values.mean(dim=1, keepdim=True)
    return changes.pow(2).mean(dim=1, keepdim=True).sqrt().clamp(min=1e-3)


def with_drift(seasonal: torch.Tensor, window: torch.Tensor, season: int) -> torch.Tensor:
    """The seasonal naive with drift: the seasonal naive forecast `[B, H, C]` plus its window's `[B, L, C]` mean
    change per season, once for each season the step reaches back (a trending series' seasonal naive lags by a
    season's growth). One definition for the network's start and the baseline it is logged beside
    (`data/series/baselines.seasonal_drift`). A window of a season or less has no change to measure."""
    if season >= window.shape[1]:
        return seasonal
    per_season = (window[:, season:] - window[:, :-season]).mean(dim=1, keepdim=True)  # [B, 1, C]
    seasons = torch.arange(seasonal.shape[1], device=seasonal.device) // season + 1
    return seasonal + seasons.view(1, -1, 1).to(seasonal.dtype) * per_season


class LSTMForecaster(nn.Module):
    """`(inputs [B, L, F], future covariates [B, H * K])` → forecasts `[B, num_outputs]` (`H * C` values).

    The LSTM reads the `L` input steps (values, then covariates); its last hidden state, beside the
    covariates already known for the forecast steps, goes to a linear head that emits every step of the
    horizon at once (no feeding back of its own forecasts, so no error compounds over the horizon).

    Three inductive biases keep it from losing to the forecasts a practitioner tries first:
    - `scale: window` takes each window's own level and spread out of its values before the LSTM reads
      them, and puts them back on what the head emits (as RevIN does): a series with a trend leaves the
      training range in the later parts, where absolute levels are inputs the LSTM never saw, but shapes
      relative to the window are not. `last` takes out the last value only; `none` reads the values as the
      DataModule scaled them.
    - `skip: learned` gives the head three naive forecasts of the window (the values one `season` earlier;
      the same plus the window's mean change per season, once for each season the step reaches: the seasonal
      naive with drift; and the last value), on the window's scale, beside the LSTM's summary, and starts it
      as the seasonal naive with drift exactly (those weights the identity, the rest zero): an untrained
      network forecasts it, and training re-weighs the three per step and learns the correction, through a
      linear path that small data can move. `seasonal_naive` / `seasonal_drift` / `last_value`: that
      forecast plus what the head adds (its last layer starts at zero); `none`: the head's output is the
      forecast (around the window's level).
      The real-data board's series chose `learned` (docs/tasks.md, "On real series").
    - `read_window` gives the head the window's values themselves (on its scale) too, a linear map from the
      input steps to each forecast step (as NLinear / DLinear do; exponential smoothing's forecast is such a
      map too, its weights decaying into the past). With a skip its weights start at zero, so the start is
      unchanged. On the board it took El Niño past ETS (docs/tasks.md, "On real series").

    Args:
        num_outputs: horizon × value columns; linked from the DataModule.
        input_size: features per input step (value columns + covariates); linked from the DataModule.
        future_size: known covariates of the forecast steps (horizon × covariates); linked as well.
        num_values: value columns among the inputs (the first ones); linked as well.
        season: the period of the seasonal-naive forecast, in steps; linked from `data.season`.
        quantiles: forecast these quantiles of each step and value (the task's `quantiles`, the same list:
            configs/lstm_forecast_intervals.yaml sets both): outputs `[B, num_outputs * len(quantiles)]`, the
            quantile last. Each is the forecast a single one would be, plus its normal quantile times the
            seasonal naive's error inside the window (`naive_error`; 0.1 and 0.9: ±1.28 of it), plus what the
            head learns: an untrained interval is already about as wide as the naive forecast's errors.
        read_window: the head reads the window's values as well (above).
        input_length: steps in a window, which `read_window` reads; linked from `data.input_length`.
    """

    NAIVE = ("seasonal_naive", "seasonal_drift", "last_value")  # what `skip: learned` reads, in this order
    START = "seasonal_drift"

    def __init__(
        self,
        num_outputs: int,
        input_size: int,
        future_size: int = 0,
        num_values: int = 1,
        season: int = 1,
        hidden_size: int = 64,
        num_layers: int = 1,
        dropout: float = 0.0,
        scale: Literal["window", "last", "none"] = "window",
        skip: Literal["learned", "seasonal_naive", "seasonal_drift", "last_value", "none"] = "learned",
        quantiles: list[float] | None = None,
        read_window: bool = True,
        input_length: int = 0,
    ) -> None:
        super().__init__()
        if num_outputs % num_values:
            raise ValueError(f"num_outputs={num_outputs} is not a whole number of steps of {num_values} values")
        if read_window and input_length < 1:
            raise ValueError("read_window needs the window's input_length (linked from data.input_length)")
        self.num_values, self.horizon, self.season = num_values, num_outputs // num_values, season
        self.quantiles = list(quantiles or [])
        num_quantiles = self.num_quantiles = len(self.quantiles) or 1
        self.scale, self.skip = scale, skip
        self.features = nn.LSTM(
            input_size, hidden_size, num_layers, batch_first=True, dropout=dropout if num_layers > 1 else 0.0
        )
        # The forecast an untrained network makes: `learned` reads NAIVE through as they are, starting with START.
        self.start = self.START if skip == "learned" else skip
        self.read_window = read_window
        window_size = input_length * num_values if read_window else 0
        naive_size = len(self.NAIVE) * num_outputs if skip == "learned" else 0
        width = num_outputs * num_quantiles
        self.head = nn.Sequential(
            nn.Dropout(dropout), nn.Linear(hidden_size + future_size + window_size + naive_size, width)
        )
        self.head.apply(init_weights)
        if skip != "none":  # the correction starts at nothing: the forecast starts at the naive one
            nn.init.zeros_(self.head[-1].weight)
            nn.init.zeros_(self.head[-1].bias)
        if skip == "learned":  # reads the start's forecast through as it is (every quantile), the others at 0
            first = hidden_size + future_size + window_size + self.NAIVE.index(self.START) * num_outputs
            with torch.no_grad():
                identity = torch.eye(num_outputs).repeat_interleave(num_quantiles, dim=0)  # output (step, q) <- step
                self.head[-1].weight[:, first : first + num_outputs] = identity
        offsets = normal_quantiles(self.quantiles) if self.quantiles else torch.zeros(1)
        self.register_buffer("offsets", offsets, persistent=False)  # from the levels: not a weight to save

    def naive(self, values: torch.Tensor, kind: str) -> torch.Tensor:
        """A naive forecast `[B, H, C]` from the input values `[B, L, C]`: each step's value one season
        earlier (while still among the inputs, so a horizon past one season repeats the last season); that
        plus the window's mean change per season for each season it reaches back (`with_drift`, as the logged
        baseline); or the last value."""
        if kind == "last_value":
            return values[:, -1:].expand(-1, self.horizon, -1)
        if kind == "seasonal_drift":
            return with_drift(self.naive(values, "seasonal_naive"), values, self.season)
        seasons = -(-self.horizon // self.season)  # the last season, tiled over the horizon (no gather to export)
        return values[:, -self.season :].repeat(1, seasons, 1)[:, : self.horizon]

    def forward(self, inputs: torch.Tensor, future: torch.Tensor) -> torch.Tensor:
        values = inputs[..., : self.num_values]  # [B, L, C]
        if self.scale == "window":
            level = values.mean(dim=1, keepdim=True)
            spread = values.std(dim=1, keepdim=True, unbiased=False).clamp(min=1e-3)  # a flat window: no division by 0
        elif self.scale == "last":
            level, spread = values[:, -1:], torch.ones_like(values[:, -1:])
        else:
            level, spread = torch.zeros_like(values[:, -1:]), torch.ones_like(values[:, -1:])
        scaled = torch.cat([(values - level) / spread, inputs[..., self.num_values :]], dim=-1)
        _, (hidden, _) = self.features(scaled)
        read = [hidden[-1], future]
        if self.read_window:  # the window's own values, on its scale: a linear path from inputs to forecast
            read.append(scaled[..., : self.num_values].reshape(len(inputs), -1))
        if self.skip == "learned":  # the naive forecasts, on the window's scale, for the head to weigh
            for kind in self.NAIVE:
                read.append(((self.naive(values, kind) - level) / spread).reshape(len(inputs), -1))
        # [B, H, C, Q]: each quantile of each step and value around the same base, on the window's scale.
        correction = self.head(torch.cat(read, dim=1)).view(len(inputs), self.horizon, self.num_values, -1)
        base = level if self.skip in ("none", "learned") else self.naive(values, self.skip)
        forecast = base.unsqueeze(-1) + spread.unsqueeze(-1) * correction
        if self.quantiles:  # each quantile its normal quantile of the naive's error away
            forecast = forecast + naive_error(values, self.season).unsqueeze(-1) * self.offsets
        return forecast.reshape(len(inputs), -1)  # steps × values (× quantiles), flattened as the targets
