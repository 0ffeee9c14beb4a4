"""The training loop a careful practitioner writes without Lightning, for the parity benchmark and test.

It does the same arithmetic as `Trainer.fit` on a `ClassificationModule`: same data order, same
clipping, same schedule, evaluation in eval mode under no_grad.
"""

import time

import lightning.pytorch as L
import torch
import torch.nn.functional as F

from project.models.classifier import IGNORE, ClassificationModule


def raw_fit(
    model: ClassificationModule,
    datamodule: L.LightningDataModule,
    epochs: int,
    clip: float,
    clock: list[float] | None = None,
) -> float:
    """Train for `epochs`, evaluating after each; returns the last validation accuracy.

    `clock`, if given, gets `time.perf_counter()` at the start of each epoch and at the end.
    """
    datamodule.prepare_data()
    datamodule.setup("fit")
    train_loader, val_loader = datamodule.train_dataloader(), datamodule.val_dataloader()
    optimizer = model.optimizer([p for p in model.parameters() if p.requires_grad])
    scheduler = model.scheduler(optimizer, epochs * len(train_loader)) if model.scheduler else None
    accuracy = 0.0
    for epoch in range(epochs):
        if clock is not None:
            clock.append(time.perf_counter())
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
            inputs, target, _ = model.unpack(next(batches))
            optimizer.zero_grad()
            loss = F.cross_entropy(model(*inputs), target, ignore_index=IGNORE)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
            optimizer.step()
            if scheduler is not None:
                scheduler.step()
        model.eval()
        correct = total = 0
        with torch.no_grad():
            for batch in val_loader:
                inputs, target, _ = model.unpack(batch)
                correct += int((model(*inputs).argmax(-1) == target).sum())
                total += int(target.numel())
        accuracy = correct / max(total, 1)
    if clock is not None:
        clock.append(time.perf_counter())
    return accuracy
