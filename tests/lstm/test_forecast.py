"""Forecasting (`--model lstm_forecast`): windows inside their split, scaling from the training part only,
the baselines, CSV series with their errors, covariates, and the forecast after a series' end."""

import logging
from pathlib import Path

import pytest
import torch
from runkit import ConfigError, DataError, Windows
from runkit.callbacks.diagnostics import Diagnostics

from project.cli import build
from project.data.series import SeriesDataModule
from tests.conftest import TINY

SMALL_SERIES = ["--data.synthetic_length=1200", "--data.input_length=48", "--data.horizon=6"]


def small(**kwargs) -> SeriesDataModule:
    dm = SeriesDataModule(**{"synthetic_length": 1000, "input_length": 48, "horizon": 6, "batch_size": 16, **kwargs})
    dm.setup("fit")
    return dm


def test_every_window_lies_inside_its_split():
    dm = small()
    val_start, test_start, length = dm.boundaries()
    assert (val_start, test_start, length) == (700, 850, 1000)
    for dataset, (low, high) in ((dm.train_set, (0, val_start)), (dm.val_set, (val_start, test_start)),
                                 (dm.test_set, (test_start, length))):  # fmt: skip
        spans = [dataset.span(i) for i in range(len(dataset))]
        assert min(first for first, _ in spans) == low and max(end for _, end in spans) == high
    assert len(dm.val_set) == 150 - 48 - 6 + 1
    inputs, future, target, baselines, series = dm.val_set[0]
    assert inputs.shape == (48, 1) and future.shape == (0,) and target.shape == (6,) and baselines.shape == (4, 6)
    assert series == 0  # the one series
    torch.testing.assert_close(target, dm.series.values[val_start + 48 : val_start + 54, 0])
    assert len(small(test_fraction=0.0).test_set) == 0  # no test part: no window, and no error


def test_the_scaling_is_fitted_on_the_training_part_only():
    dm = small()
    val_start = dm.boundaries()[0]
    torch.testing.assert_close(dm.mean, dm.series.values[:val_start].mean(dim=0))
    # Later steps changed wildly: the scaling, hence every training input, stays as it was.
    changed = small()
    changed.series.values[val_start:] += 1000
    changed.train_set = None
    changed.setup("fit")
    torch.testing.assert_close(changed.mean, dm.mean)
    torch.testing.assert_close(changed.train_set[5][0], dm.train_set[5][0])


def test_baselines_repeat_the_last_value_and_the_last_season():
    values = torch.arange(40, dtype=torch.float32).unsqueeze(1)
    windows = Windows(values, values, torch.zeros(40, 0), 0, 40, input_length=8, horizon=6, period=4)
    *_, target, baselines, _ = windows[0]
    assert target.tolist() == [8, 9, 10, 11, 12, 13]
    assert baselines[0].tolist() == [7] * 6  # the last input value
    assert baselines[1].tolist() == [4, 5, 6, 7, 4, 5]  # the last 4 input steps, repeated
    assert baselines[2].tolist() == [8, 9, 10, 11, 12, 13]  # with the window's change per season: exact on a line
    assert baselines[3].tolist() == [0] * 6  # no ETS forecasts given


def test_the_model_is_logged_beside_the_baselines_and_mase():
    cli = build("lstm_forecast", *TINY, *SMALL_SERIES, "--trainer.max_epochs=1")
    cli.trainer.fit(cli.model, cli.datamodule)
    logged = cli.trainer.callback_metrics
    baselines = ("val/mae_last_value", "val/mae_seasonal_naive", "val/mae_seasonal_drift", "val/mae_ets")
    for name in ("val/mae", "val/rmse", "val/r2", *baselines, "val/mase"):
        assert name in logged, name
    torch.testing.assert_close(logged["val/mase"], logged["val/mae"] / logged["val/mae_seasonal_naive"])
    # The seasonal naive MAE, recomputed by hand on the validation windows.
    dm = cli.datamodule
    errors = [(dm.val_set[i][3][1] - dm.val_set[i][2]).abs().mean() for i in range(len(dm.val_set))]
    torch.testing.assert_close(logged["val/mae_seasonal_naive"], torch.stack(errors).mean(), rtol=1e-4, atol=1e-5)


def write_series(path: Path, rows: list[str], header: str = "time,load,holiday") -> Path:
    path.write_text(header + "\n" + "\n".join(rows) + "\n")
    return path


def hourly(n: int, start: int = 0) -> list[str]:
    return [
        f"2024-01-{1 + (start + i) // 24:02d} {(start + i) % 24:02d}:00,{10 + i % 24},{int(i % 24 == 3)}"
        for i in range(n)
    ]


def test_reads_a_csv_series_with_dates_values_and_covariates(tmp_path):
    path = write_series(tmp_path / "series.csv", hourly(400))
    dm = SeriesDataModule(train_path=str(path), value_fields=["load"], covariate_fields=["holiday"], input_length=48,
                          horizon=6, season=24, batch_size=8)  # fmt: skip
    dm.setup("fit")
    assert (dm.num_features, dm.future_size, dm.num_outputs) == (2, 6, 6)
    inputs, future, target, _, _ = next(iter(dm.train_dataloader()))
    assert inputs.shape == (8, 48, 2) and future.shape == (8, 6) and target.shape == (8, 6)


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([*hourly(5), "2024-01-01 05:00,abc,0"], r"series.csv, line 7: load 'abc' is not a number"),
        ([*hourly(5), "2024-01-01 05:00,,0"], r"series.csv, line 7: load is empty"),
        ([*hourly(5), "2024-01-01 05:00,12,"], r"series.csv, line 7: holiday is empty"),
        ([*hourly(5), "2024-01-01 04:00,12,0"], r"series.csv, line 7: time '2024-01-01 04:00' repeats the previous"),
        ([*hourly(5), "2024-01-01 02:00,12,0"], r"series.csv, line 7: time '2024-01-01 02:00' is earlier than"),
        ([*hourly(5), "yesterday,12,0"], r"series.csv, line 7: time 'yesterday' is neither a number nor an ISO"),
    ],
)
def test_a_bad_series_file_is_named_with_its_line(tmp_path, rows, message):
    path = write_series(tmp_path / "series.csv", rows)
    with pytest.raises(DataError, match=message):
        SeriesDataModule(train_path=str(path), value_fields=["load"], covariate_fields=["holiday"]).setup("fit")


def test_a_missing_column_a_short_split_and_a_season_longer_than_the_input_are_named(tmp_path):
    path = write_series(tmp_path / "series.csv", hourly(300))
    with pytest.raises(DataError, match=r"series.csv, line 1: no column 'value' \(columns: time, load, holiday\)"):
        SeriesDataModule(train_path=str(path)).setup("fit")
    message = r"validation part has 45 steps, fewer than the 73 that 2 windows of input_length 48 \+ horizon 24 take"
    with pytest.raises(DataError, match=message + r": the longest input that fits is 20 steps"):
        SeriesDataModule(train_path=str(path), value_fields=["load"], input_length=48, horizon=24).setup("fit")
    with pytest.raises(
        ConfigError, match=r"data.covariate_fields name columns of a file: give it with data.train_path"
    ):
        SeriesDataModule(covariate_fields=["holiday"])
    with pytest.raises(ConfigError, match=r"data.season=48 must be 1..input_length=24"):
        SeriesDataModule(train_path=str(path), value_fields=["load"], input_length=24, season=48)


def test_validation_windows_overlapping_training_ones_are_flagged(caplog):
    caplog.set_level(logging.WARNING, logger="runkit.callbacks.diagnostics")
    cli = build("lstm_forecast", *TINY, *SMALL_SERIES, "--trainer.max_steps=2", "--trainer.limit_val_batches=1")
    dm = cli.datamodule
    dm.setup("fit")
    train = dm.train_set
    # A homemade split: validation windows cut from the whole series, then the last 20 % held out by index.
    dm.val_set = Windows(train.values, train.scaled, train.covariates, 600, 1200, 48, 6, 24)
    cli.trainer.callbacks.append(diagnostics := Diagnostics())
    cli.trainer.fit(cli.model, dm)
    assert any("validation windows read steps 600..1199 and training windows steps 0..839" in f.message
               for f in diagnostics.findings)  # fmt: skip


def test_predict_forecasts_the_steps_after_the_end_of_a_given_series(tmp_path):
    cli = build("lstm_forecast", *TINY, *SMALL_SERIES, "--trainer.max_epochs=1")
    cli.trainer.fit(cli.model, cli.datamodule)
    ckpt = cli.trainer.checkpoint_callback.last_model_path
    given = write_series(tmp_path / "recent.csv", [f"{t},{10 + t % 24}" for t in range(100)], header="time,value")
    predicting = build("lstm_forecast", *TINY, *SMALL_SERIES, f"--data.predict_path={given}")
    # As `python -m project predict --ckpt_path`: the training part's scaling comes from the checkpoint.
    saved = torch.load(ckpt, weights_only=True)["SeriesDataModule"]
    torch.testing.assert_close(torch.tensor(saved["mean"]), cli.datamodule.mean)
    predicting.trainer.predict(predicting.model, predicting.datamodule, ckpt_path=ckpt, return_predictions=False)
    lines = (Path(predicting.trainer.log_dir) / "predictions.tsv").read_text().splitlines()
    assert lines[0] == "index\tstep\tvalue" and [line.split("\t")[1] for line in lines[1:]] == [
        f"+{h}" for h in range(1, 7)
    ]
    assert all(abs(float(line.split("\t")[2]) - 20) < 15 for line in lines[1:])  # the series' level


# A short run: a higher LR than the default's, so that the head's weights travel far enough in 10 epochs.
SHORT_FAST = ["--trainer.max_epochs=10", "--model.optimizer.init_args.lr=0.01"]


@pytest.mark.slow
def test_known_covariates_reach_the_forecast(tmp_path):
    # The value jumps by 5 at the steps a known flag is on: only the flag's future can tell when.
    g = torch.Generator().manual_seed(0)
    flags = (torch.rand(1500, generator=g) < 0.2).int()
    values = 10 + 5 * flags + 0.1 * torch.randn(1500, generator=g)
    path = write_series(
        tmp_path / "flags.csv",
        [f"{t},{v:.4f},{f}" for t, (v, f) in enumerate(zip(values.tolist(), flags.tolist(), strict=True))],
        header="time,value,flag",
    )
    mae = {}
    for covariates in ("[]", "[flag]"):
        window = ["--data.input_length=24", "--data.horizon=4", "--data.season=24"]
        data = [f"--data.train_path={path}", f"--data.covariate_fields={covariates}", *window]
        cli = build("lstm_forecast", *TINY, *data, *SHORT_FAST, "--model.net.scale=none", "--model.net.skip=none")
        cli.trainer.fit(cli.model, cli.datamodule)
        mae[covariates] = float(cli.trainer.callback_metrics["val/mae_best"])
    assert mae["[flag]"] < 0.5 * mae["[]"], mae


def test_forecasting_with_covariates_needs_their_future_values(tmp_path):
    path = write_series(tmp_path / "series.csv", hourly(400))
    args = {"train_path": str(path), "value_fields": ["load"], "covariate_fields": ["holiday"], "input_length": 48,
            "horizon": 6}  # fmt: skip
    dm = SeriesDataModule(**args)
    dm.setup("fit")  # training needs no future
    with pytest.raises(ConfigError, match=r"known covariates \(holiday\).*6 steps ahead.*--data.future_path"):
        dm.forecast_windows()
    future = write_series(tmp_path / "next.csv", [f"{t},{int(t == 402)}" for t in range(400, 406)], "time,holiday")
    dm = SeriesDataModule(**args, future_path=str(future))
    dm.setup("fit")
    _, ahead, *_ = dm.forecast_windows()[0]
    flag_on = (1 - dm.mean[1]) / dm.std[1]  # standardised as in training
    assert ahead.argmax() == 2 and ahead[2] == pytest.approx(float(flag_on))
    short = write_series(tmp_path / "short.csv", ["400,0"], "time,holiday")
    dm = SeriesDataModule(**args, future_path=str(short))
    dm.setup("fit")
    with pytest.raises(DataError, match=r"short.csv: 1 rows, one per forecast step expected \(6\)"):
        dm.forecast_windows()
