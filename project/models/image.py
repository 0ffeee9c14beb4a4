"""The CNN image classifier: batches are `(images [B, C, H, W], labels [B])`."""

from typing import Any, ClassVar

import torch
from lightning.fabric.utilities.apply_func import move_data_to_device
from lightning.pytorch.trainer.states import TrainerFn
from lightning.pytorch.utilities import rank_zero_info

from project.data.offers import offers
from project.models.base import TaskModule
from project.nets.batchnorm import recompute_statistics, trained_batchnorms
from project.nets.receptive_field import receptive_field


class ImageModel(TaskModule):
    # The network's depth follows the input side (SimpleCNN's `depth: auto`).
    data_links: ClassVar[dict[str, tuple[str, ...]]] = {
        **TaskModule.data_links,
        "image_size": ("net.init_args.image_size",),
    }
    onnx_inputs: ClassVar[dict[str, dict[int, str]]] = {"images": {0: "batch"}}  # the size is the data's, fixed

    def __init__(self, *args: Any, batchnorm_images: int = 1024, **kwargs: Any) -> None:
        """`batchnorm_images`: before each validation of a fit, the statistics of the network's training BatchNorm
        layers are recomputed at the current weights from this many training images (project/nets/batchnorm.py
        says why); 0 keeps PyTorch's running averages. The rest: TaskModule's."""
        super().__init__(*args, **kwargs)
        self.batchnorm_images = batchnorm_images

    def on_validation_epoch_start(self) -> None:
        super().on_validation_epoch_start()
        trainer = self.trainer
        if not self.batchnorm_images or trainer.sanity_checking or trainer.state.fn != TrainerFn.FITTING:
            return  # sanity_checking: the untrained network's; trainer.validate(): the checkpoint's own statistics
        if trainer.overfit_batches:
            return  # memorising a few fixed batches (the doctor, presets/overfit.yaml): their own statistics
        norms = trained_batchnorms(self.net)
        batches = offers(trainer.datamodule).statistics_batches(self.batchnorm_images)
        if not norms or batches is None:
            return

        def forward(batch: Any) -> None:
            inputs, _, _ = self.unpack(move_data_to_device(batch, self.device))
            with trainer.precision_plugin.forward_context():
                self.net(*inputs)

        recompute_statistics(norms, forward, batches)

    def unpack(self, batch: Any) -> tuple[tuple[torch.Tensor], torch.Tensor, int]:
        images, labels = batch
        return (images,), labels, images.shape[0]

    def on_fit_start(self) -> None:
        super().on_fit_start()
        # A receptive field smaller than the objects means the head sees only parts of them.
        rf = receptive_field(self.net)
        size = offers(self.trainer.datamodule).image_size
        where = f" on {size}x{size} inputs" if size else ""
        rank_zero_info(f"Receptive field of the last conv layer: {rf}x{rf} pixels{where}.")
