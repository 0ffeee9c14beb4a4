"""The real-data board (benchmarks/real_data.py) on every case, shrunk (`--quick`): each case's command runs and
prints its test metric, the baselines score the same split, and the baselines themselves are right on real data.
Correctness only: the board's numbers live in benchmarks/README.md."""

import math
import subprocess

import pytest

from benchmarks import real_data
from tests.conftest import python

pytestmark = pytest.mark.slow


def forked(args: list[str], cwd):
    """The board's fits forked from this worker's preloaded process (lib/runkit/testing/preloaded.py): the same
    command, without importing Lightning again for each of some thirty cases."""
    done = python(*args, cwd=cwd)
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout + done.stderr)


def test_every_case_runs_and_its_baselines_score_the_same_split(capsys, monkeypatch):
    monkeypatch.setattr(real_data, "LAUNCH", forked)
    results = {r.case.name: r for r in real_data.main(["--quick"])}
    assert set(results) == {c.name for c in real_data.CASES}
    table = capsys.readouterr().out
    for name, result in results.items():
        assert f"| {name} |" in table
        assert math.isfinite(result.value), (name, result.tested)
        assert result.baselines and all(math.isfinite(v) for v in result.baselines.values()), (name, result.baselines)
        assert result.seconds > 0 and result.peak_mb > 100, (name, result.seconds, result.peak_mb)
    for r in (r for r in results.values() if r.case.model == "lstm_forecast"):
        # The board cut the model's own test windows: the seasonal naive's MAE it computed is the one the fit logged.
        assert r.facts["test/mae_seasonal_naive"] == pytest.approx(r.tested["test/mae_seasonal_naive"], abs=1e-3)
        # The ETS the model logs beside itself is the board's on the same windows, scaled as the case's metric.
        m4 = "_m4" if r.case.metric == "test/mase_m4" else ""
        ets = r.tested[f"test/mase{m4}_ets"]
        assert r.baselines["ETS fitted on training"] == pytest.approx(ets, rel=2e-3), r.case.name
        naive = r.tested["test/mase_m4_seasonal_naive"] if m4 else 1.0
        assert r.baselines["seasonal naive"] == pytest.approx(naive, rel=1e-3), r.case.name
        if "series" not in r.facts:  # one series: MASE is the MAE over the seasonal naive's
            mase = r.tested["test/mae"] / r.tested["test/mae_seasonal_naive"]
            assert r.tested["test/mase"] == pytest.approx(mase, 1e-3)
    assert results["fertility"].facts["series"] == 195  # the 15 countries of too few years skipped
    # Short quarterly series are held out as the M-competitions hold them out: one test window per series.
    assert results["visnights"].facts["test windows"] == results["visnights"].facts["series"] == 20
    assert results["prison"].facts["test windows"] == results["prison"].facts["series"] == 32
    # A trend and a yearly season: Holt-Winters and the drift both beat repeating last year.
    co2 = results["co2"].baselines
    assert max(co2["Holt-Winters"], co2["seasonal naive + drift"]) < 0.8 * co2["seasonal naive"], co2
    # Pixels read in the right order and with their labels: an SVM learns digit scans even from 180 of them.
    assert results["digits_32"].baselines["RBF SVM"] >= 0.8, results["digits_32"].baselines
    assert results["digits_32"].facts["test images"] == 60
    # Fingerprints carry solubility: the forest is well ahead of predicting the training mean; the published test file
    # is the test split.
    solubility = results["solubility"]
    assert solubility.baselines["random forest, Morgan fingerprints"] < 0.7 * solubility.baselines["the training mean"]
    assert solubility.facts["test molecules"] == 257 and results["freesolv"].facts["test molecules"] == 64
    assert results["solubility_classes"].baselines["random forest, Morgan fingerprints"] >= 0.6
    # The corpora are read with their labels: TF-IDF + LR tells BBC's topics apart from 42 articles of each.
    assert results["bbc"].baselines["TF-IDF + LR"] >= 0.8, results["bbc"].baselines
    assert results["food_reviews"].facts["test texts"] == 120  # its own test file, 60 of each class
    # The molecule descriptors the network's atoms carry are read for the right molecules: they carry solubility.
    forests = (
        solubility.baselines["random forest, fingerprints + descriptors"]
        / solubility.baselines["random forest, Morgan fingerprints"]
    )
    assert forests < 0.8, solubility.baselines
    # Communities: the label spreads along the friendships.
    assert results["karate_nodes"].baselines["label propagation"] >= 0.6, results["karate_nodes"].baselines
