"""Padding must never leak: every sequence in a batch gives what it gives alone."""

import itertools

import lightning.pytorch as L
import pytest
import torch

from project.nets.lstm import LSTMClassifier, LSTMEncoder, reverse_within_length

LENGTHS = torch.tensor([1, 23, 4, 60, 9])
READOUTS = ["last", "mean", "max", "attention"]
# (bidirectional, mode): both modes exact in both directions (padded: the backward direction reversed within length).
VALID = [(False, "packed"), (False, "padded"), (True, "packed"), (True, "padded")]


def encoder(readout: str, bidirectional: bool, mode: str) -> LSTMEncoder:
    torch.manual_seed(0)
    net = LSTMEncoder(50, 8, 16, num_layers=2, bidirectional=bidirectional, readout=readout, sequence_mode=mode)
    return net.eval()


def padded_batch(lengths: torch.Tensor, pad_with_random: bool = False) -> torch.Tensor:
    gen = torch.Generator().manual_seed(1)
    tokens = torch.randint(2, 50, (len(lengths), int(lengths.max())), generator=gen)
    padding = torch.arange(tokens.shape[1]) >= lengths.unsqueeze(1)
    fill = torch.randint(0, 50, tokens.shape, generator=gen) if pad_with_random else torch.zeros_like(tokens)
    return torch.where(padding, fill, tokens)


@pytest.mark.parametrize(("readout", "setting"), list(itertools.product(READOUTS, VALID)))
def test_each_sequence_equals_itself_run_alone(readout, setting):
    bidirectional, mode = setting
    net, tokens = encoder(readout, bidirectional, mode), padded_batch(LENGTHS)
    with torch.no_grad():
        batched = net(tokens, LENGTHS)
        for i, n in enumerate(LENGTHS.tolist()):
            alone = net(tokens[i : i + 1, :n], LENGTHS[i : i + 1])
            torch.testing.assert_close(batched[i : i + 1], alone, atol=1e-6, rtol=1e-6)


@pytest.mark.parametrize(("readout", "setting"), list(itertools.product(READOUTS, VALID)))
def test_padding_token_values_change_nothing(readout, setting):
    net = encoder(readout, *setting)
    with torch.no_grad():
        clean = net(padded_batch(LENGTHS), LENGTHS)
        noisy = net(padded_batch(LENGTHS, pad_with_random=True), LENGTHS)
    assert torch.equal(clean, noisy)


@pytest.mark.parametrize(("readout", "setting"), list(itertools.product(READOUTS, VALID)))
def test_no_gradient_reaches_a_padding_position(readout, setting):
    net = encoder(readout, *setting)
    embedded = []

    def keep(module, inputs, output):
        output.retain_grad()
        embedded.append(output)

    net.embedding.register_forward_hook(keep)
    net(padded_batch(LENGTHS, pad_with_random=True), LENGTHS).sum().backward()
    grad = embedded[0].grad  # [batch, time, embedding_dim]
    padding = torch.arange(grad.shape[1]) >= LENGTHS.unsqueeze(1)
    assert torch.all(grad[padding] == 0)
    assert grad[~padding].abs().sum() > 0
    if readout != "max":  # max pooling's gradient flows only through each feature's argmax step
        assert torch.all(grad[~padding].abs().sum(-1) > 0)  # every real token gets one


@pytest.mark.parametrize("readout", READOUTS)
def test_padded_equals_packed_for_a_bidirectional_lstm(readout):
    """The padded mode's backward direction starts at each sequence's last token, as packing's does."""
    tokens = padded_batch(LENGTHS, pad_with_random=True)
    with torch.no_grad():
        padded = encoder(readout, True, "padded")(tokens, LENGTHS)
        packed = encoder(readout, True, "packed")(tokens, LENGTHS)
    torch.testing.assert_close(padded, packed, atol=1e-6, rtol=1e-6)


def test_reversing_within_length_twice_gives_the_batch_back_and_keeps_the_padding():
    x = torch.arange(2 * 4, dtype=torch.float).view(2, 4, 1)
    lengths = torch.tensor([3, 1])
    once = reverse_within_length(x, lengths)
    assert once[:, :, 0].tolist() == [[2, 1, 0, 3], [4, 5, 6, 7]]
    assert torch.equal(reverse_within_length(once, lengths), x)


@pytest.mark.parametrize("bidirectional", [False, True])
def test_auto_picks_padded_where_it_measured_faster_and_computes_what_packed_does(bidirectional):
    auto = encoder("last", bidirectional, "auto")
    assert auto.mode(torch.device("cpu")) == "padded"
    assert auto.mode(torch.device("cuda")) == ("packed" if bidirectional else "padded")
    tokens = padded_batch(LENGTHS)
    with torch.no_grad():
        torch.testing.assert_close(auto(tokens, LENGTHS), encoder("last", bidirectional, "packed")(tokens, LENGTHS))


def test_last_readout_of_a_bidirectional_lstm_joins_both_directions():
    net = encoder("last", True, "packed")
    tokens = padded_batch(LENGTHS)
    with torch.no_grad():
        out = net(tokens, LENGTHS)
        i, n = 3, int(LENGTHS[3])
        full, _ = net.lstm(net.embedding(tokens[i : i + 1, :n]))
    hidden = net.lstm.hidden_size
    # forward direction: its output at the last step; backward direction: its output at step 0.
    torch.testing.assert_close(out[i, :hidden], full[0, n - 1, :hidden])
    torch.testing.assert_close(out[i, hidden:], full[0, 0, hidden:])


class HugeLoss(L.LightningModule):
    """An LSTM whose loss is scaled by 1e6, so its raw gradient norm is far above any max_norm."""

    def __init__(self, vocab_size: int, num_classes: int) -> None:
        super().__init__()
        self.net = LSTMClassifier(num_classes, vocab_size, embedding_dim=8, hidden_size=16)
        self.norms: dict[str, list[float]] = {"before": [], "after": []}

    def training_step(self, batch, batch_idx):
        tokens, lengths, labels = batch
        return 1e6 * torch.nn.functional.cross_entropy(self.net(tokens, lengths), labels)

    def on_before_optimizer_step(self, optimizer):
        self.norms["before"].append(_grad_norm(self))  # Lightning clips after this hook

    def configure_gradient_clipping(self, optimizer, gradient_clip_val=None, gradient_clip_algorithm=None):
        super().configure_gradient_clipping(optimizer, gradient_clip_val, gradient_clip_algorithm)
        self.norms["after"].append(_grad_norm(self))  # what the optimizer step will see

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=1e-3)


def _grad_norm(module: torch.nn.Module) -> float:
    return torch.linalg.vector_norm(torch.stack([p.grad.norm() for p in module.parameters() if p.grad is not None]))


def test_gradient_clipping_by_norm_bounds_the_step():
    from project.cli import build

    config = build("lstm", "--trainer.logger=false", "--data.synthetic_samples=200")
    max_norm = config.trainer.gradient_clip_val
    assert max_norm == 1.0 and config.trainer.gradient_clip_algorithm == "norm"  # on by default
    model = HugeLoss(config.datamodule.vocab_size, config.datamodule.num_classes)
    trainer = L.Trainer(
        max_steps=3, gradient_clip_val=max_norm, logger=False, enable_checkpointing=False, enable_progress_bar=False
    )
    trainer.fit(model, config.datamodule)
    assert min(model.norms["before"]) > 100 * max_norm
    assert max(model.norms["after"]) <= max_norm * (1 + 1e-5)
