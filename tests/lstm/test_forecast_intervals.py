"""Forecast intervals (`--config configs/lstm_forecast_intervals.yaml`): quantiles by the pinball loss, each
starting at the naive forecast, the middle one scored, coverage logged, every quantile in predictions.tsv and the
interval in the forecast picture. (The pinball loss and the quantiles' checks: runkit's own tests.)"""

from pathlib import Path

import pytest
import torch
from runkit import ConfigError
from runkit.tasks import Regression

from project.cli import build
from project.models.forecast import ForecastModel
from project.nets.forecaster import LSTMForecaster
from project.registry import CONFIG_DIR
from tests.conftest import TINY

INTERVALS = [f"--config={CONFIG_DIR / 'lstm_forecast_intervals.yaml'}"]
SMALL_SERIES = ["--data.synthetic_length=1200", "--data.input_length=48", "--data.horizon=6"]


def test_an_untrained_forecaster_starts_its_quantiles_around_the_seasonal_naive_with_drift():
    net = LSTMForecaster(
        num_outputs=2 * 10, input_size=2, num_values=2, season=4, quantiles=[0.1, 0.5, 0.9], input_length=12
    )
    inputs = torch.randn(5, 12, 2)
    output = net(inputs, torch.zeros(5, 0)).view(5, 10, 2, 3)
    steps = torch.arange(10)
    per_season = (inputs[:, 4:] - inputs[:, :-4]).mean(dim=1, keepdim=True)  # [5, 1, 2]
    naive = inputs[:, 12 + steps - 4 * (steps // 4 + 1)] + (steps // 4 + 1).view(1, -1, 1) * per_season
    # Each window's own seasonal naive error: the root mean square of its changes over a season.
    error = (inputs[:, 4:] - inputs[:, :-4]).pow(2).mean(dim=1, keepdim=True).sqrt()  # [5, 1, 2]
    for q, normal in enumerate([-1.2816, 0.0, 1.2816]):  # the standard normal's 0.1, 0.5 and 0.9 quantiles
        torch.testing.assert_close(output[..., q], naive + normal * error, atol=1e-4, rtol=1e-4)


def test_a_task_and_a_network_of_different_quantiles_are_refused():
    net = LSTMForecaster(num_outputs=6, input_size=1, season=4, input_length=12)
    with pytest.raises(ConfigError, match=r"the task scores the quantiles \[0.1, 0.5, 0.9\] and the network emits "
                                          r"none: set --model.net.init_args.quantiles \[0.1, 0.5, 0.9\]"):  # fmt: skip
        ForecastModel(net, num_outputs=6, task=Regression(loss="pinball", quantiles=[0.1, 0.5, 0.9]))


@pytest.mark.parametrize("intervals", [True, False], ids=["intervals", "point"])
def test_the_forecast_picture_draws_the_windows_truth_forecast_and_interval(intervals):
    from matplotlib.collections import PolyCollection

    cli = build("lstm_forecast", *TINY, *SMALL_SERIES, *(INTERVALS if intervals else []), "--trainer.max_epochs=1")
    model, data = cli.model, cli.datamodule
    cli.trainer.validate(model, data, verbose=False)
    figure = model.figures(data.output_names)["val/forecast"]
    assert len(figure.axes) == ForecastModel.SHOWN
    # The first window drawn is the validation set's first, computed here again from the loader's first batch.
    inputs, future, target, *_ = next(iter(data.val_dataloader()))
    with torch.no_grad():
        output = model(inputs[:1], future[:1])
    first = figure.axes[0]
    lines = {line.get_label(): line.get_ydata() for line in first.get_lines()}
    torch.testing.assert_close(torch.as_tensor(lines["input"]), inputs[0, :, 0])
    torch.testing.assert_close(torch.as_tensor(lines["true"]), target[0])
    torch.testing.assert_close(torch.as_tensor(lines["forecast"]), model.task.scored(output)[0])
    bands = [c for c in first.collections if isinstance(c, PolyCollection)]
    if not intervals:
        assert not bands
        return
    (band,) = bands
    low, high = model.task.interval(output)
    edge = torch.as_tensor(band.get_paths()[0].vertices[:, 1])
    assert float(edge.min()) == pytest.approx(float(low[0].min()), abs=1e-5)
    assert float(edge.max()) == pytest.approx(float(high[0].max()), abs=1e-5)


@pytest.mark.slow
def test_the_interval_covers_about_its_level_and_predict_writes_every_quantile():
    cli = build("lstm_forecast", *TINY, *SMALL_SERIES, *INTERVALS, "--trainer.max_epochs=6")
    cli.trainer.fit(cli.model, cli.datamodule)
    (tested,) = cli.trainer.test(cli.model, cli.datamodule, ckpt_path="best", verbose=False)
    # The 0.1 and 0.9 quantiles: 80 % of the test targets inside, if calibrated; the median scored as the forecast.
    assert 0.65 <= tested["test/coverage"] <= 0.92, tested
    assert tested["test/mase"] < 1.0, tested
    ckpt = cli.trainer.checkpoint_callback.best_model_path
    predicting = build("lstm_forecast", *TINY, *SMALL_SERIES, *INTERVALS)
    predicting.trainer.predict(predicting.model, predicting.datamodule, ckpt_path=ckpt, return_predictions=False)
    lines = (Path(predicting.trainer.log_dir) / "predictions.tsv").read_text().splitlines()
    assert lines[0] == "index\tstep\tvalue\tvalue_q0.1\tvalue_q0.5\tvalue_q0.9" and len(lines) == 1 + 6
    for line in lines[1:]:
        value, low, median, high = map(float, line.split("\t")[2:])
        assert value == median and low < median < high, line
