"""Many series in one file (`--data.series_field`): one global model, each series split and scaled on its own,
MASE per series then averaged, short series skipped with a count, and a forecast per series in its units."""

import logging
from pathlib import Path

import pytest
import torch
from runkit import ConfigError, DataError, ScaledErrors

from project.cli import build
from project.data.series import SeriesDataModule
from tests.conftest import TINY
from tests.real_data import fertility_panel


def write_panel(path: Path, series: dict[str, list[float]], shuffle: bool = False) -> Path:
    """`id,time,value` rows of hourly series; `shuffle`: the series' rows interleaved, as a log of readings is."""
    rows = [(name, t, v) for name, values in series.items() for t, v in enumerate(values)]
    if shuffle:
        rows.sort(key=lambda row: row[1])
    lines = [f"{name},2024-01-{1 + t // 24:02d} {t % 24:02d}:00,{v}" for name, t, v in rows]
    path.write_text("id,time,value\n" + "\n".join(lines) + "\n")
    return path


def daily_wave(steps: int, level: float, amplitude: float) -> list[float]:
    return [round(level + amplitude * ((t % 24) - 12) / 12, 4) for t in range(steps)]


def panel_module(path: Path, **kwargs) -> SeriesDataModule:
    options = {
        "input_length": 24,
        "horizon": 6,
        "batch_size": 16,
        "series_field": "id",
        "train_path": str(path),
        **kwargs,
    }
    dm = SeriesDataModule(**options)
    dm.setup("fit")
    return dm


def test_each_series_is_split_and_scaled_on_its_own(tmp_path):
    series = {"small": daily_wave(220, 10, 2), "big": daily_wave(300, 5000, 900)}
    dm = panel_module(write_panel(tmp_path / "panel.csv", series, shuffle=True))  # interleaved rows, grouped by id
    assert list(dm.scales) == ["small", "big"] and len(dm.load()["big"]) == 300
    for index, name in enumerate(dm.scales):
        values = dm.load()[name].values
        val_start, test_start, length = dm.boundaries(dm.load()[name])
        assert (val_start, test_start, length) == ((154, 187, 220) if name == "small" else (210, 255, 300))
        torch.testing.assert_close(dm.scales[name][0], values[:val_start].mean(dim=0))  # its own training part
        bounds = ((0, val_start), (val_start, test_start), (test_start, length))
        for part, (low, high) in zip((dm.train_set, dm.val_set, dm.test_set), bounds, strict=True):
            windows = part.datasets[index]
            assert windows.series == index and windows.steps == (low, high)  # no window across a boundary
    # The targets are in each series' own standardised units: the big series weighs no more than the small one.
    targets = dm.train_targets()
    assert targets.shape == (len(dm.train_set), 6) and targets.abs().max() < 3
    # Changing the big series' later steps changes nothing of the small one's windows, nor its own scaling.
    series["big"][250:] = [1e6] * 50
    again = panel_module(write_panel(tmp_path / "changed.csv", series))
    torch.testing.assert_close(again.scales["big"][0], dm.scales["big"][0])
    torch.testing.assert_close(again.train_set[3][0], dm.train_set[3][0])


def test_series_too_short_for_windows_are_skipped_with_a_count(tmp_path, caplog):
    series = {"long": daily_wave(220, 10, 2), "short": daily_wave(60, 10, 2), "tiny": daily_wave(5, 1, 1)}
    with caplog.at_level(logging.WARNING, logger="project.data.series.datamodule"):
        dm = panel_module(write_panel(tmp_path / "panel.csv", series), split="fractions")
    assert list(dm.scales) == ["long"] and len(dm.val_set) == 33 - 24 - 6 + 1
    assert "2 of 3 series skipped, too short for 2 windows of input_length 24 + horizon 6" in caplog.text
    assert "'short' (60 steps), 'tiny' (5 steps)" in caplog.text
    with pytest.raises(DataError, match=r"panel.csv \(series 'long'\), the longest of 3: the validation part has 33"):
        panel_module(tmp_path / "panel.csv", input_length=48, split="fractions")


def test_a_series_out_of_order_or_without_an_id_is_refused_with_its_line(tmp_path):
    path = tmp_path / "panel.csv"
    path.write_text("id,time,value\na,1,1.0\nb,1,2.0\na,2,1.5\nb,1,2.5\n")
    with pytest.raises(DataError, match=r"panel.csv, line 5: time '1' repeats the previous timestamp of series 'b': "
                                        r"sort the rows by series and time"):  # fmt: skip
        panel_module(path, season=1, input_length=1, horizon=1)
    path.write_text("id,time,value\na,1,1.0\n,2,2.0\n")
    with pytest.raises(DataError, match=r"panel.csv, line 3: id is empty: every row names its series"):
        panel_module(path, season=1, input_length=1, horizon=1)
    with pytest.raises(
        DataError, match=r"line 1: no column 'store' \(columns: id, time, value\); set data.series_field"
    ):
        panel_module(path, series_field="store", season=1)
    with pytest.raises(ConfigError, match=r"data.series_field names a column of a file: give it with data.train_path"):
        SeriesDataModule(series_field="id")
    with pytest.raises(ConfigError, match=r"data.predict_series names series of a file of many"):
        SeriesDataModule(predict_series=["a"])


def test_season_auto_refuses_series_of_different_frequencies(tmp_path):
    path = tmp_path / "panel.csv"
    hourly = [f"a,2024-01-01 {h:02d}:00,{h}" for h in range(24)]
    daily = [f"b,2024-01-{d:02d},{d}" for d in range(1, 25)]
    path.write_text("id,time,value\n" + "\n".join(hourly + daily) + "\n")
    with pytest.raises(DataError, match=r"series 'a' is hourly and 'b' daily: one model forecasts series of one"):
        SeriesDataModule(train_path=str(path), series_field="id", horizon=2)


def test_mase_is_taken_per_series_then_their_geometric_mean():
    metric = ScaledErrors()
    target = torch.zeros(4, 2)
    # Two series: the model's errors 1 and 400, the seasonal naive's 2 and 100 (the other baselines' as the naive).
    model = torch.tensor([1.0, 1.0, 400.0, 400.0])
    naive = torch.tensor([2.0, 2.0, 100.0, 100.0])
    forecasts = torch.stack([model, naive, naive, naive, naive], dim=1).unsqueeze(2).expand(-1, -1, 2)
    metric.update(forecasts[:3], target[:3], torch.tensor([0, 0, 1]))
    metric.update(forecasts[3:], target[3:], torch.tensor([1]))
    values = metric.compute()
    assert values["mase"] == pytest.approx((0.5 * 4.0) ** 0.5)  # pooled, it would be 802 / 204
    assert values["mase_ets"] == pytest.approx(1.0) and "mase_seasonal_naive" not in values


@pytest.mark.slow
def test_a_file_of_real_series_trains_one_model_and_forecasts_each_in_its_units(tmp_path):
    path = fertility_panel(tmp_path / "fertility.csv")  # 210 countries' births per woman, yearly 1960-2013
    data = [f"--data.train_path={path}", "--data.series_field=country", "--data.missing=interpolate",
            "--data.horizon=6", "--data.val_fraction=0.25", "--data.test_fraction=0.25",
            "--data.split=fractions"]  # fmt: skip
    cli = build("lstm_forecast", *TINY, *data, "--trainer.max_epochs=3")
    cli.trainer.fit(cli.model, cli.datamodule)
    dm = cli.datamodule
    assert len(dm.scales) == 195  # the 15 countries with fewer years skipped
    (tested,) = cli.trainer.test(cli.model, dm, ckpt_path="best", verbose=False)
    # Births per woman move slowly: after 3 epochs the one model is already ahead of the naive forecasts.
    assert tested["test/mase"] < tested["test/mase_last_value"] <= 1.0 + 1e-6, tested
    # Each country's MASE, the worst first against its best baseline; their geometric mean is test/mase.
    by_series = (Path(cli.trainer.log_dir) / "test_mase_by_series.tsv").read_text()
    rows = [line.split("\t") for line in by_series.splitlines()]
    assert rows[0] == ["series", "model", "last_value", "seasonal_naive", "seasonal_drift", "ets"] and len(rows) == 196
    model = torch.tensor([float(row[1]) for row in rows[1:]])
    assert float(model.log().mean().exp()) == pytest.approx(tested["test/mase"], rel=1e-3)
    ckpt = cli.trainer.checkpoint_callback.best_model_path
    predicting = build("lstm_forecast", *TINY, *data, "--data.predict_series=[NER, DEU]")
    predicting.trainer.predict(predicting.model, predicting.datamodule, ckpt_path=ckpt, return_predictions=False)
    lines = (Path(predicting.trainer.log_dir) / "predictions.tsv").read_text().splitlines()
    assert lines[0] == "index\tseries\tstep\tvalue" and len(lines) == 1 + 2 * 6
    forecasts = {name: [float(line.split("\t")[3]) for line in lines[1:] if line.split("\t")[1] == name]
                 for name in ("NER", "DEU")}  # fmt: skip
    # Niger's fertility was above 7 children per woman in 2013, Germany's below 1.5: each forecast in its own units.
    assert all(6 < v < 8.5 for v in forecasts["NER"]) and all(1 < v < 2 for v in forecasts["DEU"]), forecasts
