"""Numeric sequences (sensors, speech features, motion): long tables, UCR/UEA `.ts` files, ragged `.npz` arrays.
Their batching (padding + lengths, buckets) is the text sequences' own: project/data/text/batching.py."""

from project.data.sequences.datamodule import NumericSequenceDataModule

__all__ = ["NumericSequenceDataModule"]
