"""An LSTM over token ids or numeric values that gives every sequence the same output as if it ran alone."""

import itertools
from typing import Any, Literal

import torch
from runkit import ConfigError, DataError
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from project.nets.init import init_weights
from project.nets.ngram_bag import NgramBag
from project.nets.sequence_pooling import AttentionPool, length_mask, masked_max, masked_mean
from project.nets.spelling import Spelling
from project.nets.vectors import read_vectors

Readout = Literal["last", "mean", "max", "attention"]
SequenceMode = Literal["packed", "padded", "auto"]


class LSTMEncoder(nn.Module):
    """Token ids `[batch, time]` (with `vocab_size`: embedded) or values `[batch, time, num_channels]` (read as
    they are), and lengths `[batch]` → one vector per sequence `[batch, out_dim]` (`forward`), or one per step
    `[batch, time, out_dim]` (`steps`: what a tagger reads). With `alphabet_size` (linked from a DataModule whose
    tokens carry their spelling, `[batch, time, 2 + characters]`), each token's casing and characters are read
    too (`Spelling`: `char_dim`, `char_channels`, `case_dim`) beside its word's embedding. `input_dropout` drops
    the LSTM's inputs in training (what a tagger with few sentences needs, against memorising words).

    Two ways to run the LSTM over a padded batch, both exact for every direction and readout:
    - `packed`: `pack_padded_sequence` skips the padding.
    - `padded`: the LSTM runs over the padding too, and the readout gathers or masks by length. A backward
      direction would start inside the padding, so a bidirectional LSTM runs each direction on its own,
      the backward one over each sequence reversed within its length (`padded_lstm`): two calls per layer
      instead of one fused kernel. Plain tensor operations: what ONNX export traces.
    `auto` takes `padded` wherever it measured faster (benchmarks/sequence_modes.py): one-directional on
    any device (against the common belief that packing is what cuDNN wants), bidirectional on the CPU.
    Packing saves arithmetic but runs step by step over shrinking batches. A bidirectional LSTM on a GPU
    keeps `packed`: cuDNN's fused kernel for both directions, against padded's two calls per layer there,
    is not measured yet.
    """

    def __init__(
        self,
        vocab_size: int | None = None,
        embedding_dim: int = 64,
        hidden_size: int = 128,
        num_layers: int = 1,
        bidirectional: bool = False,
        dropout: float = 0.0,
        readout: Readout = "last",
        sequence_mode: SequenceMode = "auto",
        num_channels: int | None = None,
        conv_channels: int = 0,
        conv_layers: int = 2,
        conv_kernel: int = 7,
        vectors: str | None = None,
        freeze_vectors: bool = False,
        alphabet_size: int | None = None,
        char_dim: int = 25,
        char_channels: int = 50,
        case_dim: int = 4,
        input_dropout: float = 0.0,
    ) -> None:
        super().__init__()
        if (vocab_size is None) == (num_channels is None):
            raise ConfigError("an LSTM reads token ids (vocab_size) or values (num_channels): give one of them")
        if vectors and not vocab_size:
            raise ConfigError("vectors are word vectors: they need token ids (text), not values; unset vectors")
        if freeze_vectors and not vectors:
            raise ConfigError("freeze_vectors keeps vectors from a file fixed: give the file as vectors")
        self.readout, self.sequence_mode, self.bidirectional = readout, sequence_mode, bidirectional
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=0) if vocab_size else None
        self.vectors = vectors
        if vectors:  # read once, before the first step (`load_vectors`); the checkpoint carries them after that
            self.register_buffer("vectors_loaded", torch.tensor(False))
            self.embedding.weight.requires_grad_(not freeze_vectors)
        if alphabet_size and not vocab_size:
            raise ConfigError("alphabet_size spells tokens: it needs token ids (text), not values; unset it")
        self.spelling = Spelling(alphabet_size, char_dim, char_channels, case_dim) if alphabet_size else None
        self.input_dropout = nn.Dropout(input_dropout)
        width = embedding_dim + (self.spelling.out_dim if self.spelling else 0) if vocab_size else num_channels
        self.conv = MaskedConvStem(width, conv_channels, conv_layers, conv_kernel) if conv_channels else None
        self.lstm = nn.LSTM(
            conv_channels or width,
            hidden_size,
            num_layers,
            batch_first=True,
            bidirectional=bidirectional,
            dropout=dropout if num_layers > 1 else 0.0,
        )
        self.out_dim = hidden_size * (2 if bidirectional else 1)
        self.attention = AttentionPool(self.out_dim) if readout == "attention" else None

    @torch.no_grad()
    def load_vectors(self, words: list[str]) -> str:
        """Set the embedding of each of `words` (the vocabulary, by id) found in the `vectors` file to its vector; the
        words not found keep their random start, scaled to the file's spread. Returns what it did, to print."""
        weight = self.embedding.weight
        vectors, found = read_vectors(self.vectors, words, weight.shape[1])
        found[:2] = False  # padding and unknown words: not words of the text
        found = found.to(weight.device)
        if found.any():
            missing = ~found
            missing[0] = False  # the padding stays zero
            spread = vectors[found].std()
            weight[missing] *= spread / weight[missing].std().clamp_min(1e-12)
            weight[found] = vectors[found].to(weight)
        self.vectors_loaded.fill_(True)
        known = int(found.sum())
        return (
            f"word vectors from {self.vectors}: {known} of the {len(words) - 2} words of the vocabulary found "
            f"({len(words) - 2 - known} not, kept random), " + ("frozen" if not weight.requires_grad else "fine-tuned")
        )

    def mode(self, device: torch.device) -> Literal["packed", "padded"]:
        """The mode a batch on `device` runs in."""
        if self.sequence_mode != "auto":
            return self.sequence_mode
        return "packed" if self.bidirectional and device.type != "cpu" else "padded"

    def forward(self, inputs: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        if self.readout == "last" and self.mode(inputs.device) == "packed":
            # h_n comes back in the batch's original order; last layer: forward h_n[-2], backward h_n[-1].
            _, (h_n, _) = self.lstm(self._packed(inputs, lengths))
            return torch.cat([h_n[-2], h_n[-1]], dim=-1) if self.bidirectional else h_n[-1]
        outputs = self.steps(inputs, lengths)
        if self.readout == "last":
            index = (lengths - 1).view(-1, 1, 1).expand(-1, 1, outputs.shape[-1])
            last = outputs.gather(1, index).squeeze(1)  # the step at length - 1, not out[:, -1]
            if not self.bidirectional:
                return last
            # backward direction: its state after the whole sequence, which it reaches at step 0
            hidden = self.lstm.hidden_size
            return torch.cat([last[:, :hidden], outputs[:, 0, hidden:]], dim=-1)
        mask = length_mask(lengths.to(outputs.device), outputs.shape[1])
        if self.readout == "mean":
            return masked_mean(outputs, mask)
        if self.readout == "max":
            return masked_max(outputs, mask)
        return self.attention(outputs, mask)

    def steps(self, inputs: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """The outputs at every step `[batch, time, out_dim]`; past a sequence's length they mean nothing."""
        if self.mode(inputs.device) == "packed":
            packed_out, _ = self.lstm(self._packed(inputs, lengths))
            return pad_packed_sequence(packed_out, batch_first=True, total_length=inputs.shape[1])[0]
        return padded_lstm(self.lstm, self._embedded(inputs, lengths), lengths)

    def _embedded(self, inputs: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        # A check on the values: torch.export cannot trace it, and an exported model (padded) takes length 0.
        if not torch.compiler.is_exporting() and lengths.min() < 1:
            raise DataError("every sequence needs at least one step: packing cannot take length 0")
        if self.spelling is not None:
            x = torch.cat([self.embedding(inputs[..., 0]), self.spelling(inputs[..., 1:])], dim=-1)
        else:
            x = inputs if self.embedding is None else self.embedding(inputs)
        x = self.input_dropout(x)
        return x if self.conv is None else self.conv(x, lengths)

    def _packed(self, inputs: torch.Tensor, lengths: torch.Tensor) -> torch.nn.utils.rnn.PackedSequence:
        # lengths must live on the CPU even when the batch is on a GPU; Lightning moved them.
        embedded = self._embedded(inputs, lengths)
        return pack_padded_sequence(embedded, lengths.cpu(), batch_first=True, enforce_sorted=False)


class MaskedConvStem(nn.Module):
    """Convolutions over time before the LSTM (`conv_channels`: LSTM-FCN's idea, Karim et al. 2017): local shapes
    become features a step wide, which a short numeric series needs more than a word does. The padding is zeroed
    before and after each layer, so a step near a sequence's end sees zeros past it, as it would alone: batched
    and alone stay equal. No BatchNorm: its statistics would count the padding."""

    def __init__(self, in_channels: int, channels: int, layers: int, kernel: int) -> None:
        super().__init__()
        widths = [in_channels] + [channels] * layers
        self.convs = nn.ModuleList(nn.Conv1d(a, b, kernel, padding=kernel // 2) for a, b in itertools.pairwise(widths))

    def forward(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        keep = length_mask(lengths.to(x.device), x.shape[1]).unsqueeze(1).to(x.dtype)  # [batch, 1, time]
        x = x.transpose(1, 2) * keep
        for conv in self.convs:
            x = torch.relu(conv(x)) * keep
        return x.transpose(1, 2)


def padded_lstm(lstm: nn.LSTM, embedded: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """`lstm`'s outputs `[batch, time, directions * hidden]` over a padded batch, exact at the valid steps.

    One direction: the LSTM as it is (the padding comes after every valid step). Bidirectional: layer by
    layer, each direction with its own weights, the backward one over the sequences reversed within their
    lengths and reversed back, so it starts at each sequence's own last token as packing makes it do.
    """
    if not lstm.bidirectional:
        return lstm(embedded)[0]
    x = embedded
    for layer in range(lstm.num_layers):
        if layer > 0:
            x = nn.functional.dropout(x, lstm.dropout, lstm.training)
        forward = _one_direction(lstm, layer, "", x)
        backward = reverse_within_length(
            _one_direction(lstm, layer, "_reverse", reverse_within_length(x, lengths)), lengths
        )
        x = torch.cat([forward, backward], dim=-1)
    return x


def reverse_within_length(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """Each sequence of `x` `[batch, time, dim]` reversed over its first `lengths[b]` steps, padding in place."""
    steps = torch.arange(x.shape[1], device=x.device)
    index = lengths.to(x.device).unsqueeze(1) - 1 - steps
    index = torch.where(index >= 0, index, steps)
    return x.gather(1, index.unsqueeze(-1).expand(-1, -1, x.shape[-1]))


def _one_direction(lstm: nn.LSTM, layer: int, suffix: str, x: torch.Tensor) -> torch.Tensor:
    """One layer and direction of `lstm`: its weights in a one-layer LSTM (on the meta device: no memory)."""
    with torch.device("meta"):
        single = nn.LSTM(x.shape[-1], lstm.hidden_size, 1, batch_first=True, bias=lstm.bias)
    weights = {name: getattr(lstm, f"{name}_l{layer}{suffix}") for name in ("weight_ih", "weight_hh")}
    if lstm.bias:
        weights |= {name: getattr(lstm, f"{name}_l{layer}{suffix}") for name in ("bias_ih", "bias_hh")}
    return torch.func.functional_call(single, {f"{name}_l0": w for name, w in weights.items()}, (x,))[0]


class LSTMClassifier(nn.Module):
    """`LSTMEncoder` then a linear head: `(tokens [B, T] or values [B, T, C], lengths [B])` → `[B, num_outputs]`.

    `dropout` serves the encoder (between LSTM layers) and the head; every other argument is the
    encoder's (`hidden_size`, `readout`, ...), passed on by name: the CLI lists them from `LSTMEncoder`'s
    signature, so an option is added there once.

    `ngrams` (token ids only): the scores of a linear model over the text's words (1) or words and word pairs
    (2) are added to the head's (`NgramBag`), so the model starts from the baseline a practitioner runs first
    and the LSTM learns what word counts miss (docs/your-data.md: on real corpora, the LSTM alone is behind it).
    """

    def __init__(
        self,
        num_outputs: int,
        vocab_size: int | None = None,
        num_channels: int | None = None,
        dropout: float = 0.0,
        ngrams: int = 0,
        **encoder: Any,
    ) -> None:
        super().__init__()
        if ngrams and vocab_size is None:
            raise ConfigError("ngrams counts words: it needs token ids (text), not values; set ngrams: 0")
        self.features = LSTMEncoder(vocab_size=vocab_size, num_channels=num_channels, dropout=dropout, **encoder)
        self.head = nn.Sequential(nn.Dropout(dropout), nn.Linear(self.features.out_dim, num_outputs))
        self.head.apply(init_weights)
        self.bag = NgramBag(vocab_size, num_outputs, ngrams) if ngrams else None

    @torch.no_grad()
    def fit_bag(
        self, texts: list[torch.Tensor], labels: torch.Tensor, val_texts: list[torch.Tensor], val_labels: torch.Tensor
    ) -> dict[str, Any] | None:
        """Fit the bag (`NgramBag.fit`), on the CPU. Where it is kept, the head starts at zero: the untrained model is
        the baseline, and the LSTM's scores grow from there; where it is switched off, the head keeps its
        initialisation, as without one. A resumed run's bag is fitted already: only its folds are fitted again
        (they are not in checkpoints); returns None then."""
        device = self.bag.weight.device
        self.bag.cpu()
        try:
            if bool(self.bag.fitted):
                if float(self.bag.chosen_c) > 0 and self.bag.fold_weight is None:
                    self.bag.fit_folds(texts, labels)
                return None
            fitted = self.bag.fit(texts, labels, val_texts, val_labels)
        finally:
            self.bag.to(device)
        if fitted["kept"]:
            nn.init.zeros_(self.head[-1].weight)
            nn.init.zeros_(self.head[-1].bias)
        return fitted

    def forward(self, inputs: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        scores = self.head(self.features(inputs, lengths))
        return scores if self.bag is None else scores + self.bag(inputs, lengths)


class LSTMTagger(LSTMClassifier):
    """`LSTMEncoder`'s output at every step, then the linear head per step: `(tokens [B, T], lengths [B])` → scores
    `[B, T, num_outputs]`, one row of tag scores per token (what a CRF, where the task has one, reads). Each step's
    own output, not the last state: a tag belongs to its token. Options as `LSTMClassifier`'s."""

    def __init__(self, num_outputs: int, vocab_size: int | None = None, ngrams: int = 0, **options: Any) -> None:
        if ngrams:
            raise ConfigError("ngrams scores a whole text; a tagger scores each token: set ngrams: 0")
        super().__init__(num_outputs, vocab_size, **options)

    def forward(self, inputs: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        return self.head(self.features.steps(inputs, lengths))
