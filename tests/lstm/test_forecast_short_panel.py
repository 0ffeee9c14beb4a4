"""Many short series, held out as the M-competitions hold them out (`data.split: horizons`): the last horizon of
each series tests, the one before validates, and a window may reach back past a short series' start."""

import logging
from pathlib import Path

import pytest
import torch
from runkit import BASELINES, ScaledErrors

from project.cli import build
from project.data.series import SeriesDataModule
from project.nets.forecaster import LSTMForecaster
from tests.conftest import TINY


def yearly_panel(path: Path, lengths: list[int], seed: int = 0) -> Path:
    """Series `s0`, `s1`... of `lengths` years ending in 2020, each a level, a trend and noise, years as numbers."""
    generator = torch.Generator().manual_seed(seed)
    rows = []
    for index, length in enumerate(lengths):
        level, trend = 50 + 40 * torch.rand(1, generator=generator).item(), torch.randn(1, generator=generator).item()
        noise = torch.randn(length, generator=generator)
        rows += [f"s{index},{2020 - length + 1 + t},{level + trend * t + noise[t].item():.4f}" for t in range(length)]
    path.write_text("series,year,value\n" + "\n".join(rows) + "\n")
    return path


def test_short_yearly_series_are_held_out_by_horizons_padded_and_the_shortest_skipped(tmp_path, caplog):
    path = yearly_panel(tmp_path / "yearly.csv", [15, 18, 19, 25, 40])
    with caplog.at_level(logging.INFO, logger="project.data.series.datamodule"):
        dm = SeriesDataModule(train_path=str(path), series_field="series", time_field="year", horizon=6)
        dm.setup("fit")
    assert (dm.split, dm.season, dm.input_length, dm.num_features) == ("horizons", 1, 16, 2)
    assert "data.split: auto is horizons (the median series, 19 steps" in caplog.text
    # A series needs a step of history and a horizon of targets before the two held-out horizons: 19 steps.
    assert list(dm.scales) == ["s2", "s3", "s4"]
    assert "2 of 5 series skipped, too short for 19 steps (data.split horizons) (for example 's0' (15 steps), " \
           "'s1' (18 steps))" in caplog.text  # fmt: skip
    assert (len(dm.val_set), len(dm.test_set)) == (3, 3)  # one window per series
    assert len(dm.train_set) == (19 - 18) + (25 - 18) + (40 - 18)  # origins from step 1 to the validation's start
    values = torch.tensor([float(line.split(",")[2]) for line in path.read_text().splitlines()[1:]])[15 + 18 :][:19]
    mean, std = dm.scales["s2"]
    inputs, _, target, baselines, series = dm.test_set[0]  # s2's test: its last 6 years, read from the 13 before
    assert series == 0 and inputs[:, -1].tolist() == [0.0] * 3 + [1.0] * 13
    assert torch.allclose(target, (values[13:] - mean) / std, atol=1e-5)
    assert torch.allclose(inputs[3:, 0], (values[:13] - mean) / std, atol=1e-5) and not inputs[:3, 0].any()
    assert torch.allclose(baselines[0], target.new_full((6,), float((values[12] - mean) / std)), atol=1e-5)
    first, *_ = dm.train_set[0]  # the first training window: one year of history, the rest padding
    assert first[:, -1].tolist() == [0.0] * 15 + [1.0]
    # The M4 scale of s2's test: the in-sample MAE of the one-step naive over the 13 years before it.
    scaled = (values[:13] - mean) / std
    assert dm.insample["test"][0] == pytest.approx(float((scaled[1:] - scaled[:-1]).abs().mean()), rel=1e-5)


def test_the_forecaster_reads_only_a_short_series_own_steps():
    torch.manual_seed(0)
    net = LSTMForecaster(num_outputs=6, input_size=2, season=1, input_length=16, observed=True)
    history = torch.tensor([3.0, 4.0, 4.5, 6.0, 7.5])
    mask = torch.cat([torch.zeros(11), torch.ones(5)])
    inputs = torch.stack([torch.cat([torch.zeros(11), history]), mask], dim=-1).unsqueeze(0)
    # Untrained, it forecasts the drift of the five own years: the last value plus their mean change per year.
    drift = history[-1] + torch.arange(1, 7) * (history[-1] - history[0]) / 4
    assert torch.allclose(net(inputs, torch.zeros(1, 0))[0], drift, atol=1e-5)
    for parameter in net.head.parameters():  # every path of the head open: the LSTM's, the window's, the naive ones
        torch.nn.init.normal_(parameter)
    garbage = inputs.clone()
    garbage[0, :11, 0] = 100 * torch.randn(11)
    assert torch.allclose(net(garbage, torch.zeros(1, 0)), net(inputs, torch.zeros(1, 0)), atol=1e-5)
    unmasked = LSTMForecaster(num_outputs=6, input_size=2, season=1, input_length=16, observed=False)
    unmasked.load_state_dict(net.state_dict())
    assert not torch.allclose(unmasked(garbage, torch.zeros(1, 0)), unmasked(inputs, torch.zeros(1, 0)), atol=1e-3)


def test_m4_mase_divides_each_series_by_its_in_sample_naive_error_then_averages():
    metric = ScaledErrors()
    metric.insample = torch.tensor([2.0, 0.5, 0.0])  # the third series: a flat history, no scale, left out
    model = torch.tensor([1.0, 3.0, 1.0, 7.0])  # series 0: MAE 2 over 2 -> 1; series 1: 1 over 0.5 -> 2
    naive = torch.tensor([4.0, 4.0, 2.0, 1.0])
    forecasts = torch.stack([model, naive, naive, naive, naive], dim=1).unsqueeze(2)
    metric.update(forecasts, torch.zeros(4, 1), torch.tensor([0, 0, 1, 2]))
    values = metric.compute()
    assert values["mase_m4"] == pytest.approx((1.0 + 2.0) / 2)  # arithmetic, as M4 averages
    assert values["mase_m4_seasonal_naive"] == pytest.approx((2.0 + 4.0) / 2)


def test_a_panel_of_short_yearly_series_trains_tests_and_forecasts_with_only_its_columns(tmp_path):
    path = yearly_panel(tmp_path / "yearly.csv", [19 + (7 * i) % 22 for i in range(40)], seed=1)
    data = [f"--data.train_path={path}", "--data.series_field=series", "--data.time_field=year", "--data.horizon=6",
            "--data.value_fields=[value]"]  # fmt: skip
    cli = build("lstm_forecast", *TINY, *data, "--trainer.max_epochs=3")
    cli.trainer.fit(cli.model, cli.datamodule)
    (tested,) = cli.trainer.test(cli.model, cli.datamodule, ckpt_path="best", verbose=False)
    assert {"test/mase", "test/mase_m4", "test/mase_m4_ets", "test/mase_m4_seasonal_drift"} <= set(tested)
    # Level, trend and unit noise: the drift of a series' own years is near the truth; the one model keeps to it.
    assert tested["test/mase_m4"] < 1.5 * tested["test/mase_m4_seasonal_drift"], tested
    recent = tmp_path / "recent.csv"  # s0's last 10 years, fewer than the 16 a window reads: padded, as in training
    recent.write_text("\n".join(path.read_text().splitlines()[:1] + path.read_text().splitlines()[10:20]) + "\n")
    predicting = build("lstm_forecast", *TINY, *data, "--data.predict_series=[s0]", f"--data.predict_path={recent}")
    ckpt = cli.trainer.checkpoint_callback.best_model_path
    predicting.trainer.predict(predicting.model, predicting.datamodule, ckpt_path=ckpt, return_predictions=False)
    lines = (Path(predicting.trainer.log_dir) / "predictions.tsv").read_text().splitlines()
    assert len(lines) == 1 + 6
    last = float(recent.read_text().splitlines()[-1].split(",")[2])  # in s0's units (a level of 50 to 90)
    assert all(abs(float(line.split("\t")[3]) - last) < 15 for line in lines[1:]), (last, lines)


def steps_series(path: Path, values: torch.Tensor) -> Path:
    path.write_text("time,value\n" + "".join(f"{t},{v:.5f}\n" for t, v in enumerate(values.tolist())))
    return path


@pytest.mark.parametrize("right", ["last_value", "seasonal_naive", "seasonal_drift"])
def test_an_untrained_forecaster_starts_at_the_naive_forecast_best_on_validation(tmp_path, right):
    generator = torch.Generator().manual_seed(0)
    steps = torch.arange(400.0)
    season = 10 * torch.sin(2 * torch.pi * steps / 4)  # a period of 4 steps
    noise = 0.3 * torch.randn(400, generator=generator)
    values = {
        "last_value": 50 + torch.randn(400, generator=generator).cumsum(0),  # a random walk: the last value knows all
        "seasonal_naive": 50 + season + noise,  # a season and no trend
        "seasonal_drift": 50 + season + 0.5 * steps + noise,  # a season and a trend
    }[right]
    path = steps_series(tmp_path / f"{right}.csv", values)
    # Two seasons out from two seasons in: the drift's guess of the trend doubles, and is clearly wrong without one.
    cli = build("lstm_forecast", *TINY, f"--data.train_path={path}", "--data.season=4", "--data.horizon=8",
                "--data.input_length=8", "--trainer.max_epochs=0")  # fmt: skip
    cli.trainer.fit(cli.model, cli.datamodule)  # sets up, chooses the start, trains nothing
    model = cli.model
    assert model.net.start == right and model.start_line.startswith(f"val/start: {right}")
    inputs, future, _, baselines, _ = next(iter(cli.datamodule.val_dataloader()))
    with torch.no_grad():
        forecast = model(inputs, future) * model.task.std + model.task.mean  # in the series' units
    assert torch.allclose(forecast, baselines[:, BASELINES.index(right)], atol=1e-3)


@pytest.mark.parametrize(("drift", "started"), [(1.03, "seasonal_drift"), (1.06, "seasonal_naive")])
def test_the_start_moves_off_the_drift_only_when_validation_is_clear(drift, started):
    model = build("lstm_forecast", *TINY, "--data.input_length=48").model
    # ETS (run over each series' whole history) is scored but is not a start: a window cannot run it.
    scores = {"last_value": 2.0, "seasonal_naive": 1.0, "seasonal_drift": drift, "ets": 0.5}
    assert model.pick_start(scores) == started  # the seasonal naive 3 % ahead: noise on a few windows; 6 %: taken
