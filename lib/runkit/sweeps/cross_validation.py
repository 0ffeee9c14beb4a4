"""k-fold cross-validation as a callback, so that every DataModule's own seeded split serves it unchanged."""

import lightning.pytorch as L

from runkit import BaseDataModule, ConfigError


class CrossValidation(L.Callback):
    """Validate on fold `fold` of `folds`: once the DataModule is set up, its training and validation samples
    are pooled and cut into `folds` seeded parts (`BaseDataModule.use_fold`). Lightning sets up the DataModule
    before the callbacks and the model, so the model's training statistics see the fold's training part.
    `python -m project.repeat --folds K` runs one fit per fold.
    """

    def __init__(self, folds: int, fold: int, seed: int = 0) -> None:
        self.folds, self.fold, self.seed = folds, fold, seed
        self._done = False

    def setup(self, trainer: L.Trainer, pl_module: L.LightningModule, stage: str) -> None:
        if self._done:  # fit, then test in the same process: the DataModule keeps its sets
            return
        datamodule = trainer.datamodule
        if not isinstance(datamodule, BaseDataModule):
            raise ConfigError(
                f"cross-validation needs one of the template's DataModules, got {type(datamodule).__name__}"
            )
        datamodule.use_fold(self.folds, self.fold, self.seed)
        self._done = True
