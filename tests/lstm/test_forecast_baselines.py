"""The forecaster against the classical forecasts: Holt-Winters as statsmodels defines it, the seasonal naive
with drift, the skip connection that starts the network at the naive forecast, the head's read of the window,
and the summary's verdict."""

import math

import pytest
import torch
from runkit import HoltWinters, holt_winters_forecasts, seasonal_drift

from project.cli import build
from project.models.forecast import ForecastModel
from project.nets.forecaster import LSTMForecaster
from tests.conftest import TINY

SMALL_SERIES = ["--data.synthetic_length=1200", "--data.input_length=48", "--data.horizon=6"]


def seasonal_trend(length: int, season: int = 12, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    t = torch.arange(length, dtype=torch.float64)
    return (
        50 + 0.3 * t + 5 * torch.sin(2 * math.pi * t / season) + torch.randn(length, generator=g, dtype=torch.float64)
    )


def test_holt_winters_runs_its_states_as_statsmodels_does():
    from statsmodels.tsa.holtwinters import ExponentialSmoothing

    series = seasonal_trend(240)
    model = HoltWinters.estimate(series[:180], season=12)
    ours = model.forecasts(series[:180], horizon=15)
    fitted = ExponentialSmoothing(
        series[:180].numpy(), trend="add", seasonal="add", seasonal_periods=12, initialization_method="estimated"
    ).fit()
    # From the end of the fitted part: statsmodels' own forecast; at every step: its one-step fitted values.
    torch.testing.assert_close(ours[180], torch.from_numpy(fitted.forecast(15)), rtol=1e-9, atol=1e-7)
    torch.testing.assert_close(ours[:180, 0], torch.from_numpy(fitted.fittedvalues), rtol=1e-9, atol=1e-7)
    # Run on past the fitted part, parameters held: the forecasts from later origins follow the data there.
    later = holt_winters_forecasts(series.unsqueeze(1), fit_end=180, season=12, horizon=15)
    assert later.shape == (241, 15, 1)
    torch.testing.assert_close(later[:181, :, 0], ours)
    assert (later[200:226, 0, 0] - series[200:226]).abs().mean() < 2.0  # the noise's scale, not the trend's


def test_seasonal_naive_with_drift_adds_a_seasons_growth():
    # A line plus a season: the seasonal naive lags by one season's growth, with drift it is exact.
    t = torch.arange(100, dtype=torch.float32)
    values = (2 * t + 10 * (t % 4 == 0)).unsqueeze(1)
    origins = torch.tensor([40, 57])
    forecast = seasonal_drift(values, origins, input_length=16, horizon=6, season=4)
    truth = values[origins.unsqueeze(1) + torch.arange(6)]
    torch.testing.assert_close(forecast, truth)


@pytest.mark.parametrize("skip", ["seasonal_naive", "seasonal_drift", "last_value", "learned"])
def test_an_untrained_forecaster_forecasts_its_naive_forecast(skip):
    net = LSTMForecaster(num_outputs=2 * 10, input_size=3, num_values=2, season=4, skip=skip, input_length=12)
    series = torch.randn(40, 2).cumsum(dim=0)  # a random walk: the three naive forecasts differ
    origins = torch.tensor([12, 25, 40])
    windows = series[origins.unsqueeze(1) - 12 + torch.arange(12)]  # [3, 12, 2]: the 12 steps before each origin
    inputs, future = torch.cat([windows, torch.randn(3, 12, 1)], dim=-1), torch.zeros(3, 0)
    steps = torch.arange(10)
    naive = {  # as the baselines the model is logged beside forecast the same windows
        "seasonal_naive": windows[:, 12 + steps - 4 * (steps // 4 + 1)],
        "seasonal_drift": seasonal_drift(series, origins, input_length=12, horizon=10, season=4),
        "last_value": windows[:, -1:].repeat(1, 10, 1),
    }
    assert net.start == ("seasonal_drift" if skip == "learned" else skip)
    torch.testing.assert_close(net(inputs, future), naive[net.start].reshape(3, -1))
    assert net(inputs, future).requires_grad  # and it learns a correction from there


def test_reading_the_window_lets_the_head_fit_a_linear_filter_the_naive_forecasts_cannot_express():
    # AR(2): the next value is 1.5 x[t-1] - 0.8 x[t-2] + noise of variance 1. The naive forecasts read the last
    # value and the window's mean change only, and a one-unit LSTM summarises little: only the window's own
    # values give the head x[t-2]. Trained alike, the window reaches about the noise; without it, not.
    g = torch.Generator().manual_seed(0)
    noise, series = torch.randn(3000, generator=g), torch.zeros(3000)
    for t in range(2, 3000):
        series[t] = 1.5 * series[t - 1] - 0.8 * series[t - 2] + noise[t]
    origins = torch.arange(8, 3000 - 1)
    windows, targets = series[origins.unsqueeze(1) - 8 + torch.arange(8)].unsqueeze(-1), series[origins].unsqueeze(1)
    test_error = {}
    for read_window in (True, False):
        torch.manual_seed(0)
        net = LSTMForecaster(
            num_outputs=1, input_size=1, season=1, hidden_size=1, read_window=read_window, input_length=8
        )
        optimizer = torch.optim.Adam(net.parameters(), lr=1e-2)
        for _ in range(200):
            optimizer.zero_grad()
            (net(windows[:2000], torch.zeros(2000, 0)) - targets[:2000]).pow(2).mean().backward()
            optimizer.step()
        with torch.no_grad():
            test_error[read_window] = (
                (net(windows[2000:], torch.zeros(len(windows) - 2000, 0)) - targets[2000:]).pow(2).mean()
            )
    assert test_error[True] < 1.15 and test_error[True] < 0.85 * test_error[False], test_error


def test_the_default_starts_at_the_seasonal_naive_with_drift_and_the_summary_names_the_best_baseline():
    cli = build("lstm_forecast", *TINY, *SMALL_SERIES, "--trainer.max_epochs=1", "--data.season=24")
    model: ForecastModel = cli.model
    (before,) = cli.trainer.validate(model, cli.datamodule, verbose=False)
    # Untrained, it forecasts the seasonal naive with drift exactly, on the task's scale and in units.
    assert before["val/mase"] == pytest.approx(before["val/mase_seasonal_drift"], rel=1e-5)
    assert before["val/mae"] == pytest.approx(before["val/mae_seasonal_drift"], rel=1e-5)
    # Each baseline's MASE as logged beside the model's (test/mase_ets...); the seasonal naive's is 1.
    assert before["val/mase_ets"] == pytest.approx(before["val/mae_ets"] / before["val/mae_seasonal_naive"], rel=1e-5)
    tested = {"test/mae": 0.36, "test/mase": 0.36, "test/mase_last_value": 1.4, "test/mase_seasonal_drift": 0.46,
              "test/mase_ets": 0.31}  # fmt: skip
    assert model.against_baselines(tested) == (
        "test MASE: model 0.360; ETS 0.310, seasonal naive with drift 0.460, seasonal naive 1.000, last value 1.400: "
        "the model loses to ETS by 16 %"
    )
    assert model.against_baselines({**tested, "test/mase": 0.2}).endswith("the model beats them all (ETS by 35 %)")
    assert model.against_baselines({**tested, "test/mase": 0.3101}).endswith("the model is even with ETS")
