"""Text classification data: synthetic by default, or your CSV / TSV / JSONL files."""

from collections.abc import Sequence
from typing import Any, Literal

import torch
from runkit import DataError, PaddedSequenceDataModule, SequenceDataset, TextRow, read_text_file

from project.data.text.synthetic import generate_texts
from project.data.text.vocab import Tokenizer, Vocabulary, tokenize


class TextClassificationDataModule(PaddedSequenceDataModule):
    """Texts and labels → padded token batches `(tokens [B, T], lengths [B], labels [B])`.

    Without `train_path` it generates a synthetic task (see `synthetic.py`). With files:
    `train_path` plus `val_path`/`test_path`, or `train_path` alone split by `seed`.

    The vocabulary and the label names are built from the training split only, and saved in
    every checkpoint (`state_dict`), so `predict --ckpt_path` needs no training file.

    Args:
        text_field, label_field: column names (CSV/TSV header) or keys (JSONL).
        tokenizer: `words` (lower-cased words and punctuation marks), `whitespace` (split at spaces) or `char`.
        min_freq, max_vocab_size: rarer tokens and those past the size map to `<unk>`.
        max_length: longer texts are cut; `truncation_side` says which end goes (`left` keeps the end).
        bucketing: batch similar lengths together for training (less padding; benchmarks/sequence_modes.py).
        vocabulary, labels: given by the CLI from a checkpoint; leave them unset.
    """

    request_reader = "project.serving.sequences.TextReader"  # how `project.serve` reads its requests

    def __init__(
        self,
        train_path: str | None = None,
        val_path: str | None = None,
        test_path: str | None = None,
        predict_path: str | None = None,
        text_field: str = "text",
        label_field: str = "label",
        val_fraction: float = 0.1,
        test_fraction: float = 0.1,
        tokenizer: Tokenizer = "words",
        min_freq: int = 1,
        max_vocab_size: int | None = 50000,
        max_length: int = 512,
        truncation_side: Literal["left", "right"] = "right",
        synthetic_samples: int = 5000,
        synthetic_lengths: tuple[int, int] = (5, 200),
        bucketing: bool = True,
        seed: int = 0,
        batch_size: int = 64,
        num_workers: int = 0,
        vocabulary: list[str] | None = None,
        labels: list[str] | None = None,
    ) -> None:
        super().__init__(batch_size=batch_size, num_workers=num_workers)
        self.save_hyperparameters(ignore=["vocabulary", "labels"])
        self.paths = {"train": train_path, "val": val_path, "test": test_path, "predict": predict_path}
        self.fields = (text_field, label_field)
        self.val_fraction, self.test_fraction, self.seed = val_fraction, test_fraction, seed
        self.tokenizer, self.max_length, self.truncation_side = tokenizer, max_length, truncation_side
        self.synthetic = (synthetic_samples, *synthetic_lengths)
        self.bucketing = bucketing
        self._splits: dict[str, list[TextRow]] | None = None
        if vocabulary is None or labels is None:
            # The model's embedding and head are sized from these, so they exist before setup().
            train = self._read_splits()["train"]
            vocabulary = Vocabulary.build((self._tokens(r.text) for r in train), min_freq, max_vocab_size).tokens
            labels = sorted({r.label for r in train})
            if len(labels) < 2:
                raise DataError(
                    f"{self._source('train')}: column {label_field!r} holds one class, {labels[0]!r}, in every "
                    "training row; a classifier needs two or more (another column? set --data.label_field)"
                )
        self.vocabulary = Vocabulary(vocabulary)
        self.class_names = list(labels)

    @property
    def num_classes(self) -> int:
        return len(self.class_names)

    @property
    def vocab_size(self) -> int:
        return len(self.vocabulary)

    def state_dict(self) -> dict[str, Any]:
        # Keys are init arguments: the CLI passes them back when it builds from a checkpoint.
        return {"vocabulary": self.vocabulary.tokens, "labels": self.class_names}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if state["vocabulary"] != self.vocabulary.tokens or state["labels"] != self.class_names:
            raise DataError("the checkpoint's vocabulary or labels differ from this DataModule's")

    def setup(self, stage: str | None = None) -> None:
        if stage == "predict":
            path = self.paths["predict"]
            if path is None:
                raise DataError("predict needs --data.predict_path: a .txt with one text a line, or a CSV/TSV/JSONL")
            self.predict_set = self.encode(read_text_file(path, self.fields[0], label_field=None), path)
        elif self.train_set is None:
            splits = self._read_splits()
            self.train_set, self.val_set, self.test_set = (
                self.encode(splits[split], self._source(split)) for split in ("train", "val", "test")
            )

    # ---- reading and encoding ------------------------------------------------------------------

    def _read_splits(self) -> dict[str, list[TextRow]]:
        """Train, val and test rows: from their files, else held out of the training rows by `seed`."""
        if self._splits is not None:
            return self._splits
        text_field, label_field = self.fields
        if self.paths["train"] is None:
            n, low, high = self.synthetic
            rows = [TextRow(t, y, i) for i, (t, y) in enumerate(generate_texts(n, low, high, seed=self.seed), 1)]
        else:
            rows = read_text_file(self.paths["train"], text_field, label_field)
        self._splits = self.held_out(rows, lambda path: read_text_file(path, text_field, label_field))
        return self._splits

    def _source(self, split: str) -> str:
        return self.paths[split] or self.paths["train"] or f"synthetic {split} data"

    def _tokens(self, text: str) -> list[str]:
        tokens = tokenize(text, self.tokenizer)
        if len(tokens) > self.max_length:
            tokens = tokens[-self.max_length :] if self.truncation_side == "left" else tokens[: self.max_length]
        return tokens

    def encode(self, rows: Sequence[TextRow], source: str) -> SequenceDataset:
        """Token ids per row; rows without a label (prediction) get label -1. The server encodes requests with it."""
        label_ids = {name: i for i, name in enumerate(self.class_names)}
        for row in rows:
            if row.label is not None and row.label not in label_ids:
                raise DataError(
                    f"{source}, line {row.line}: label {row.label!r} never occurs in the training data "
                    f"(labels: {', '.join(self.class_names)})"
                )
        ids = [torch.tensor(self.vocabulary.encode(self._tokens(row.text)), dtype=torch.int64) for row in rows]
        labels = [label_ids.get(row.label, -1) for row in rows]
        return SequenceDataset(ids, labels, list(rows))
