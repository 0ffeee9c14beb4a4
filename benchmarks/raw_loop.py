"""The training loop a careful practitioner writes without Lightning, for the parity benchmark and test.

It does the same arithmetic as `Trainer.fit` on a `TaskModule`: same data order, same clipping, same
schedule, BatchNorm's statistics recomputed where the Trainer does, evaluation in eval mode under no_grad; on a
GPU, each batch moved there and the forward pass under bf16 autocast when asked, as Lightning's `bf16-mixed` does.
"""

import contextlib
import time
from typing import Any

import lightning.pytorch as L
import torch
import torch.nn.functional as F
from lightning.fabric.utilities.apply_func import move_data_to_device
from runkit import offers
from runkit.batchnorm import recompute_statistics, trained_batchnorms
from runkit.model import TaskModule
from runkit.tasks import IGNORE


def tick(clock: list[float], device: torch.device) -> None:
    """A timestamp once the device has finished its queued work (CUDA kernels run asynchronously)."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    clock.append(time.perf_counter())


def raw_fit(
    model: TaskModule,
    datamodule: L.LightningDataModule,
    epochs: int,
    clip: float,
    clock: list[float] | None = None,
    device: str = "cpu",
    bf16: bool = False,
    batchnorm_images: int = 0,
) -> float:
    """Train for `epochs`, evaluating after each; returns the last validation accuracy.

    `clock`, if given, gets `time.perf_counter()` at the start of each epoch and at the end. `batchnorm_images`:
    BatchNorm's statistics recomputed from this many training samples before each validation, as the
    Trainer's `PreciseBatchNorm` does (`precise_batchnorm_images(trainer)`); 0: not.
    """
    target_device = torch.device(device)
    datamodule.prepare_data()
    datamodule.setup("fit")
    train_loader, val_loader = datamodule.train_dataloader(), datamodule.val_dataloader()
    if hasattr(model, "fit_ngrams"):  # the text model's word vectors and TF-IDF + LR, set before the first step
        model.load_vectors(datamodule)
        model.fit_ngrams(datamodule)
    model.to(target_device)
    optimizer = model.optimizer([p for p in model.parameters() if p.requires_grad])
    scheduler = model.scheduler(optimizer, epochs * len(train_loader)) if model.scheduler else None

    def autocast() -> contextlib.AbstractContextManager:
        return torch.autocast(target_device.type, dtype=torch.bfloat16) if bf16 else contextlib.nullcontext()

    accuracy = 0.0
    for epoch in range(epochs):
        if clock is not None:
            tick(clock, target_device)
        model.train()
        # The sampler's order is a function of (seed, epoch), as DistributedSampler's: set the epoch, as Lightning does.
        sampler = getattr(train_loader.batch_sampler, "sampler", train_loader.sampler)
        if hasattr(sampler, "set_epoch"):
            sampler.set_epoch(epoch)
        batches = iter(train_loader)
        # Not `for batch in train_loader`: with torch's RandomSampler that makes one more next() at the end of
        # the epoch, which draws from the seeded generator once more than Lightning does when the batches
        # divide the data evenly, so from epoch 2 the data order would differ.
        for _ in range(len(train_loader)):
            inputs, target, _ = model.unpack(move_data_to_device(next(batches), target_device))
            optimizer.zero_grad()
            with autocast():
                loss = F.cross_entropy(model(*inputs), target, ignore_index=IGNORE)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
            optimizer.step()
            if scheduler is not None:
                scheduler.step()
        model.eval()
        # Where the Trainer recomputes BatchNorm's statistics before each validation (PreciseBatchNorm), so does this.
        statistics = offers(datamodule).statistics_batches(batchnorm_images) if batchnorm_images else None
        if statistics is not None:

            def forward(batch: Any) -> None:
                with autocast():
                    model(*model.unpack(move_data_to_device(batch, target_device))[0])

            recompute_statistics(trained_batchnorms(model), forward, statistics)
        correct = total = torch.zeros((), device=target_device)  # summed on the device: no sync per batch
        with torch.no_grad():
            for batch in val_loader:
                inputs, target, _ = model.unpack(move_data_to_device(batch, target_device))
                with autocast():
                    correct = correct + (model(*inputs).argmax(-1) == target).sum()
                total = total + (target != IGNORE).sum()
        accuracy = correct.item() / max(total.item(), 1)
    if clock is not None:
        tick(clock, target_device)
    return accuracy
