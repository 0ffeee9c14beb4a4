"""The LSTM sequence classifier: batches are `(tokens [B, T], lengths [B], labels [B])`."""

from typing import Any, ClassVar

import torch

from project.models.base import TaskModule


class SequenceModel(TaskModule):
    data_links: ClassVar[dict[str, tuple[str, ...]]] = {
        **TaskModule.data_links,
        "vocab_size": ("net.init_args.vocab_size",),
    }

    def unpack(self, batch: Any) -> tuple[tuple[torch.Tensor, torch.Tensor], torch.Tensor, int]:
        tokens, lengths, labels = batch
        return (tokens, lengths), labels, tokens.shape[0]
