"""Text and other token sequences: vocabulary, padding + lengths, length-bucketed batches."""

from project.data.text.datamodule import TextClassificationDataModule

__all__ = ["TextClassificationDataModule"]
