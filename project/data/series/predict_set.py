"""What `predict` forecasts from: the last `input_length` steps of each series, one window each, after which
the `horizon` steps are forecast."""

from typing import Protocol

import torch
from runkit import (
    ConfigError,
    DataError,
    PanelWindows,
    Series,
    SeriesMissing,
    Windows,
    forecast_window,
    read_panel,
    with_ets,
)


class SeriesData(Protocol):
    """What of a `SeriesDataModule` these functions read (named here, so that this module need not import it)."""

    train_path: str | None
    predict_path: str | None
    future_path: str | None
    predict_series: list[str] | None
    series_field: str | None
    fields: tuple[str, list[str], list[str]]
    missing: SeriesMissing
    input_length: int
    horizon: int
    season: int
    scales: dict[str, tuple[torch.Tensor, torch.Tensor]]

    @property
    def observed(self) -> bool: ...

    def load(self) -> dict[str, Series]: ...

    def where(self, name: str) -> str: ...


def forecast_windows(data: SeriesData, ets: bool = False) -> tuple[Windows | PanelWindows, list[str]]:
    """The last `input_length` steps of each series to forecast from (`predict_path`'s, or the data's), as one
    window each whose targets are unknown (zeros), and the series' names in that order (`predict_series`, or
    every one); `ets`: each window holds Holt-Winters' forecast from all of its series (`with_ets`)."""
    given = data.predict_path
    panel = data.load() if given is None else read_panel(given, data.series_field, *data.fields, data.missing)
    names = list(panel) if data.predict_series is None else list(data.predict_series)
    windows = [one_window(data, panel, name, index, ets) for index, name in enumerate(names)]
    return (PanelWindows(windows) if data.series_field else windows[0]), names


def one_window(data: SeriesData, panel: dict[str, Series], name: str, index: int, ets: bool = False) -> Windows:
    """Series `name`'s forecast window, scaled as its training part was (`ets`: with Holt-Winters' forecast)."""
    source = data.predict_path or data.train_path or "the series"
    if name not in panel:
        raise DataError(f"{source}: no series {name!r} (data.predict_series); it has {', '.join(list(panel)[:5])}")
    if name not in data.scales:
        raise DataError(
            f"{source}: series {name!r} was not trained on (new, or skipped as too short), so its scaling is "
            "unknown: forecast the series the model was trained on (data.predict_series)"
        )
    series = panel[name]
    shortest = max(1, data.season) if data.observed else data.input_length  # `split: horizons` pads short ones
    if len(series) < shortest:
        raise DataError(f"{data.where(name)}: {len(series)} steps, fewer than the {shortest} a forecast reads")
    future = future_covariates(data, name) if series.covariates.shape[1] else None
    shape = (data.input_length, data.horizon, data.season)
    own_units = not data.series_field
    window = forecast_window(series, data.scales[name], shape, future, own_units, index, data.observed)
    return with_ets(window, series, data.scales[name], own_units, data.season) if ets else window


def future_covariates(data: SeriesData, name: str = "") -> torch.Tensor:
    """The known covariates of the forecast steps of series `name`, `[horizon, K]`, from `future_path`."""
    time_field, _, covariate_fields = data.fields
    if data.future_path is None:
        raise ConfigError(
            f"the model reads known covariates ({', '.join(covariate_fields)}): to forecast, give their values "
            f"for the {data.horizon} steps ahead in a CSV of {time_field} and those columns, --data.future_path"
        )
    panel = read_panel(data.future_path, data.series_field, time_field, [], covariate_fields)
    future = panel.get(name)
    if future is None or len(future) != data.horizon:
        which = f" of series {name!r}" if data.series_field else ""
        rows = len(future) if future is not None else 0
        raise DataError(f"{data.future_path}: {rows} rows{which}, one per forecast step expected ({data.horizon})")
    return future.covariates
