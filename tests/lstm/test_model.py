"""The LSTM family end to end: your own files in, a checkpoint, and predictions from it alone."""

import csv
from pathlib import Path

import torch

from project.cli import build, main
from project.data.text.synthetic import generate_texts
from tests.conftest import TINY

SMALL_NET = ["--model.net.embedding_dim=8", "--model.net.hidden_size=16", "--model.net.num_layers=1"]


def test_predict_from_a_checkpoint_alone_writes_label_names(tmp_path):
    with open(tmp_path / "train.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["review", "sentiment"])
        writer.writerows(generate_texts(200, max_length=30, seed=0))
    cli = build(
        "lstm",
        *TINY,
        *SMALL_NET,
        f"--data.train_path={tmp_path / 'train.csv'}",
        "--data.text_field=review",
        "--data.label_field=sentiment",
        "--data.batch_size=16",
        "--trainer.max_steps=3",
    )
    cli.trainer.fit(cli.model, cli.datamodule)
    ckpt = cli.trainer.checkpoint_callback.last_model_path
    saved = torch.load(ckpt, weights_only=True)["TextClassificationDataModule"]
    assert saved["vocabulary"] == cli.datamodule.vocabulary.tokens
    (tmp_path / "train.csv").unlink()  # predict must not need the training data

    (tmp_path / "lines.txt").write_text("w1 w2 alpha\n\nw3 gamma w4 w5\nnever seen words delta\n")
    lines_txt = tmp_path / "lines.txt"
    predicted = main(["predict", "--model=lstm", f"--ckpt_path={ckpt}", f"--data.predict_path={lines_txt}"])
    lines = (Path(predicted.trainer.log_dir) / "predictions.tsv").read_text().splitlines()
    assert lines[0] == "line\tlabel\tprobability"
    rows = [line.split("\t") for line in lines[1:]]
    assert [r[0] for r in rows] == ["1", "3", "4"]  # the blank line 2 is skipped, with a warning
    assert all(r[1] in cli.datamodule.class_names and 0 < float(r[2]) <= 1 for r in rows)
