"""Each benchmark still runs (tiny sizes); the numbers themselves live in the template's benchmarks/README.md."""

import runpy
import sys

import pytest


@pytest.mark.parametrize(
    "module",
    [
        "benchmarks.sequence_modes",  # part: lstm
        "benchmarks.image_nets",  # part: cnn
        pytest.param("benchmarks.graph_scale", marks=pytest.mark.slow),  # part: gcn
        pytest.param("benchmarks.link_scale", marks=pytest.mark.slow),  # part: gcn
        pytest.param("benchmarks.link_real", marks=pytest.mark.slow),  # part: gcn
        pytest.param("benchmarks.parity", marks=pytest.mark.slow),
        pytest.param("benchmarks.startup", marks=pytest.mark.slow),
        "benchmarks.graph_collate",  # part: gcn
        pytest.param("benchmarks.compile", marks=pytest.mark.slow),
        pytest.param("benchmarks.switches", marks=pytest.mark.slow),
        pytest.param("benchmarks.callback_costs", marks=pytest.mark.slow),
        pytest.param("benchmarks.tracker_costs", marks=pytest.mark.slow),
        pytest.param("benchmarks.ablation", marks=pytest.mark.slow),
    ],
)
def test_benchmark_smoke(module, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", [module, "--quick"])
    runpy.run_module(module, run_name="__main__")
    table = [line for line in capsys.readouterr().out.splitlines() if line.startswith("|")]
    assert len(table) > 2 and "---" in table[1]
