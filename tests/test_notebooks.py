"""The notebooks are stored as their builder writes them: no outputs, and in step with its cell sources.

(They are executed, top to bottom, by nbmake as part of the suite: `addopts = --nbmake` in pyproject.)
"""

import json
from pathlib import Path

import pytest

from notebooks import build_notebooks

NOTEBOOKS = sorted(build_notebooks.NOTEBOOKS)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_stored_without_outputs_and_as_built(name, tmp_path, monkeypatch):
    stored = json.loads((build_notebooks.HERE / name).read_text())
    assert all(cell.get("outputs", []) == [] and cell.get("execution_count") is None for cell in stored["cells"])
    monkeypatch.setattr(build_notebooks, "HERE", tmp_path)
    build_notebooks.main()
    assert json.loads((tmp_path / name).read_text()) == stored, f"{name}: rerun python notebooks/build_notebooks.py"


def test_every_notebook_is_built():
    assert sorted(p.name for p in Path(build_notebooks.HERE).glob("*.ipynb")) == NOTEBOOKS
