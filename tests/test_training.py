"""Each family learns its default task: accuracy above a bound after a short run."""

import pytest

from tests.conftest import TINY


# part: cnn
@pytest.mark.slow
def test_cnn_learns_the_shapes():
    from project.cli import build

    # 5 epochs: 0.966-0.976 over seeds 42, 1, 2; at 3 epochs some seeds stopped at 0.83.
    cli = build("cnn", *TINY, "--data.num_train=2000", "--data.num_val=500", "--trainer.max_epochs=5")
    cli.trainer.fit(cli.model, cli.datamodule)
    assert cli.trainer.callback_metrics["val/acc"] >= 0.93
    tested = cli.trainer.test(cli.model, cli.datamodule, verbose=False)[0]
    assert tested["test/acc"] >= 0.93


# part: lstm
@pytest.mark.slow
def test_lstm_learns_the_last_marker():
    from project.cli import build

    cli = build("lstm", *TINY, "--data.synthetic_samples=2000", "--trainer.max_epochs=2")
    cli.trainer.fit(cli.model, cli.datamodule)
    assert cli.trainer.callback_metrics["val/acc"] >= 0.90


# part: gcn
@pytest.mark.slow
def test_gcn_learns_graph_structure():
    from project.cli import build

    cli = build("gcn", *TINY)  # the defaults: 2,000 graphs, 30 epochs
    cli.trainer.fit(cli.model, cli.datamodule)
    assert cli.trainer.callback_metrics["val/acc_best"] >= 0.90


# part: cnn, multilabel
@pytest.mark.slow
def test_cnn_tags_every_shape_in_the_image():
    from project.cli import build

    cli = build("cnn_multilabel", *TINY, "--data.num_train=2000", "--data.num_val=500", "--trainer.max_epochs=8")
    cli.trainer.fit(cli.model, cli.datamodule)
    assert cli.trainer.callback_metrics["val/f1_macro_best"] >= 0.90


# part: lstm, regression
@pytest.mark.slow
def test_lstm_forecast_beats_the_seasonal_naive_forecast():
    from project.cli import build

    cli = build("lstm_forecast", *TINY, "--data.synthetic_length=4000", "--trainer.max_epochs=14")
    cli.trainer.fit(cli.model, cli.datamodule)
    metrics = cli.trainer.validate(cli.model, cli.datamodule, ckpt_path="best", verbose=False)[0]
    assert metrics["val/mase"] <= 0.8
