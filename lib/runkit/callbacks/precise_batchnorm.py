"""BatchNorm's statistics recomputed at the current weights before each validation of a fit
(runkit/batchnorm.py says why). Named in the configs of the families whose networks use BatchNorm."""

from typing import Any

import lightning.pytorch as L
from lightning.fabric.utilities.apply_func import move_data_to_device
from lightning.pytorch.trainer.states import TrainerFn

from runkit import offers
from runkit.batchnorm import recompute_statistics, trained_batchnorms


class PreciseBatchNorm(L.Callback):
    """Before each validation of a fit, the statistics of the network's training BatchNorm layers are recomputed
    from `images` training samples (the DataModule's `statistics_batches`: the same ones every time, without
    augmentation). A network without such layers, or data that offers no such batches, is left as it is."""

    def __init__(self, images: int = 1024) -> None:
        """`images`: how many training samples the statistics are averaged over; 0 keeps PyTorch's running
        averages (the callback does nothing)."""
        self.images = images

    def on_validation_epoch_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if not self.images or trainer.sanity_checking or trainer.state.fn != TrainerFn.FITTING:
            return  # sanity_checking: the untrained network's; trainer.validate(): the checkpoint's own statistics
        if trainer.overfit_batches:
            return  # memorising a few fixed batches (the doctor, presets/overfit.yaml): their own statistics
        net = pl_module.net
        norms = trained_batchnorms(net)
        batches = offers(trainer.datamodule).statistics_batches(self.images)
        if not norms or batches is None:
            return

        def forward(batch: Any) -> None:
            inputs, _, _ = pl_module.unpack(move_data_to_device(batch, pl_module.device))
            with trainer.precision_plugin.forward_context():
                net(*inputs)

        recompute_statistics(norms, forward, batches)


def precise_batchnorm_images(trainer: L.Trainer) -> int:
    """How many samples `PreciseBatchNorm` recomputes from in `trainer`'s fit; 0 where it is not among its
    callbacks (for a loop by hand that does what the Trainer does: benchmarks/raw_loop.py)."""
    return next((c.images for c in trainer.callbacks if isinstance(c, PreciseBatchNorm)), 0)
