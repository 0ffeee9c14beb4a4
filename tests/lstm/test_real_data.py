"""Reviews of the kind users bring, through the README's command with the defaults (only the data
arguments given); the bound is justified in docs/your-data.md."""

import pytest

from tests.conftest import run
from tests.real_data import best_val_acc, short_reviews

pytestmark = pytest.mark.slow


def test_lstm_learns_reviews_whose_sentiment_sits_anywhere(tmp_path):
    short_reviews(tmp_path / "reviews.csv", count=2000)
    out = run("project.fit", "--model", "lstm", "--data.train_path", "reviews.csv",
              "--data.text_field", "review", "--data.label_field", "sentiment", cwd=tmp_path)  # fmt: skip
    assert best_val_acc(out) >= 0.90, out
