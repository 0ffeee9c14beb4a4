"""The notebooks are stored as their sources build them: no outputs, and in step with `notebooks/cells/`.

(They are executed, top to bottom, by nbmake as part of the suite: `addopts = --nbmake` in pyproject.)
"""

import json

import pytest

from notebooks import build_notebooks

SOURCES = sorted(path.stem for path in build_notebooks.SOURCES.glob("*.py"))


@pytest.mark.parametrize("name", SOURCES)
def test_stored_without_outputs_and_as_built(name, tmp_path):
    stored = json.loads((build_notebooks.HERE / f"{name}.ipynb").read_text())
    assert all(cell.get("outputs", []) == [] and cell.get("execution_count") is None for cell in stored["cells"])
    build_notebooks.main(tmp_path)
    assert json.loads((tmp_path / f"{name}.ipynb").read_text()) == stored, "rerun python notebooks/build_notebooks.py"


def test_every_notebook_has_its_source():
    assert sorted(path.stem for path in build_notebooks.HERE.glob("*.ipynb")) == SOURCES
