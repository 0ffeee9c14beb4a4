"""A TU-format set whose class only structure shows, through the README's command with the defaults
(only the data arguments given); the bound is justified in docs/your-data.md."""

import pytest

from tests.conftest import run
from tests.real_data import best_val_acc, cycle_graphs

pytestmark = pytest.mark.slow


def test_gcn_learns_a_class_that_only_structure_shows(tmp_path):
    # Trees against trees with one more edge, on node labels drawn at random: without degree features
    # the GCN stays near chance.
    cycle_graphs(tmp_path / "tu")
    out = run("project.fit", "--model", "gcn", "--data.source", "tu", "--data.name", "CYCLES",
              "--data.data_dir", "tu", cwd=tmp_path)  # fmt: skip
    assert best_val_acc(out) >= 0.90, out
