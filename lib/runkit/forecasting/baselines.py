"""The forecasts a practitioner tries first, made for every window of a series so that the model is scored
beside them on exactly its own windows: the last value, the seasonal naive, the seasonal naive with drift,
and Holt-Winters (ETS with an additive trend and season).

Holt-Winters' parameters are estimated once, by statsmodels, on the training part only; its states are then
run forward over the whole series with those parameters held, and each window's forecast starts from the
states at its origin. So the validation and test forecasts see the values before their origin, as the
model's windows do, and nothing after; re-estimating the parameters per window (as the real-data board
does once a season) would cost a fit per origin.
"""

import warnings
from dataclasses import dataclass

import torch

from runkit import DataError

# The order of `Windows.baselines` and of the logged `mae_*` metrics.
BASELINES = ("last_value", "seasonal_naive", "seasonal_drift", "ets")
BASELINE_NAMES = {
    "last_value": "last value",
    "seasonal_naive": "seasonal naive",
    "seasonal_drift": "seasonal naive with drift",
    "ets": "ETS",
}


def with_drift(
    seasonal: torch.Tensor, window: torch.Tensor, season: int, observed: torch.Tensor | None = None
) -> torch.Tensor:
    """The seasonal naive with drift: the seasonal naive forecast `[B, H, C]` plus its window's `[B, L, C]` mean
    change per season, once for each season the step reaches back (a trending series' seasonal naive lags by a
    season's growth). One definition for a network's start and the baseline it is logged beside
    (`seasonal_drift` below). A window of a season or less has no change to measure.
    `observed` `[B, L, 1]`: 0 on padding before a short series' start; only changes between observed steps count."""
    if season >= window.shape[1]:
        return seasonal
    changes = window[:, season:] - window[:, :-season]
    if observed is None:
        per_season = changes.mean(dim=1, keepdim=True)  # [B, 1, C]
    else:
        both = observed[:, season:] * observed[:, :-season]
        per_season = (changes * both).sum(dim=1, keepdim=True) / both.sum(dim=1, keepdim=True).clamp(min=1)
    seasons = torch.arange(seasonal.shape[1], device=seasonal.device) // season + 1
    return seasonal + seasons.view(1, -1, 1).to(seasonal.dtype) * per_season


def naive_sources(horizon: int, season: int) -> tuple[torch.Tensor, torch.Tensor]:
    """For each forecast step `h` (0-based): how many steps before the origin the seasonal naive reads (one
    season back, or whole seasons more where the horizon passes a season), and how many seasons that is."""
    steps = torch.arange(horizon)
    seasons = steps // season + 1
    return season * seasons - steps, seasons


def seasonal_drift(
    values: torch.Tensor,
    origins: torch.Tensor,
    input_length: int,
    horizon: int,
    season: int,
    observed: torch.Tensor | None = None,
) -> torch.Tensor:
    """`[N, H, C]`: the seasonal naive with drift (`with_drift`) of the windows of `values` whose
    first forecast steps are `origins`; `observed` `[T]`: 0 on padding, whose changes are not counted."""
    back, _ = naive_sources(horizon, season)
    window = origins.unsqueeze(1) - input_length + torch.arange(input_length)  # [N, L]
    mask = observed[window].unsqueeze(-1) if observed is not None else None
    return with_drift(values[origins.unsqueeze(1) - back], values[window], season, mask)


@dataclass(frozen=True)
class HoltWinters:
    """Additive Holt-Winters, as statsmodels' `ExponentialSmoothing(trend="add", seasonal="add")` defines it:

        level_t  = α (y_t − season_{t−m}) + (1 − α)(level_{t−1} + trend_{t−1})
        trend_t  = β (level_t − level_{t−1}) + (1 − β) trend_{t−1}
        season_t = γ (y_t − level_{t−1} − trend_{t−1}) + (1 − γ) season_{t−m}
        forecast_{t+h} = level_t + h trend_t + season_{t+h−m(⌊(h−1)/m⌋+1)}

    `seasons` holds the `m` initial seasonal states, oldest first; `m` is 1 with no season (γ = 0, states 0).
    """

    alpha: float
    beta: float
    gamma: float
    level: float
    trend: float
    seasons: tuple[float, ...]

    @classmethod
    def estimate(cls, history: torch.Tensor, season: int) -> "HoltWinters":
        """Fitted by statsmodels on `history` `[T]`; a season where there is one and two full seasons to
        estimate it from."""
        try:
            from statsmodels.tools.sm_exceptions import ConvergenceWarning
            from statsmodels.tsa.holtwinters import ExponentialSmoothing
        except ImportError:  # a dependency of the forecasting part: missing only in a broken install
            raise DataError(
                "the ETS baseline needs statsmodels: pip install 'statsmodels>=0.14' (or make setup)"
            ) from None
        seasonal = season > 1 and 2 * season <= len(history)
        model = ExponentialSmoothing(
            history.double().numpy(),
            trend="add",
            seasonal="add" if seasonal else None,
            seasonal_periods=season if seasonal else None,
            initialization_method="estimated",
        )
        with warnings.catch_warnings():  # a baseline that did not converge is still the baseline a user would get
            warnings.simplefilter("ignore", ConvergenceWarning)
            params = model.fit().params
        return cls(
            alpha=float(params["smoothing_level"]),
            beta=float(params["smoothing_trend"]),
            gamma=float(params["smoothing_seasonal"]) if seasonal else 0.0,
            level=float(params["initial_level"]),
            trend=float(params["initial_trend"]),
            seasons=tuple(float(s) for s in params["initial_seasons"]) if seasonal else (0.0,),
        )

    def forecasts(self, series: torch.Tensor, horizon: int) -> torch.Tensor:
        """`[T + 1, H]`: row `t` forecasts steps `t .. t + H − 1` from the states after steps `0 .. t − 1`
        (row 0: from the initial states), the parameters held throughout."""
        m = len(self.seasons)
        level, trend, seasons = self.level, self.trend, list(self.seasons)  # seasons[-m] is season_{t−m}
        levels, trends = [level], [trend]
        for value in series.double().tolist():  # plain floats: scalar tensor ops would be a hundred times slower
            last_season = seasons[-m]
            new_level = self.alpha * (value - last_season) + (1 - self.alpha) * (level + trend)
            new_trend = self.beta * (new_level - level) + (1 - self.beta) * trend
            seasons.append(self.gamma * (value - level - trend) + (1 - self.gamma) * last_season)
            level, trend = new_level, new_trend
            levels.append(level)
            trends.append(trend)
        # After t steps the seasonal states are seasons[t : t + m]; step h falls on the ((h − 1) mod m)-th of them.
        steps = torch.arange(1, horizon + 1, dtype=torch.float64)
        which = torch.arange(len(levels)).unsqueeze(1) + (steps.long() - 1) % m  # [T + 1, H]
        level_t, trend_t = (torch.tensor(v, dtype=torch.float64).unsqueeze(1) for v in (levels, trends))
        return level_t + steps * trend_t + torch.tensor(seasons, dtype=torch.float64)[which]


def holt_winters_forecasts(values: torch.Tensor, fit_end: int, season: int, horizon: int) -> torch.Tensor:
    """`[T + 1, H, C]`: for each origin `t`, the Holt-Winters forecast of steps `t .. t + H − 1` of every value
    column, its parameters estimated on steps `0 .. fit_end − 1` only (the training part)."""
    columns = []
    for column in values.T:
        model = HoltWinters.estimate(column[:fit_end], season)
        columns.append(model.forecasts(column, horizon))
    return torch.stack(columns, dim=-1).to(values.dtype)
