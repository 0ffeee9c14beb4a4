"""Write `predict` results to a TSV file beside the run's logs, with label names when the data has them."""

from pathlib import Path
from typing import Any

from lightning.pytorch import LightningModule, Trainer
from lightning.pytorch.callbacks import BasePredictionWriter


class PredictionWriter(BasePredictionWriter):
    """`predictions.tsv`: one row per input: its index (the source line where the data knows it), label, probability.

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
        names = getattr(datamodule, "class_names", None)
        rows = getattr(getattr(datamodule, "predict_set", None), "rows", None)
        path = Path(self.output_path or Path(trainer.log_dir or ".") / "predictions.tsv")
        path.parent.mkdir(parents=True, exist_ok=True)
        # One process only: this writer is for single-device predict runs.
        lines = ["line\tlabel\tprobability" if rows is not None else "index\tlabel\tprobability"]
        index = 0
        for batch in predictions:
            for pred, confidence in zip(batch["pred"].tolist(), batch["confidence"].tolist(), strict=True):
                where = rows[index].line if rows is not None else index
                label = names[pred] if names else str(pred)
                lines.append(f"{where}\t{label}\t{confidence:.4f}")
                index += 1
        path.write_text("\n".join(lines) + "\n")
        print(f"Wrote {index} predictions to {path}")
