"""An LSTM sequence classifier that gives every sequence the same output as if it ran alone."""

from typing import Any, Literal

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from project.errors import ConfigError, DataError
from project.nets.init import init_weights
from project.nets.sequence_pooling import AttentionPool, length_mask, masked_max, masked_mean

Readout = Literal["last", "mean", "max", "attention"]
SequenceMode = Literal["packed", "padded", "auto"]


class LSTMEncoder(nn.Module):
    """Token ids `[batch, time]` and lengths `[batch]` → one vector per sequence `[batch, out_dim]`.

    Two ways to run the LSTM over a padded batch:
    - `packed`: `pack_padded_sequence` skips the padding; exact for every direction and readout.
    - `padded`: the LSTM runs over the padding too, and the readout gathers or masks by length.
      Exact only one-directional: a backward pass would start inside the padding.
    `auto` takes `padded` wherever it is exact (one direction), else `packed`: packing saves arithmetic
    but runs step by step over shrinking batches, and padded measured faster on the CPU and, against the
    common belief that packing is what cuDNN wants, on a GPU too (benchmarks/sequence_modes.py).
    """

    def __init__(
        self,
        vocab_size: int,
        embedding_dim: int = 64,
        hidden_size: int = 128,
        num_layers: int = 1,
        bidirectional: bool = False,
        dropout: float = 0.0,
        readout: Readout = "last",
        sequence_mode: SequenceMode = "auto",
    ) -> None:
        super().__init__()
        if sequence_mode == "padded" and bidirectional:
            raise ConfigError(
                "sequence_mode 'padded' is wrong for a bidirectional LSTM: its backward pass starts in the "
                "padding. Use 'packed' or 'auto'."
            )
        self.readout, self.sequence_mode, self.bidirectional = readout, sequence_mode, bidirectional
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=0)
        self.lstm = nn.LSTM(
            embedding_dim,
            hidden_size,
            num_layers,
            batch_first=True,
            bidirectional=bidirectional,
            dropout=dropout if num_layers > 1 else 0.0,
        )
        self.out_dim = hidden_size * (2 if bidirectional else 1)
        self.attention = AttentionPool(self.out_dim) if readout == "attention" else None

    @property
    def mode(self) -> Literal["packed", "padded"]:
        if self.sequence_mode != "auto":
            return self.sequence_mode
        return "packed" if self.bidirectional else "padded"

    def forward(self, tokens: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        if lengths.min() < 1:
            raise DataError("every sequence needs at least one token: packing cannot take length 0")
        embedded = self.embedding(tokens)  # [batch, time, embedding_dim]
        if self.mode == "packed":
            # lengths must live on the CPU even when the batch is on a GPU; Lightning moved them.
            packed = pack_padded_sequence(embedded, lengths.cpu(), batch_first=True, enforce_sorted=False)
            packed_out, (h_n, _) = self.lstm(packed)
            if self.readout == "last":
                # h_n comes back in the batch's original order; last layer: forward h_n[-2], backward h_n[-1].
                return torch.cat([h_n[-2], h_n[-1]], dim=-1) if self.bidirectional else h_n[-1]
            outputs, _ = pad_packed_sequence(packed_out, batch_first=True, total_length=tokens.shape[1])
        else:
            outputs, _ = self.lstm(embedded)
            if self.readout == "last":
                index = (lengths - 1).view(-1, 1, 1).expand(-1, 1, outputs.shape[-1])
                return outputs.gather(1, index).squeeze(1)  # the step at length - 1, not out[:, -1]
        mask = length_mask(lengths.to(outputs.device), outputs.shape[1])
        if self.readout == "mean":
            return masked_mean(outputs, mask)
        if self.readout == "max":
            return masked_max(outputs, mask)
        return self.attention(outputs, mask)


class LSTMClassifier(nn.Module):
    """`LSTMEncoder` then a linear head: `(tokens [B, T], lengths [B])` → logits `[B, num_outputs]`.

    `dropout` serves the encoder (between LSTM layers) and the head; every other argument is the
    encoder's (`hidden_size`, `readout`, ...), passed on by name: the CLI lists them from `LSTMEncoder`'s
    signature, so an option is added there once.
    """

    def __init__(self, num_outputs: int, vocab_size: int, dropout: float = 0.0, **encoder: Any) -> None:
        super().__init__()
        self.features = LSTMEncoder(vocab_size=vocab_size, dropout=dropout, **encoder)
        self.head = nn.Sequential(nn.Dropout(dropout), nn.Linear(self.features.out_dim, num_outputs))
        self.head.apply(init_weights)

    def forward(self, tokens: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(tokens, lengths))
