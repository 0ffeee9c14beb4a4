"""The forecast blended with ETS as validation chooses: the rule that chooses, and the blend reaching `test`,
`predict` and the server from the checkpoint."""

from pathlib import Path

import pytest
import torch
from runkit import BASELINES, holt_winters_forecasts

from project.cli import build
from project.models.forecast import ForecastModel
from project.serving.series import SeriesReader
from tests.conftest import TINY
from tests.lstm.test_forecast import write_series
from tests.lstm.test_forecast_baselines import SMALL_SERIES


def validated(model: ForecastModel, network_error: float, ets_error: float) -> float:
    """`model.choose_blend()` over 40 validation windows where the network misses every target by `network_error`,
    ETS by `ets_error` and the seasonal naive by 1: the share of the network it keeps."""
    target = torch.zeros(40, 6)
    network, ets = target + network_error, target + ets_error
    baselines = {"last_value": target + 2, "seasonal_naive": target + 1, "seasonal_drift": target + 1.5, "ets": ets}
    blends = [w * network + (1 - w) * ets for w in model.BLEND]
    forecasts = torch.stack([network, *(baselines[name] for name in BASELINES), *blends], dim=1)
    model.val_scaled.reset()
    model.val_scaled.update(forecasts, target, torch.zeros(40, dtype=torch.long))
    model.choose_blend(m4=False)
    return model.ets_weight


def test_validation_blends_in_ets_only_where_a_blend_is_five_percent_ahead_of_the_network():
    model: ForecastModel = build("lstm_forecast", *TINY, *SMALL_SERIES).model
    assert model.ets_weight == 1  # untrained: the network alone
    assert validated(model, network_error=1.0, ets_error=0.0) == 0.0  # ETS exact: ETS alone
    assert validated(model, network_error=0.2, ets_error=1.0) == 1.0  # the network ahead: the network alone
    assert validated(model, network_error=1.0, ets_error=-1.0) == 0.5  # opposite misses: halves cancel
    assert validated(model, network_error=1.0, ets_error=0.97) == 1.0  # 3 % ahead: within the margin
    assert validated(model, network_error=1.0, ets_error=0.9) == 0.0  # 10 % ahead
    assert model.blend_line() == (
        "val/ets_weight: 0, the forecast 0 x the network's + 1 x ETS's (validation MASE 0.900, the network's alone "
        "1.000)"
    )


def test_test_predict_and_the_server_forecast_the_blend_the_checkpoint_holds(tmp_path):
    cli = build("lstm_forecast", *TINY, *SMALL_SERIES, "--trainer.max_epochs=1", "--model.ets_blend=false")
    model: ForecastModel = cli.model
    cli.trainer.fit(model, cli.datamodule)
    assert model.ets_weight == 1  # ets_blend false: never chosen
    (alone,) = cli.trainer.test(model, cli.datamodule, verbose=False)
    model.blend = {"ets_weight": 0.0, "mase": 0.5, "network_mase": 0.6}
    (blended,) = cli.trainer.test(model, cli.datamodule, verbose=False)
    # All ETS: the test scores its forecast, the same windows' ETS baseline; the network alone did not.
    assert blended["test/mae"] == pytest.approx(blended["test/mae_ets"], rel=1e-5)
    assert alone["test/mae"] != pytest.approx(alone["test/mae_ets"], rel=1e-2)
    ckpt = tmp_path / "blended.ckpt"
    cli.trainer.save_checkpoint(ckpt)

    rows = [f"{t},{10 + t % 24 + 0.05 * t}" for t in range(100)]
    given = write_series(tmp_path / "recent.csv", rows, header="time,value")
    predicting = build("lstm_forecast", *TINY, *SMALL_SERIES, f"--data.predict_path={given}")
    predicting.trainer.predict(predicting.model, predicting.datamodule, ckpt_path=ckpt, return_predictions=False)
    assert predicting.model.ets_weight == 0.0  # from the checkpoint
    lines = (Path(predicting.trainer.log_dir) / "predictions.tsv").read_text().splitlines()[1:]
    predicted = torch.tensor([float(line.split("\t")[2]) for line in lines])
    # Holt-Winters fitted on every step of the given series, forecasting the six after its end.
    values = torch.tensor([float(row.split(",")[1]) for row in rows], dtype=torch.float64).unsqueeze(1)
    season = predicting.datamodule.season
    expected = holt_winters_forecasts(values, len(values), season, 6)[-1, :, 0].float()
    torch.testing.assert_close(predicted, expected, rtol=1e-4, atol=1e-3)
    # The server's reader fits it on the steps a request sends: the same history, the same forecast.
    reader = SeriesReader(predicting.model, predicting.datamodule)
    samples = reader.samples({"values": values[:, 0].tolist()})
    (answer,) = reader.predict(samples, "cpu")
    torch.testing.assert_close(answer["value"].reshape(-1), expected, rtol=1e-4, atol=1e-3)
    assert samples[0][1][3][BASELINES.index("ets")].abs().sum() > 0


def test_a_fit_chooses_the_blend_each_epoch_unless_told_not_to():
    cli = build("lstm_forecast", *TINY, *SMALL_SERIES, "--trainer.max_epochs=1")
    cli.trainer.fit(cli.model, cli.datamodule)
    chosen = float(cli.trainer.callback_metrics["val/ets_weight"])
    assert chosen in (1.0, *ForecastModel.BLEND) and cli.model.ets_weight == chosen
    assert cli.model.blend["network_mase"] == pytest.approx(float(cli.trainer.callback_metrics["val/mase"]), rel=1e-5)
    off = build("lstm_forecast", *TINY, *SMALL_SERIES, "--trainer.max_epochs=1", "--model.ets_blend=false")
    off.trainer.fit(off.model, off.datamodule)
    assert "val/ets_weight" not in off.trainer.callback_metrics and off.model.blend == {"ets_weight": 1.0}
