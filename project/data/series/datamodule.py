"""Forecasting data: one series (or many) split by time into training, validation and test, then cut into windows."""

import logging
from typing import Any, Literal

import torch
from runkit import (
    AUTO_BATCH,
    MIN_WINDOWS,
    SEASONS_IN,
    BaseDataModule,
    ConfigError,
    DataError,
    PanelWindows,
    Series,
    SeriesMissing,
    Windows,
    auto_batch_size,
    auto_input_length,
    holt_winters_forecasts,
    horizon_bounds,
    padded,
    panel_season,
    part_bounds,
    read_panel,
    too_short,
    too_short_for_horizons,
)

from project.data.series.predict_set import forecast_windows
from project.data.series.synthetic import hours, seasonal_series

log = logging.getLogger(__name__)

Split = Literal["auto", "fractions", "horizons"]

# Many series: each is divided by its training part's std, but by no less than this share of its mean absolute
# value (a country's fertility flat for decades, then falling, would otherwise reach a thousand stds).
PANEL_SCALE_FLOOR = 0.1


class SeriesDataModule(BaseDataModule):
    """Windows of `input_length` steps predicting the next `horizon` steps of every value column.

    The series is cut by time: the first part trains, the next validates, the last tests, and every window
    lies inside one part (none straddles a boundary, so no target of one part is an input of another). The
    values and covariates are standardised with the training part's mean and std only (saved in the
    checkpoint's DataModule state), so nothing of the later parts leaks into training; the targets stay in
    their units (the regression task standardises them itself).

    Many series in one file (`series_field`, the column naming each row's series: stores, sensors, countries)
    train one global model. Each series is split by time on its own (the fractions of its own steps) and
    standardised by its own training part (its std floored at `PANEL_SCALE_FLOOR` of its mean absolute value);
    targets and forecasts are then in those per-series units, so every series weighs alike in the loss and
    `val/mae`, and `predict` puts each series' units back. MASE is taken per series, then averaged over them
    (`ScaledErrors`). A series too short for `MIN_WINDOWS` windows in every part is skipped, with a count.

    Args:
        train_path: a CSV with `time_field`, `value_fields` and optional `covariate_fields`; None: the generated
            hourly series (`seasonal_series`).
        series_field: the column of series ids, for many series in one file; None: the file is one series.
        covariate_fields: columns known in advance (a holiday flag, a price): the model reads them over the
            input steps and, for the forecast steps, beside its summary of the inputs.
        input_length, horizon: steps in, steps out. `input_length: auto`: four seasons (at least two horizons
            and 16 steps), shortened where a part of the series is too short for that (the choice is logged).
        season: the period of the seasonal-naive forecast (24 for a daily season of hourly data); at most
            `input_length`. `auto`: from the spacing of the time column's dates: hourly 24, daily 7, weekly 52,
            monthly 12, quarterly 4, yearly 1 (no season; years written as numbers too, `1972`); step numbers
            or uneven spacing are refused.
        missing: empty value or covariate cells: `error` names the first; `interpolate` draws a line between
            the values either side; `ffill` repeats the last value (the count and first line are logged).
        val_fraction, test_fraction: the shares of the series' steps, the last ones, for validation and test.
        split: `fractions` cuts each series by `val_fraction` and `test_fraction`; `horizons` (many series only,
            the M-competitions' way) holds out the last `horizon` steps of each series for test and the `horizon`
            before them for validation, one window each, and trains on windows of everything before; a window
            may then reach back past a short series' start (padded, with an observed feature of 0: the network
            is told which steps are real), so a series needs only a season of history and a horizon of training
            targets. `auto`: `horizons` for many series where the fractions would leave the median series fewer
            input steps than a season or a horizon, else `fractions` (the choice is logged).
        predict_path: a CSV of the same columns: `predict` forecasts the `horizon` steps after its end
            (default: after the end of the series itself); with `series_field`, after the end of each series in it.
        predict_series: with `series_field`, the series `predict` forecasts; None: every one.
        future_path: with covariates, `predict` needs their values for the forecast steps: a CSV of the time
            and covariate columns, `horizon` rows.
        batch_size: windows per batch; `auto`: from the training windows, so that a short series still takes
            32 steps an epoch (`spacing.auto_batch_size`: a power of two from 8 to 64, the choice logged).
        mean, std: the training part's statistics; filled in from a checkpoint (`predict` needs no training
            data to scale its inputs as training did). scales: the same of each of many series, by id.
    """

    request_reader = "project.serving.series.SeriesReader"  # how `project.serve` reads its requests

    folds_refused = (
        "folds would train on the future of the windows they validate on; the validation span follows the training one"
    )

    def __init__(
        self,
        train_path: str | None = None,
        series_field: str | None = None,
        time_field: str = "time",
        value_fields: list[str] = ["value"],  # noqa: B006 (the CLI shows it; never mutated)
        covariate_fields: list[str] = [],  # noqa: B006
        input_length: int | Literal["auto"] = "auto",
        horizon: int = 24,
        season: int | Literal["auto"] = "auto",
        missing: SeriesMissing = "error",
        val_fraction: float = 0.15,
        test_fraction: float = 0.15,
        split: Split = "auto",
        synthetic_length: int = 6000,
        seed: int = 0,
        predict_path: str | None = None,
        predict_series: list[str] | None = None,
        future_path: str | None = None,
        mean: list[float] | None = None,
        std: list[float] | None = None,
        scales: dict[str, list[list[float]]] | None = None,
        batch_size: int | Literal["auto"] = "auto",
        num_workers: int = 0,
    ) -> None:
        # `auto` is chosen in `setup`, from the training windows; until then, the most it picks.
        super().__init__(batch_size=AUTO_BATCH[1] if batch_size == "auto" else batch_size, num_workers=num_workers)
        self.save_hyperparameters(ignore=["mean", "std", "scales"])
        if train_path is None and (covariate_fields or series_field):
            what = "data.covariate_fields name columns" if covariate_fields else "data.series_field names a column"
            raise ConfigError(f"{what} of a file: give it with data.train_path")
        if predict_series is not None and not series_field:
            raise ConfigError("data.predict_series names series of a file of many: give data.series_field too")
        self.series_field = series_field
        self.predict_series = predict_series
        self.fields = (time_field, list(value_fields), list(covariate_fields))
        self.horizon, self.missing = horizon, missing
        self.fractions = (val_fraction, test_fraction)
        self.train_path, self.predict_path, self.future_path = train_path, predict_path, future_path
        self.synthetic_length, self.seed = synthetic_length, seed
        self.value_names = list(value_fields) if train_path else ["value"]
        self.saved = (mean, std)
        self.saved_scales = scales or {}
        self.panel: dict[str, Series] | None = None
        self.mean = self.std = torch.zeros(0)  # what the task's units are scaled by (many series: 0 and 1)
        # Many series: each kept series' own (mean, std) of its training part, in `series` index order.
        self.scales: dict[str, tuple[torch.Tensor, torch.Tensor]] = {}
        self.forecast_names: list[str] = []  # the series of `predict_set`'s windows, in order
        # Each kept series' in-sample seasonal naive MAE before validation and before test (the M4 MASE's scale).
        self.insample: dict[str, list[float]] = {}
        self.split: Split = split
        self.input_length, self.season = self.window_shape(input_length, season)

    def window_shape(self, input_length: int | str, season: int | str) -> tuple[int, int]:
        """`(input_length, season)`, each `auto` resolved from the series (read here, once), each checked."""
        where = self.train_path or "the generated series"
        if season == "auto":
            panel = self.load()
            season, frequency = panel_season(panel, {name: self.where(name) for name in panel}, where)
            log.info(f"data.season: auto is {season} ({frequency} steps in {where})")
        self.split = self.choose_split(self.split, int(season))
        if input_length == "auto" and self.split == "horizons":  # padded where a series is shorter
            input_length = max(SEASONS_IN * int(season), 2 * self.horizon, 16)
            log.info(f"data.input_length: auto is {input_length} (padded where a series' history is shorter)")
        elif input_length == "auto":
            val_start, test_start, length = self.boundaries(self.typical())
            parts = [val_start, test_start - val_start, length - test_start]
            input_length, why = auto_input_length(int(season), self.horizon, parts)
            if input_length < 1:  # not even one input step beside the horizon: no count to give
                shortest = min(part for part in parts if part)
                raise DataError(
                    f"{where}: its shortest part has {shortest} steps, too few for {MIN_WINDOWS} windows of "
                    f"horizon {self.horizon} and an input step ({self.horizon + MIN_WINDOWS} steps): give a longer "
                    "series, larger data.val_fraction / data.test_fraction, or a shorter data.horizon"
                )
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

    def choose_split(self, split: Split, season: int) -> Split:
        """`split: auto` resolved (`horizons` where the fractions leave the median series too short an input)."""
        if split == "horizons" and not self.series_field:
            raise ConfigError(
                "data.split horizons holds out one window per series: with one series that is one window to validate "
                "on and one to test: give many series (data.series_field), or data.split fractions"
            )
        if split != "auto":
            return split
        if not self.series_field:
            return "fractions"
        val_start, test_start, length = part_bounds(len(self.typical()), *self.fractions)
        fits, _ = auto_input_length(season, self.horizon, [val_start, test_start - val_start, length - test_start])
        if fits >= max(season, self.horizon):
            return "fractions"
        log.info(
            f"data.split: auto is horizons (the median series, {length} steps, leaves {max(fits, 0)} input steps "
            f"under the fractions {self.fractions[0]} / {self.fractions[1]}, fewer than a season or a horizon)"
        )
        return "horizons"

    @property
    def observed(self) -> bool:
        """The inputs' last feature says which steps are the series' own (`split: horizons` pads short ones)."""
        return self.split == "horizons"

    @property
    def num_outputs(self) -> int:
        return self.horizon * len(self.value_names)

    @property
    def num_features(self) -> int:
        """What the network reads per input step: the values, then the covariates (then `observed`)."""
        return len(self.value_names) + len(self.fields[2]) + int(self.observed)

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

    def load(self) -> dict[str, Series]:
        """Every series by its id (one, `""`, without `series_field`), read once."""
        if self.panel is None:
            if self.train_path is None:
                values = seasonal_series(self.synthetic_length, self.seed)
                steps = len(values)
                self.panel = {"": Series(hours(steps), values, torch.zeros(steps, 0), list(range(2, steps + 2)))}
            else:
                self.panel = read_panel(self.train_path, self.series_field, *self.fields, missing=self.missing)
        return self.panel

    @property
    def series(self) -> Series:
        """The one series of a file without `series_field` (or the generated one)."""
        panel = self.load()
        if self.series_field:
            raise ConfigError(f"{self.train_path} holds {len(panel)} series (data.series_field): name one of them")
        return panel[""]

    def where(self, name: str) -> str:
        """The file (and series) to name in a message."""
        return (
            f"{self.train_path} (series {name!r})" if self.series_field else self.train_path or "the generated series"
        )

    def typical(self) -> Series:
        """The series `input_length: auto` is chosen for: the only one, or the one of median length (shorter
        ones are then skipped where their parts cannot hold the windows)."""
        ordered = sorted(self.load().values(), key=len)
        return ordered[len(ordered) // 2]

    def boundaries(self, series: Series | None = None) -> tuple[int, int, int]:
        """Where validation and test start in `series` (by default the only one), and its length."""
        length = len(series if series is not None else self.series)
        return horizon_bounds(length, self.horizon) if self.observed else part_bounds(length, *self.fractions)

    def shortfall(self, series: Series) -> str | None:
        """Why `series` is too short for the windows (`spacing.too_short`); None: it is not."""
        if self.observed:
            return too_short_for_horizons(len(series), self.horizon, self.season)
        return too_short(self.boundaries(series), self.input_length, self.horizon)

    def kept(self) -> dict[str, Series]:
        """The series long enough to cut into windows; many series: the others skipped, with a count."""
        panel = self.load()
        if not self.series_field:
            if problem := self.shortfall(panel[""]):
                raise DataError(f"{self.where('')}: {problem}")
            return panel
        kept = {name: series for name, series in panel.items() if self.shortfall(series) is None}
        if not kept:
            longest = max(panel, key=lambda name: len(panel[name]))
            raise DataError(f"{self.where(longest)}, the longest of {len(panel)}: {self.shortfall(panel[longest])}")
        if skipped := [name for name in panel if name not in kept]:
            need = (
                f"{2 * self.horizon + max(1, self.season) + self.horizon} steps (data.split horizons)"
                if self.observed
                else f"{MIN_WINDOWS} windows of input_length {self.input_length} + horizon {self.horizon} in every part"
            )
            log.warning(
                f"{self.train_path}: {len(skipped)} of {len(panel)} series skipped, too short for {need} (for "
                f"example {', '.join(f'{name!r} ({len(panel[name])} steps)' for name in skipped[:3])})"
            )
        return kept

    def setup(self, stage: str | None = None) -> None:
        if self.train_set is not None:
            return
        parts: list[list[Windows]] = [[], [], []]
        self.insample = {"val": [], "test": []}  # by series index, as `Windows.series`
        for index, (name, series) in enumerate(self.kept().items()):
            val_start, test_start, length = self.boundaries(series)
            table = torch.cat([series.values, series.covariates], dim=1)
            if self.saved[0] is not None and self.saved[1] is not None and not self.series_field:
                mean, std = torch.tensor(self.saved[0]), torch.tensor(self.saved[1])
            elif name in self.saved_scales:
                mean, std = (torch.tensor(v) for v in self.saved_scales[name])
            else:
                train = table[:val_start]  # the training part only: later steps must not shape the scaling
                mean, std = train.mean(dim=0), train.std(dim=0).clamp(min=1e-8)
                if self.series_field:  # a series flat in training would later be thousands of stds away
                    std = torch.maximum(std, PANEL_SCALE_FLOOR * train.abs().mean(dim=0))
            self.scales[name] = (mean, std)
            scaled = (table - mean) / std
            count = series.values.shape[1]
            # One series: the targets in their units; many: in each series' own standardised units.
            values = scaled[:, :count] if self.series_field else series.values
            args = (values, scaled[:, :count], scaled[:, count:])
            shape = (self.input_length, self.horizon, self.season)
            self.insample["val"].append(naive_scale(values[:val_start], self.season))
            self.insample["test"].append(naive_scale(values[:test_start], self.season))
            # Scored beside the model on validation and test: Holt-Winters estimated on the training part only.
            ets = holt_winters_forecasts(values, val_start, self.season, self.horizon)
            spans = [(0, val_start), (val_start, test_start), (test_start, length)]
            observed = None
            if self.observed:  # `pad` steps before the series: its first window has a season of history
                pad = self.input_length - max(1, self.season)
                observed = padded(torch.ones(length), pad)
                args, ets = tuple(padded(table, pad) for table in args), padded(ets, pad)
                spans = [(0, pad + val_start)] + [
                    (pad + start - self.input_length, pad + end) for start, end in spans[1:]
                ]
            for part, (start, end) in zip(parts, spans, strict=True):
                part.append(Windows(*args, start, end, *shape, ets=ets, series=index, observed=observed))
        if self.series_field:
            read = self.num_features - int(self.observed)
            self.mean, self.std = torch.zeros(read), torch.ones(read)
            self.train_set, self.val_set, self.test_set = (PanelWindows(part) for part in parts)
        else:
            self.mean, self.std = self.scales[""]
            self.train_set, self.val_set, self.test_set = (part[0] for part in parts)
        if self.hparams.batch_size == "auto":
            self.batch_size, why = auto_batch_size(len(self.train_set))
            log.info(f"data.batch_size: auto is {self.batch_size} ({why})")

    def predict_dataloader(self) -> Any:
        # Built when asked: only a predict run needs (and may give) the future covariates.
        self.predict_set = self.forecast_windows()
        return super().predict_dataloader()

    def forecast_windows(self) -> Windows | PanelWindows:
        """The windows `predict` forecasts from, one per series (`predict_set.forecast_windows`)."""
        # Holt-Winters' forecast of each series too, where the model blends it in (`ForecastModel.ets_weight`).
        model = self.trainer.lightning_module if self.trainer is not None else None
        windows, self.forecast_names = forecast_windows(self, ets=getattr(model, "ets_weight", 1.0) < 1)
        return windows

    def train_targets(self) -> torch.Tensor:
        self.setup()
        assert isinstance(self.train_set, Windows | PanelWindows)
        return self.train_set.targets

    def state_dict(self) -> dict[str, Any]:
        # The training part's scaling (each series'), and the windows `auto` chose: `predict` from a checkpoint
        # reads its inputs the same way.
        if not self.mean.numel():
            return {}
        state = {"mean": self.mean.tolist(), "std": self.std.tolist(), **self.shape()}
        if self.series_field:  # each series' own: [mean, std] by its id
            state["scales"] = {name: [m.tolist(), s.tolist()] for name, (m, s) in self.scales.items()}
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if state and self.mean.numel() and not torch.allclose(torch.tensor(state["mean"]), self.mean):
            raise DataError("the checkpoint's series scaling differs from this data's: pass the same series")
        for name, saved in state.get("scales", {}).items() if self.scales else ():
            if name not in self.scales or not torch.allclose(torch.tensor(saved[0]), self.scales[name][0]):
                raise DataError(
                    f"the checkpoint's scaling of series {name!r} differs from this data's (or the series is not in "
                    f"{self.train_path}): pass the file it was trained on"
                )
        trained = tuple(state.get(key, now) for key, now in self.shape().items())
        if trained != tuple(self.shape().values()):
            raise DataError(
                f"the checkpoint was trained on windows of input_length {trained[0]}, season {trained[1]} and split "
                f"{trained[2]}, and this data gives {self.input_length}, {self.season} and {self.split}: pass "
                f"--data.input_length {trained[0]} --data.season {trained[1]} --data.split {trained[2]}"
            )

    def shape(self) -> dict[str, Any]:
        """What `auto` chose, saved in the checkpoint for `predict` to check."""
        return {"input_length": self.input_length, "season": self.season, "split": self.split}


def naive_scale(history: torch.Tensor, season: int) -> float:
    """The in-sample MAE of the seasonal naive over `history` `[T, C]` (one step ahead, every column): what the
    M4 competition divides a series' forecast MAE by (its MASE); a season of 1 where the history is shorter."""
    lag = season if len(history) > season else 1
    return float((history[lag:] - history[:-lag]).abs().mean()) if len(history) > lag else float("nan")
