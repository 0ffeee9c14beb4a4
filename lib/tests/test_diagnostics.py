"""Each diagnostics check: make the mistake on purpose, assert the message; and silence on a healthy model."""

import logging
import time

import lightning.pytorch as L
import pytest
import torch
from runkit import TrainingProblem
from runkit.callbacks import training_checks as checks
from runkit.callbacks.diagnostics import Diagnostics
from runkit.model import TaskModule
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

FEATURES, CLASSES = 8, 3


class Tiny(TaskModule):
    def unpack(self, batch):
        x, y = batch
        return (x,), y, len(x)


class MLP(nn.Module):
    def __init__(self, final: nn.Module | None = None) -> None:
        super().__init__()
        self.features = nn.Sequential(nn.Linear(FEATURES, 16), nn.ReLU())
        self.head = nn.Sequential(nn.Linear(16, CLASSES), *([final] if final is not None else []))

    def forward(self, x):
        return self.head(self.features(x))


def data(n=64, labels=None, x=None, batch_size=8, shuffle=True):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, FEATURES, generator=g) if x is None else x
    y = torch.randint(0, CLASSES, (n,), generator=g) if labels is None else labels
    return DataLoader(TensorDataset(x, y), batch_size=batch_size, shuffle=shuffle)


def fit(model, train=None, val=None, steps=4, diagnostics=None):
    diagnostics = diagnostics or Diagnostics()
    trainer = L.Trainer(
        max_steps=steps,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        num_sanity_val_steps=0,
        callbacks=[diagnostics],
    )
    trainer.fit(model, train or data(), val or data(shuffle=False))
    return diagnostics


@pytest.fixture
def warnings_logged(caplog):
    caplog.set_level(logging.WARNING, logger="runkit.callbacks.diagnostics")
    return caplog


def test_a_healthy_model_passes_every_check_silently(warnings_logged):
    # A step of this tiny MLP lasts about a millisecond: on a loaded machine, the wait between steps (Lightning's
    # own hooks included) can look like half of it. The data-speed verdict is tested on a starved loader below.
    diagnostics = Diagnostics(leak_step=10, starvation_steps=10, starvation_fraction=0.9)
    diagnostics = fit(Tiny(MLP(), CLASSES), steps=12, diagnostics=diagnostics)
    assert diagnostics.findings == []
    assert warnings_logged.records == []
    assert diagnostics.checked >= {"parameters", "splits", "labels", "logits", "finite", "gradients", "graph kept"}


def test_labels_shaped_b_by_1_stop_before_the_loss_with_both_shapes():
    labels = torch.randint(0, CLASSES, (64, 1))
    with pytest.raises(TrainingProblem, match=r"labels have shape \[8, 1\], logits \[8, 3\].*squeeze"):
        fit(Tiny(MLP(), CLASSES), train=data(labels=labels))


def test_out_of_range_class_id_is_named():
    labels = torch.zeros(64, dtype=torch.long)
    labels[3] = 7
    with pytest.raises(TrainingProblem, match=r"class id 7 is out of range for num_classes=3"):
        fit(Tiny(MLP(), CLASSES), train=data(labels=labels, shuffle=False))


def test_a_network_ending_in_softmax_is_flagged(warnings_logged):
    fit(Tiny(MLP(final=nn.Softmax(dim=-1)), CLASSES))
    assert "look like probabilities" in warnings_logged.text and "(a softmax)" in warnings_logged.text
    fit(Tiny(MLP(final=nn.LogSoftmax(dim=-1)), CLASSES))
    assert "(a log-softmax)" in warnings_logged.text


class PlainList(MLP):
    def __init__(self):
        super().__init__()
        self.extra = [nn.Linear(CLASSES, CLASSES)]  # not registered: the optimizer never sees it

    def forward(self, x):
        return self.extra[0](super().forward(x))


class MadeInForward(MLP):
    def forward(self, x):
        if not hasattr(self, "late"):
            self.late = nn.Linear(CLASSES, CLASSES)  # created after configure_optimizers
        return self.late(super().forward(x))


class Unused(MLP):
    def __init__(self):
        super().__init__()
        self.spare = nn.Linear(4, 4)


@pytest.mark.parametrize(
    ("net", "expected"),
    [
        (PlainList, r"layers kept in net\.extra \(a plain list of 1 Linear\).*nn\.ModuleList"),
        (
            MadeInForward,
            r"2 trainable parameter\(s\) are in no optimizer group after the first step \(first: net\.late",
        ),
        (Unused, r"got no gradient in the first backward \(first: net\.spare\.weight\)"),
    ],
)
def test_parameters_the_optimizer_never_sees(warnings_logged, net, expected):
    fit(Tiny(net(), CLASSES))
    assert any(__import__("re").search(expected, r.getMessage()) for r in warnings_logged.records), warnings_logged.text


def test_nan_in_the_inputs_names_the_batch():
    x = torch.randn(64, FEATURES)
    x[20, 3] = float("nan")
    with pytest.raises(TrainingProblem, match=r"training batch 2 .*NaN or inf in batch\[0\] \(1 NaN, 0 inf\).*tenfold"):
        fit(Tiny(MLP(), CLASSES), train=data(x=x, shuffle=False), diagnostics=Diagnostics(check_batches=1))


def test_a_sparser_nan_check_still_stops_and_says_the_weights_diverged():
    x = torch.randn(64, FEATURES)
    x[20, 3] = float("nan")  # in batch 2, which a check every 3 steps skips
    with pytest.raises(TrainingProblem, match=r"training batch 3 \(step 3\).*weights are already non-finite"):
        fit(Tiny(MLP(), CLASSES), train=data(x=x, shuffle=False), diagnostics=Diagnostics(1, finite_check_every=3))


class Boom(nn.Module):
    def forward(self, x):
        return x.abs().log() * 0 if self.training else x  # log(0) * 0 = NaN where x == 0


class NanLayer(MLP):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(FEATURES, 16), nn.ReLU(), Boom())


def test_non_finite_loss_names_the_first_module_that_produced_it():
    with pytest.raises(
        TrainingProblem,
        match=r"loss of training batch 0 \(step 0\) is nan; the first module .* net\.features\.2 \(Boom\)",
    ):
        fit(Tiny(NanLayer(), CLASSES))


class SqrtAtZero(nn.Module):
    def forward(self, x):
        return (x * 0).sqrt() + x  # the value is x, but the gradient of sqrt at 0 is inf, and inf * 0 is NaN


class NanGrad(MLP):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(FEATURES, 16), SqrtAtZero(), nn.ReLU())


def test_non_finite_gradients_with_a_finite_loss_are_named():
    with pytest.raises(TrainingProblem, match=r"gradients of training batch 0 .* non-finite, first in grad\.net\."):
        fit(Tiny(NanGrad(), CLASSES))


class Slow(TensorDataset):
    def __getitem__(self, i):
        time.sleep(0.004)
        return super().__getitem__(i)


def test_a_starved_model_is_told_to_raise_num_workers(warnings_logged):
    loader = DataLoader(Slow(torch.randn(256, FEATURES), torch.randint(0, CLASSES, (256,))), batch_size=8)
    fit(Tiny(MLP(), CLASSES), train=loader, steps=12, diagnostics=Diagnostics(starvation_steps=12))
    assert "spent waiting for the next batch (num_workers=0)" in warnings_logged.text


def test_shared_or_shuffled_validation_data_is_flagged(warnings_logged):
    loader = data()
    fit(Tiny(MLP(), CLASSES), train=loader, val=loader)
    assert "the training and validation loaders are the same object" in warnings_logged.text
    assert "the validation loader shuffles" in warnings_logged.text
    samples = [(torch.randn(FEATURES), 0) for _ in range(40)]
    train, val = DataLoader(samples[:30], batch_size=8), DataLoader(samples[20:], batch_size=8)
    assert checks.shared_samples(train, val) == "10 of the 20 validation samples are also training samples"


class TrainModeInValidation(Tiny):
    def validation_step(self, batch, batch_idx):
        self.net.train()  # the mistake
        return super().validation_step(batch, batch_idx)


def test_a_module_in_train_mode_during_validation_is_flagged(warnings_logged):
    fit(TrainModeInValidation(MLP(), CLASSES), steps=8)  # one epoch, then validation
    assert "in train mode during validation (first: net)" in warnings_logged.text


class KeepsLosses(Tiny):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.history = []

    def training_step(self, batch, batch_idx):
        loss = super().training_step(batch, batch_idx)
        self.history.append(loss)  # the mistake: keeps every step's graph
        return loss


def test_graphs_kept_across_steps_are_flagged(warnings_logged):
    fit(KeepsLosses(MLP(), CLASSES), steps=6, diagnostics=Diagnostics(leak_step=5))
    assert "history (5 tensor(s) with grad_fn) keep(s) tensors with their autograd graph" in warnings_logged.text


def test_memory_growth_needs_a_steady_rise():
    mib = 2**20
    assert checks.memory_grows([0, 10 * mib, 20 * mib, 30 * mib])
    assert not checks.memory_grows([0, 10 * mib, 5 * mib, 30 * mib])  # freed in between: no leak
    assert not checks.memory_grows([0, 1, 2, 3])  # a few bytes: noise
