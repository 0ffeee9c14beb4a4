"""The LSTM sequence classifier: batches are `(tokens [B, T], lengths [B], labels [B])`."""

import copy
from typing import Any, ClassVar

import torch
from torch import nn

from project.models.base import TaskModule


class SequenceModel(TaskModule):
    data_links: ClassVar[dict[str, tuple[str, ...]]] = {
        **TaskModule.data_links,
        "vocab_size": ("net.init_args.vocab_size",),
    }
    onnx_inputs: ClassVar[dict[str, dict[int, str]]] = {"tokens": {0: "batch", 1: "time"}, "lengths": {0: "batch"}}

    def unpack(self, batch: Any) -> tuple[tuple[torch.Tensor, torch.Tensor], torch.Tensor, int]:
        tokens, lengths, labels = batch
        return (tokens, lengths), labels, tokens.shape[0]

    def exportable_net(self) -> nn.Module:
        """The LSTM in its padded mode: exact in both directions (project/nets/lstm.py) and plain tensor
        operations, where packing sorts and splits the batch by its lengths, which a trace would fix."""
        net = copy.deepcopy(self.net)
        if hasattr(getattr(net, "features", None), "sequence_mode"):
            net.features.sequence_mode = "padded"
        return net
