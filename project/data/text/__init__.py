"""Text and other token sequences: vocabulary, padding + lengths, length-bucketed batches; a label per text, or a
tag per token (CoNLL files)."""

from project.data.text.datamodule import TextClassificationDataModule
from project.data.text.tagging import TaggingDataModule

__all__ = ["TaggingDataModule", "TextClassificationDataModule"]
