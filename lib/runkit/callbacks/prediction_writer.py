"""Write `predict` results to a TSV file beside the run's logs, in the task's columns."""

from pathlib import Path
from typing import Any

from lightning.pytorch import LightningModule, Trainer
from lightning.pytorch.callbacks import BasePredictionWriter

from runkit import offers


class PredictionWriter(BasePredictionWriter):
    """`predictions.tsv`: one row per input: its index (the source line where the data knows it), then the task's
    columns (multiclass: label, probability; multilabel: the label set, then each label's probability;
    regression: one value per target, in the targets' units).

    Args:
        output_path: the file; by default `predictions.tsv` in the trainer's log directory.
    """

    def __init__(self, output_path: str | None = None) -> None:
        super().__init__(write_interval="epoch")
        self.output_path = output_path

    def write_on_epoch_end(
        self, trainer: Trainer, pl_module: LightningModule, predictions: Any, batch_indices: Any
    ) -> None:
        datamodule = trainer.datamodule
        names, where = offers(datamodule).output_names, offers(datamodule).predict_lines()
        path = Path(self.output_path or Path(trainer.log_dir or ".") / "predictions.tsv")
        path.parent.mkdir(parents=True, exist_ok=True)
        # One process only: this writer is for single-device predict runs.
        # A module may lay its predictions out itself (the forecaster: one row per step ahead).
        columns, rows = pl_module.prediction_table(predictions, names)
        lines = ["\t".join(["line" if where is not None else "index", *columns])]
        for index, cells in enumerate(rows):
            lines.append("\t".join([str(where[index] if where is not None else index), *cells]))
        path.write_text("\n".join(lines) + "\n")
        print(f"Wrote {len(rows)} predictions to {path}")
