"""Numeric sequences (sensors, speech features, motion): long tables, UCR/UEA `.ts` files, ragged `.npz` arrays.
Their batching (padding + lengths, buckets) is runkit's, shared with the texts: runkit/data/batching.py."""

from project.data.sequences.datamodule import NumericSequenceDataModule

__all__ = ["NumericSequenceDataModule"]
