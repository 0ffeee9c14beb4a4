"""Forecasting data: one series split by time into training, validation and test, then cut into windows."""

import logging
from datetime import datetime, timedelta
from typing import Any, Literal

import torch

from project.data.base import BaseDataModule
from project.data.series.baselines import holt_winters_forecasts
from project.data.series.files import Missing, Series, read_series
from project.data.series.spacing import MIN_WINDOWS, auto_input_length, longest_input, season_from_times
from project.data.series.synthetic import seasonal_series
from project.data.series.windows import Windows
from project.errors import ConfigError, DataError

log = logging.getLogger(__name__)


def hours(count: int) -> list[str]:
    """ISO times an hour apart from 2020-01-01 00:00: the generated series' time column."""
    start = datetime(2020, 1, 1)
    return [(start + timedelta(hours=h)).isoformat(sep=" ", timespec="minutes") for h in range(count)]


class SeriesDataModule(BaseDataModule):
    """Windows of `input_length` steps predicting the next `horizon` steps of every value column.

    The series is cut by time: the first part trains, the next validates, the last tests, and every window
    lies inside one part (none straddles a boundary, so no target of one part is an input of another). The
    values and covariates are standardised with the training part's mean and std only (saved in the
    checkpoint's DataModule state), so nothing of the later parts leaks into training; the targets stay in
    their units (the regression task standardises them itself).

    Args:
        path: a CSV with `time_field`, `value_fields` and optional `covariate_fields`; None: the generated
            hourly series (`seasonal_series`).
        covariate_fields: columns known in advance (a holiday flag, a price): the model reads them over the
            input steps and, for the forecast steps, beside its summary of the inputs.
        input_length, horizon: steps in, steps out. `input_length: auto`: four seasons (at least two horizons
            and 16 steps), shortened where a part of the series is too short for that (the choice is logged).
        season: the period of the seasonal-naive forecast (24 for a daily season of hourly data); at most
            `input_length`. `auto`: from the spacing of the time column's dates: hourly 24, daily 7, weekly 52,
            monthly 12, quarterly 4, yearly 1 (no season); step numbers or uneven spacing are refused.
        missing: empty value or covariate cells: `error` names the first; `interpolate` draws a line between
            the values either side; `ffill` repeats the last value (the count and first line are logged).
        val_fraction, test_fraction: the shares of the series' steps, the last ones, for validation and test.
        predict_path: a CSV of the same columns: `predict` forecasts the `horizon` steps after its end
            (default: after the end of the series itself).
        future_path: with covariates, `predict` needs their values for the forecast steps: a CSV of the time
            and covariate columns, `horizon` rows.
        mean, std: the training part's statistics; filled in from a checkpoint (`predict` needs no training
            data to scale its inputs as training did).
    """

    folds_refused = (
        "folds would train on the future of the windows they validate on; the validation span follows the training one"
    )

    def __init__(
        self,
        path: str | None = None,
        time_field: str = "time",
        value_fields: list[str] = ["value"],  # noqa: B006 (the CLI shows it; never mutated)
        covariate_fields: list[str] = [],  # noqa: B006
        input_length: int | Literal["auto"] = "auto",
        horizon: int = 24,
        season: int | Literal["auto"] = "auto",
        missing: Missing = "error",
        val_fraction: float = 0.15,
        test_fraction: float = 0.15,
        synthetic_length: int = 6000,
        seed: int = 0,
        predict_path: str | None = None,
        future_path: str | None = None,
        mean: list[float] | None = None,
        std: list[float] | None = None,
        batch_size: int = 64,
        num_workers: int = 0,
    ) -> None:
        super().__init__(batch_size=batch_size, num_workers=num_workers)
        self.save_hyperparameters(ignore=["mean", "std"])
        if path is None and covariate_fields:
            raise ConfigError("data.covariate_fields name columns of a file: give it with data.path")
        self.fields = (time_field, list(value_fields), list(covariate_fields))
        self.horizon, self.missing = horizon, missing
        self.fractions = (val_fraction, test_fraction)
        self.path, self.predict_path, self.future_path = path, predict_path, future_path
        self.synthetic_length, self.seed = synthetic_length, seed
        self.value_names = list(value_fields) if path else ["value"]
        self.saved = (mean, std)
        self.series: Series | None = None
        self.mean = self.std = torch.zeros(0)
        self.input_length, self.season = self.window_shape(input_length, season)

    def window_shape(self, input_length: int | str, season: int | str) -> tuple[int, int]:
        """`(input_length, season)`, each `auto` resolved from the series (read here, once), each checked."""
        where = self.path or "the generated series"
        if season == "auto":
            series = self.load()
            season, frequency = season_from_times(series.times, series.lines, where)
            log.info(f"data.season: auto is {season} ({frequency} steps in {where})")
        if input_length == "auto":
            val_start, test_start, length = self.boundaries()
            parts = [val_start, test_start - val_start, length - test_start]
            input_length, why = auto_input_length(int(season), self.horizon, parts)
            log.info(f"data.input_length: auto is {input_length} ({why})")
        if not isinstance(season, int) or not 1 <= season <= input_length:
            if self.hparams.input_length == "auto":
                raise DataError(
                    f"{where}: data.input_length: auto found {input_length} steps at most ({MIN_WINDOWS} windows in "
                    f"every part), fewer than the season of {season}: give a longer series, a smaller "
                    "data.val_fraction / data.test_fraction, or a shorter data.season"
                )
            raise ConfigError(
                f"data.season={season} must be 1..input_length={input_length}: the seasonal-naive forecast repeats "
                "the last `season` input steps"
            )
        return int(input_length), season

    @property
    def num_outputs(self) -> int:
        return self.horizon * len(self.value_names)

    @property
    def num_features(self) -> int:
        """What the network reads per input step: the values, then the covariates."""
        return len(self.value_names) + len(self.fields[2])

    @property
    def num_values(self) -> int:
        """Value columns: what is forecast, the first features of each input step."""
        return len(self.value_names)

    @property
    def future_size(self) -> int:
        """Known covariates of the forecast steps, flattened: horizon × covariates."""
        return self.horizon * len(self.fields[2])

    @property
    def output_names(self) -> list[str]:
        return [f"{name}+{step}" for step in range(1, self.horizon + 1) for name in self.value_names]

    def load(self) -> Series:
        if self.series is None:
            if self.path is None:
                values = seasonal_series(self.synthetic_length, self.seed)
                steps = len(values)
                self.series = Series(hours(steps), values, torch.zeros(steps, 0), list(range(2, steps + 2)))
            else:
                self.series = read_series(self.path, *self.fields, missing=self.missing)
        return self.series

    def boundaries(self) -> tuple[int, int, int]:
        """Where validation and test start, and the series' length."""
        length = len(self.load())
        val_fraction, test_fraction = self.fractions
        test_start = length - round(test_fraction * length)
        val_start = test_start - round(val_fraction * length)
        return val_start, test_start, length

    def setup(self, stage: str | None = None) -> None:
        if self.train_set is not None:
            return
        series = self.load()
        val_start, test_start, length = self.boundaries()
        where = self.path or "the generated series"
        need = self.input_length + self.horizon + MIN_WINDOWS - 1
        parts = {"training": (0, val_start), "validation": (val_start, test_start), "test": (test_start, length)}
        longest = longest_input([end - start for start, end in parts.values()], self.horizon)
        for name, (start, end) in parts.items():
            if end - start < need and (name == "training" or end > start):
                fits = f"the longest input that fits is {longest} steps; " if longest >= 1 else ""
                raise DataError(
                    f"{where}: the {name} part has {end - start} steps, fewer than the {need} that {MIN_WINDOWS} "
                    f"windows of input_length {self.input_length} + horizon {self.horizon} take: {fits}give a longer "
                    "series, shorter windows (data.input_length auto picks them), or other data.val_fraction / "
                    "data.test_fraction"
                )
        table = torch.cat([series.values, series.covariates], dim=1)
        if self.saved[0] is not None and self.saved[1] is not None:
            self.mean, self.std = torch.tensor(self.saved[0]), torch.tensor(self.saved[1])
        else:
            train = table[:val_start]  # the training part only: later steps must not shape the scaling
            self.mean, self.std = train.mean(dim=0), train.std(dim=0).clamp(min=1e-8)
        scaled = (table - self.mean) / self.std
        values_scaled, covariates = scaled[:, : series.values.shape[1]], scaled[:, series.values.shape[1] :]
        args = (series.values, values_scaled, covariates)
        shape = (self.input_length, self.horizon, self.season)
        # Scored beside the model on validation and test: Holt-Winters estimated on the training part only.
        ets = holt_winters_forecasts(series.values, val_start, self.season, self.horizon)
        self.train_set = Windows(*args, 0, val_start, *shape, ets=ets)
        self.val_set = Windows(*args, val_start, test_start, *shape, ets=ets)
        self.test_set = Windows(*args, test_start, length, *shape, ets=ets)

    def predict_dataloader(self) -> Any:
        # Built when asked: only a predict run needs (and may give) the future covariates.
        self.predict_set = self.forecast_window()
        return super().predict_dataloader()

    def forecast_window(self) -> "Windows":
        """The last `input_length` steps of the series to forecast from (`predict_path`'s, or this series'), as one
        window whose targets are unknown (zeros)."""
        given = self.predict_path
        series = self.load() if given is None else read_series(given, *self.fields, missing=self.missing)
        if len(series) < self.input_length:
            raise DataError(
                f"{self.predict_path or 'the series'}: {len(series)} steps, fewer than input_length={self.input_length}"
            )
        tail = torch.cat([series.values, series.covariates], dim=1)[-self.input_length :]
        future = torch.zeros(self.horizon, tail.shape[1])  # the values ahead are unknown (and unused)
        if series.covariates.shape[1]:
            future[:, series.values.shape[1] :] = self.future_covariates()
        padded = torch.cat([tail, future])
        scaled = (padded - self.mean) / self.std
        count = series.values.shape[1]
        values = padded[:, :count]
        return Windows(
            values,
            scaled[:, :count],
            scaled[:, count:],
            0,
            len(padded),
            *(self.input_length, self.horizon, self.season),
        )

    def future_covariates(self) -> torch.Tensor:
        """The known covariates of the forecast steps, `[horizon, K]`, from `future_path`."""
        time_field, _, covariate_fields = self.fields
        if self.future_path is None:
            raise ConfigError(
                f"the model reads known covariates ({', '.join(covariate_fields)}): to forecast, give their values "
                f"for the {self.horizon} steps ahead in a CSV of {time_field} and those columns, --data.future_path"
            )
        future = read_series(self.future_path, time_field, [], covariate_fields)
        if len(future) != self.horizon:
            raise DataError(f"{self.future_path}: {len(future)} rows, one per forecast step expected ({self.horizon})")
        return future.covariates

    def train_targets(self) -> torch.Tensor:
        self.setup()
        assert isinstance(self.train_set, Windows)
        values, (first, _), h = self.train_set.values, self.train_set.span(0), self.horizon
        starts = torch.arange(len(self.train_set)) + first + self.input_length
        return torch.stack([values[s : s + h].reshape(-1) for s in starts.tolist()])

    def state_dict(self) -> dict[str, Any]:
        # The training part's scaling, and the windows `auto` chose: `predict` from a checkpoint reads its
        # inputs the same way.
        if not self.mean.numel():
            return {}
        shape = {"input_length": self.input_length, "season": self.season}
        return {"mean": self.mean.tolist(), "std": self.std.tolist(), **shape}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if state and self.mean.numel() and not torch.allclose(torch.tensor(state["mean"]), self.mean):
            raise DataError("the checkpoint's series scaling differs from this data's: pass the same series")
        trained = (state.get("input_length", self.input_length), state.get("season", self.season))
        if trained != (self.input_length, self.season):
            raise DataError(
                f"the checkpoint was trained on windows of input_length {trained[0]} and season {trained[1]}, and "
                f"this data gives {self.input_length} and {self.season}: pass --data.input_length {trained[0]} "
                f"--data.season {trained[1]}"
            )
