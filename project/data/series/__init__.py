"""Time series for forecasting: a CSV with a time column and value columns (or a generated series), cut into
windows of `input_length` steps that predict the next `horizon`, split by time."""

from project.data.series.datamodule import SeriesDataModule

__all__ = ["SeriesDataModule"]
