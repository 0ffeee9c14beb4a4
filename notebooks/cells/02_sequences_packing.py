# %% [markdown]
# # 2. Sequences: why packing (or masking) matters
#
# A batch of sequences is padded to its longest member. An LSTM run over that padded tensor keeps
# stepping through the padding, so `out[:, -1]` is the state *after* the padding for every sequence but
# the longest. On the synthetic task the class is given by the last words, so reading the wrong step
# shows directly in the accuracy.

# %%
import os
import tempfile

# Runs write logs/ and data/ into the working folder: keep them out of the repository.
os.chdir(tempfile.mkdtemp(prefix="notebook-"))

# %%
import torch

from project.cli import build

cli = build(
    "lstm",
    "--trainer.max_epochs=2",
    "--data.synthetic_samples=2000",
    "--model.net.bidirectional=false",
    "--model.net.num_layers=1",
    "--model.net.sequence_mode=padded",  # trains 4-5x faster than packed on a CPU; the weights read alike below
    "--trainer.enable_progress_bar=false",
)
model, data = cli.model, cli.datamodule
cli.trainer.fit(model, datamodule=data)

# %% [markdown]
# Three ways to read out the same trained weights: packed (the LSTM never sees padding), padded with
# the state gathered at `length - 1`, and the mistake, padded with `out[:, -1]`.

# %%
encoder, head = model.net.features, model.net.head
model.eval()


def naive_last(tokens, lengths):
    out, _ = encoder.lstm(encoder.embedding(tokens))
    return head(out[:, -1])  # the mistake: the last *padded* step


def accuracy(forward) -> float:
    right = total = 0
    with torch.no_grad():
        for tokens, lengths, labels in data.val_dataloader():
            right += (forward(tokens, lengths).argmax(-1) == labels).sum().item()
            total += len(labels)
    return right / total


results = {}
encoder.sequence_mode = "packed"
results["packed"] = accuracy(model.net)
encoder.sequence_mode = "padded"
results["padded, gathered at length - 1"] = accuracy(model.net)
results["padded, out[:, -1]"] = accuracy(naive_last)
for name, acc in results.items():
    print(f"{name:32s} {acc:.3f}")

# %% [markdown]
# ## How much of a batch is padding
#
# Lengths run from 5 to 200, so a random batch is mostly padding. Bucketing (`--data.bucketing true`)
# batches similar lengths together; the LSTM then wastes fewer steps.

# %%
import matplotlib.pyplot as plt
from runkit import BucketBatchSampler, padding_fraction
from torch.utils.data import BatchSampler, RandomSampler

lengths = data.train_set.lengths
indices = range(len(lengths))
plain = list(BatchSampler(RandomSampler(indices), 64, drop_last=True))
bucketed = list(BucketBatchSampler(RandomSampler(indices), 64, drop_last=True, lengths=lengths))
per_batch = {
    "random batches": [padding_fraction([b], lengths) for b in plain],
    "bucketed": [padding_fraction([b], lengths) for b in bucketed],
}
for name, batches in [("random batches", plain), ("bucketed", bucketed)]:
    print(f"{name:15s} padding: {padding_fraction(batches, lengths):.1%} of the cells")
plt.hist(per_batch.values(), bins=20, label=list(per_batch))
plt.xlabel("padding fraction of a batch")
plt.legend()
plt.show()

# %% [markdown]
# ## Packed against padded speed on this device
#
# Packing skips the padding's arithmetic but runs the LSTM step by step over a shrinking batch; padded
# hands the whole block to one LSTM call. Padded was the faster here on the CPU and, measured on an
# H200 with cuDNN, on the GPU too (1.0-5.7x, one-directional; the template's benchmarks/README.md, "Sequence
# modes").
# This is why `sequence_mode: auto` picks padded, but for a bidirectional LSTM on a GPU, where cuDNN fuses
# both directions in one call and padded runs each apart (the backward one reversed within each length:
# exact, but two calls per layer), unmeasured.

# %%
import time

batches = [next(iter(data.train_dataloader())) for _ in range(3)]


def seconds_per_batch(mode: str) -> float:
    encoder.sequence_mode = mode
    model.train()
    start = time.perf_counter()
    for tokens, lengths, labels in batches:
        torch.nn.functional.cross_entropy(model.net(tokens, lengths), labels).backward()
    return (time.perf_counter() - start) / len(batches)


seconds_per_batch("packed")  # warm-up
packed, padded = seconds_per_batch("packed"), seconds_per_batch("padded")
print(f"packed {packed * 1e3:.0f} ms, padded {padded * 1e3:.0f} ms per batch: padded/packed {padded / packed:.2f}")
