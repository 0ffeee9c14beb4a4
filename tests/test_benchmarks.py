"""Each benchmark still runs (tiny sizes); the numbers themselves live in the README."""

import runpy
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.mark.parametrize("script", ["sequence_modes.py", pytest.param("graph_scale.py", marks=pytest.mark.slow)])
def test_benchmark_smoke(script, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", [script, "--quick"])
    runpy.run_path(str(BENCHMARKS / script), run_name="__main__")
    table = [line for line in capsys.readouterr().out.splitlines() if line.startswith("|")]
    assert len(table) > 2 and "---" in table[1]
