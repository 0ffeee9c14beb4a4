"""An LSTM that reads a window of a series and forecasts the next steps at once, starting from the naive
forecasts of the same window."""

from typing import Literal

import torch
from runkit import with_drift
from torch import nn

from project.nets.init import init_weights


def normal_quantiles(levels: list[float]) -> torch.Tensor:
    """The standard normal's quantiles at `levels`: how far a forecast's quantiles sit from it, in `naive_error`s."""
    return torch.distributions.Normal(0.0, 1.0).icdf(torch.tensor(levels))


def naive_error(values: torch.Tensor, season: int, observed: torch.Tensor | None = None) -> torch.Tensor:
    """`[B, 1, C]`: the root mean square of the seasonal naive's errors inside each window `[B, L, C]` (the
    change over one season), or of its deviations where the window holds no full season; `observed` `[B, L, 1]`:
    only the changes between observed steps."""
    if observed is None:
        observed = torch.ones_like(values[..., :1])
    if season < values.shape[1]:
        changes, weight = values[:, season:] - values[:, :-season], observed[:, season:] * observed[:, :-season]
    else:
        level, _ = window_moments(values, observed)
        changes, weight = values - level, observed
    mean_square = (changes.pow(2) * weight).sum(dim=1, keepdim=True) / weight.sum(dim=1, keepdim=True).clamp(min=1)
    return mean_square.sqrt().clamp(min=1e-3)


def window_moments(values: torch.Tensor, observed: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor]:
    """Each window's mean and (population) std `[B, 1, C]` over its observed steps (all, without `observed`)."""
    if observed is None:
        return values.mean(dim=1, keepdim=True), values.std(dim=1, keepdim=True, unbiased=False)
    count = observed.sum(dim=1, keepdim=True).clamp(min=1)
    level = (values * observed).sum(dim=1, keepdim=True) / count
    return level, ((values - level).pow(2) * observed).sum(dim=1, keepdim=True).div(count).sqrt()


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
        observed: the inputs' last feature is 1 on a series' own steps and 0 on the padding before a short
            series' start (`data.split: horizons`); the window's level, spread and drift are then taken over
            its observed steps, and the padding reads as 0. Linked from the data.
        start: with `skip: learned`, the naive forecast an untrained network makes: `auto`, the one of NAIVE
            with the lowest MASE on the validation windows, chosen when a fit starts (`start_at`); or one named.
    """

    NAIVE = ("seasonal_naive", "seasonal_drift", "last_value")  # what `skip: learned` reads, in this order
    START = "seasonal_drift"  # where `start: auto` starts until the data chooses (`ForecastModel.choose_start`)

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
        observed: bool = False,
        start: Literal["auto", "seasonal_naive", "seasonal_drift", "last_value"] = "auto",
    ) -> None:
        super().__init__()
        if num_outputs % num_values:
            raise ValueError(f"num_outputs={num_outputs} is not a whole number of steps of {num_values} values")
        if read_window and input_length < 1:
            raise ValueError("read_window needs the window's input_length (linked from data.input_length)")
        self.num_values, self.horizon, self.season = num_values, num_outputs // num_values, season
        self.quantiles = list(quantiles or [])
        num_quantiles = self.num_quantiles = len(self.quantiles) or 1
        self.scale, self.skip, self.observed = scale, skip, observed
        self.features = nn.LSTM(
            input_size, hidden_size, num_layers, batch_first=True, dropout=dropout if num_layers > 1 else 0.0
        )
        # The forecast an untrained network makes: `learned` reads one of NAIVE through, `start_at` says which.
        self.start, self.start_choice = skip, start
        self.read_window = read_window
        window_size = input_length * num_values if read_window else 0
        self.naive_at = hidden_size + future_size + window_size  # where the head's inputs hold the NAIVE forecasts
        naive_size = len(self.NAIVE) * num_outputs if skip == "learned" else 0
        width = num_outputs * num_quantiles
        self.head = nn.Sequential(
            nn.Dropout(dropout), nn.Linear(hidden_size + future_size + window_size + naive_size, width)
        )
        self.head.apply(init_weights)
        if skip != "none":  # the correction starts at nothing: the forecast starts at the naive one
            nn.init.zeros_(self.head[-1].weight)
            nn.init.zeros_(self.head[-1].bias)
        if skip == "learned":
            self.start_at(self.START if start == "auto" else start)
        offsets = normal_quantiles(self.quantiles) if self.quantiles else torch.zeros(1)
        self.register_buffer("offsets", offsets, persistent=False)  # from the levels: not a weight to save

    def start_at(self, kind: str) -> None:
        """The head reads naive forecast `kind` through as it is (every quantile) and the other two at 0, so that
        the untrained network forecasts it; before training only (it overwrites those weights)."""
        if self.skip != "learned" or kind not in self.NAIVE:
            raise ValueError(f"start_at({kind!r}) needs skip: learned and one of {self.NAIVE}")
        outputs = self.num_values * self.horizon
        first = self.naive_at + self.NAIVE.index(kind) * outputs
        with torch.no_grad():
            self.head[-1].weight[:, self.naive_at : self.naive_at + len(self.NAIVE) * outputs] = 0
            identity = torch.eye(outputs).repeat_interleave(self.num_quantiles, dim=0)  # output (step, q) <- step
            self.head[-1].weight[:, first : first + outputs] = identity
        self.start = kind

    def naive(self, values: torch.Tensor, kind: str, observed: torch.Tensor | None = None) -> torch.Tensor:
        """A naive forecast `[B, H, C]` from the input values `[B, L, C]`: each step's value one season
        earlier (while still among the inputs, so a horizon past one season repeats the last season); that
        plus the window's mean change per season for each season it reaches back (`with_drift`, as the logged
        baseline); or the last value."""
        if kind == "last_value":
            return values[:, -1:].expand(-1, self.horizon, -1)
        if kind == "seasonal_drift":
            return with_drift(self.naive(values, "seasonal_naive"), values, self.season, observed)
        seasons = -(-self.horizon // self.season)  # the last season, tiled over the horizon (no gather to export)
        return values[:, -self.season :].repeat(1, seasons, 1)[:, : self.horizon]

    def forward(self, inputs: torch.Tensor, future: torch.Tensor) -> torch.Tensor:
        values = inputs[..., : self.num_values]  # [B, L, C]
        observed = inputs[..., -1:] if self.observed else None  # [B, L, 1]: 0 before a short series' start
        if self.scale == "window":
            level, spread = window_moments(values, observed)
            spread = spread.clamp(min=1e-3)  # a flat window: no division by 0
        elif self.scale == "last":
            level, spread = values[:, -1:], torch.ones_like(values[:, -1:])
        else:
            level, spread = torch.zeros_like(values[:, -1:]), torch.ones_like(values[:, -1:])
        own = (values - level) / spread
        if observed is not None:  # the padding reads as 0 on the window's scale too
            own = own * observed
        scaled = torch.cat([own, inputs[..., self.num_values :]], dim=-1)
        _, (hidden, _) = self.features(scaled)
        read = [hidden[-1], future]
        if self.read_window:  # the window's own values, on its scale: a linear path from inputs to forecast
            read.append(scaled[..., : self.num_values].reshape(len(inputs), -1))
        if self.skip == "learned":  # the naive forecasts, on the window's scale, for the head to weigh
            for kind in self.NAIVE:
                read.append(((self.naive(values, kind, observed) - level) / spread).reshape(len(inputs), -1))
        # [B, H, C, Q]: each quantile of each step and value around the same base, on the window's scale.
        correction = self.head(torch.cat(read, dim=1)).view(len(inputs), self.horizon, self.num_values, -1)
        base = level if self.skip in ("none", "learned") else self.naive(values, self.skip, observed)
        forecast = base.unsqueeze(-1) + spread.unsqueeze(-1) * correction
        if self.quantiles:  # each quantile its normal quantile of the naive's error away
            forecast = forecast + naive_error(values, self.season, observed).unsqueeze(-1) * self.offsets
        return forecast.reshape(len(inputs), -1)  # steps × values (× quantiles), flattened as the targets
