"""Real digit scans through the README's command with the defaults (only the data arguments given);
the bound is justified in docs/your-data.md."""

import pytest

from tests.conftest import run
from tests.real_data import best_val_acc, digit_scans

pytestmark = pytest.mark.slow


def test_cnn_learns_real_digit_scans(tmp_path):
    # Shapes larger than a 9×9 receptive field: the old three-stage default reached 0.65.
    digit_scans(tmp_path / "digits")
    # The defaults and the data arguments; the run stops once it reaches the bound, instead of at its best.
    out = run("project.fit", "--model", "cnn", "--data", "project.data.images.ImageFolderDataModule",
              "--data.root", "digits", "--data.image_size", "32",
              "--early_stopping.stopping_threshold", "0.95", cwd=tmp_path)  # fmt: skip
    assert best_val_acc(out) >= 0.95, out
