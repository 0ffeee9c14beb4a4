"""What a DataModule may offer beyond its loaders, declared once: the model, the checks, the writer of
predictions and the export ask a DataModule through `offers(datamodule)` instead of probing it for names.

`BaseDataModule` carries these defaults, and each DataModule fills in what it has. A LightningDataModule
of your own offers nothing through this (`offers` gives it the defaults, and a test split where it has a
`test_dataloader`) and runs as it is.
"""

from typing import Any, ClassVar, Literal

import lightning.pytorch as L
import torch
from lightning.pytorch.utilities.model_helpers import is_overridden


class DataOffers:
    """Each value here means "none": a DataModule overrides what it has."""

    image_size: int | None = None  # images: the side the CNN's depth and the receptive-field check are sized for
    graph: Any = None  # node and link level: the one graph the splits are cut from (a PyG `Data`)
    vocabulary: Any = None  # text: a token per id (`.tokens`), saved in checkpoints and in ONNX metadata
    # How the checks tell the splits apart: by comparing their samples; `masks`: masks over one graph (nothing
    # to compare); `own`: the DataModule's `split_overlap()` (link level: held-out links in the training graph).
    split_check: ClassVar[Literal["samples", "masks", "own"]] = "samples"
    # serving: the class path of the `runkit.Reader` that reads a request for this data (project.serve)
    request_reader: ClassVar[str | None] = None

    class_names: list[str] | None = None  # classification: a name per class

    @property
    def output_names(self) -> list[str] | None:
        """A name per output (class, label, target) for predictions and pictures; None: numbered."""
        return self.class_names

    @property
    def has_test_split(self) -> bool:
        """Whether the test split is data of its own, not the validation split again: what `project.fit`
        tests the best checkpoint on when the fit ends."""
        return True

    def train_targets(self) -> torch.Tensor | None:
        """The training split's targets at once, what a task learns its statistics from (standardisation,
        label weights) and the targets check reads; None: not offered."""
        return None

    def statistics_batches(self, samples: int) -> Any:
        """Batches of about `samples` training inputs, the same ones every time and without augmentation, for
        recomputing BatchNorm's statistics (runkit/batchnorm.py); None: not offered."""
        return None

    def split_overlap(self) -> str | None:
        """With `split_check = "own"`: what the splits share that they must not, in a line; None: nothing."""
        return None

    def predict_lines(self) -> list[int] | None:
        """The line of the predict file each prediction row comes from; None: rows are numbered from 0."""
        return None


class _NoTestSplit(DataOffers):
    @property
    def has_test_split(self) -> bool:
        return False


# What a DataModule of your own offers: the defaults, with a test split where it has a test loader.
_WITH_TEST, _WITHOUT_TEST = DataOffers(), _NoTestSplit()


def offers(datamodule: Any) -> DataOffers:
    """What `datamodule` offers: itself for the template's DataModules, the defaults for any other."""
    if isinstance(datamodule, DataOffers):
        return datamodule
    tested = isinstance(datamodule, L.LightningDataModule) and is_overridden("test_dataloader", datamodule)
    return _WITH_TEST if tested else _WITHOUT_TEST
