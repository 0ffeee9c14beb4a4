"""`python -m project.doctor`: healthy defaults pass, a broken model or data fails with the check named."""

import pytest

from project import doctor
from tests.conftest import SMALL, TINY

SMALL_CNN = (*SMALL["cnn"], *TINY)


def test_the_default_cnn_is_healthy(capsys):
    assert doctor.main(["--model", "cnn", *SMALL_CNN]) == 0
    out = capsys.readouterr().out
    assert "batch[0]               float32  [64, 3, 32, 32]" in out
    assert "Labels in the first 4 training batches (256 scored)" in out
    assert "| overfit | ok | loss on 2 fixed batch(es) fell" in out
    assert "Verdict: healthy." in out


@pytest.mark.parametrize(
    ("broken", "row"),
    [
        (
            ["--model.net", "tests.cnn.broken.SoftmaxCNN"],
            "| logits | WARNING | the network's outputs look like probabilities",
        ),
        (
            ["--data", "tests.cnn.broken.ColumnLabelShapes"],
            "| labels | ERROR | validation batch 0: labels have shape [64, 1]",
        ),
    ],
)
def test_a_broken_model_or_data_fails_with_the_check_named(capsys, broken, row):
    assert doctor.main(["--model", "cnn", *SMALL_CNN, *broken]) == 1
    out = capsys.readouterr().out
    assert row in out
    assert "problem(s), see the table" in out
