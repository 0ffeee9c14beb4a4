"""The CNN image classifier: batches are `(images [B, C, H, W], labels [B])`."""

from typing import Any, ClassVar

import torch
from lightning.pytorch.utilities import rank_zero_info
from runkit import TaskModule, offers, receptive_field


class ImageModel(TaskModule):
    # The network's depth follows the input side (SimpleCNN's `depth: auto`).
    data_links: ClassVar[dict[str, tuple[str, ...]]] = {
        **TaskModule.data_links,
        "image_size": ("net.init_args.image_size",),
    }
    onnx_inputs: ClassVar[dict[str, dict[int, str]]] = {"images": {0: "batch"}}  # the size is the data's, fixed

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
