"""Writes the teaching notebooks from the cell sources below: `python notebooks/build_notebooks.py`.

Notebooks are stored without outputs; the test suite executes them (nbmake). Edit the cells here,
rebuild, and commit both, so a diff of a notebook is a diff of plain Python.
"""

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent
SETUP = """\
import os
import tempfile

# Runs write logs/ and data/ into the working folder: keep them out of the repository.
os.chdir(tempfile.mkdtemp(prefix="notebook-"))"""


def md(text: str):
    return new_markdown_cell(text.strip())


def code(text: str):
    return new_code_cell(text.strip())


QUICKSTART = [
    md("""
# 1. Quickstart: configure, train, look, predict

`python -m project.fit --model cnn` does four things: it composes a config, builds a DataModule and a
model from it, trains them with Lightning's Trainer, and leaves logs and checkpoints behind. Here each
step is one cell, with the same objects.
"""),
    code(SETUP),
    md("""
`build` composes exactly what the command line would (`configs/trainer.yaml`, `configs/cnn.yaml`, then
the overrides) without running it. The overrides shrink the run to seconds.
"""),
    code("""
from project.cli import build

cli = build(
    "cnn",
    "--trainer.max_epochs=4",
    "--data.num_train=2000",
    "--data.num_val=500",
    "--trainer.enable_progress_bar=false",
)
model, data, trainer = cli.model, cli.datamodule, cli.trainer
print(type(model).__name__, "with", sum(p.numel() for p in model.parameters()), "parameters")
print(type(data).__name__, "with classes", data.class_names)
"""),
    code("""
trainer.fit(model, datamodule=data)
checkpoint = trainer.checkpoint_callback
print(f"best val/acc {checkpoint.best_model_score:.3f} in {checkpoint.best_model_path}")
"""),
    md("""
## Learning curves from the run's TensorBoard files

`tensorboard --logdir logs` shows them interactively; the event files are plain data too.
"""),
    code("""
import matplotlib.pyplot as plt
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

events = EventAccumulator(trainer.log_dir)
events.Reload()
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3))
for tag, ax in [("train/loss", left), ("val/loss", left), ("train/acc", right), ("val/acc", right)]:
    points = events.Scalars(tag)
    ax.plot([p.step for p in points], [p.value for p in points], marker="o", label=tag)
for ax in (left, right):
    ax.set_xlabel("step")
    ax.legend()
plt.show()
"""),
    md("""
## Load the best checkpoint and predict

The checkpoint holds the network's config (its class path and arguments), so `load_from_checkpoint`
needs nothing else. `predict_step` returns probabilities, the predicted class and its confidence.
"""),
    code("""
import torch

from project.models.image import ImageClassifier

best = ImageClassifier.load_from_checkpoint(checkpoint.best_model_path).eval()
images, labels = next(iter(data.val_dataloader()))
with torch.no_grad():
    out = best.predict_step((images, labels), 0)
print(f"accuracy on one validation batch: {(out['pred'] == labels).float().mean():.3f}")

fig, axes = plt.subplots(1, 8, figsize=(12, 2))
for ax, image, pred, conf in zip(axes, images, out["pred"], out["confidence"], strict=False):  # the first 8
    ax.imshow((image * 0.5 + 0.5).permute(1, 2, 0).clamp(0, 1))
    ax.set_title(f"{data.class_names[pred]} {conf:.2f}", fontsize=8)
    ax.axis("off")
plt.show()
"""),
]

SEQUENCES = [
    md("""
# 2. Sequences: why packing (or masking) matters

A batch of sequences is padded to its longest member. An LSTM run over that padded tensor keeps
stepping through the padding, so `out[:, -1]` is the state *after* the padding for every sequence but
the longest. On the synthetic task the class is given by the last words, so reading the wrong step
shows directly in the accuracy.
"""),
    code(SETUP),
    code("""
import torch

from project.cli import build

cli = build(
    "lstm",
    "--trainer.max_epochs=2",
    "--data.synthetic_samples=2000",
    "--model.net.bidirectional=false",
    "--model.net.num_layers=1",
    "--model.net.sequence_mode=packed",
    "--trainer.enable_progress_bar=false",
)
model, data = cli.model, cli.datamodule
cli.trainer.fit(model, datamodule=data)
"""),
    md("""
Three ways to read out the same trained weights: packed (the LSTM never sees padding), padded with
the state gathered at `length - 1`, and the mistake, padded with `out[:, -1]`.
"""),
    code("""
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
"""),
    md("""
## How much of a batch is padding

Lengths run from 5 to 200, so a random batch is mostly padding. Bucketing (`--data.bucketing true`)
batches similar lengths together; the LSTM then wastes fewer steps.
"""),
    code("""
import matplotlib.pyplot as plt
from torch.utils.data import BatchSampler, RandomSampler

from project.data.sequence_batching import BucketBatchSampler, padding_fraction

lengths = data.train_set.lengths
indices = range(len(lengths))
plain = list(BatchSampler(RandomSampler(indices), 64, drop_last=True))
bucketed = list(BucketBatchSampler(RandomSampler(indices), 64, drop_last=True, lengths=lengths, seed=0))
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
"""),
    md("""
## Packed against padded speed on this device

On a GPU cuDNN runs packed sequences natively; on a CPU the padded run is usually faster. This is why
`sequence_mode: auto` picks padded (exact for a one-directional LSTM) on the CPU and packed elsewhere.
"""),
    code("""
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
"""),
]

CNNS = [
    md("""
# 3. CNNs: receptive field and convolution types

How much of the image one output unit of the last conv layer sees, and what grouped and
depthwise-separable convolutions trade against standard ones.
"""),
    code(SETUP),
    code("""
import matplotlib.pyplot as plt

from project.nets.cnn import SimpleCNN
from project.nets.receptive_field import receptive_fields

net = SimpleCNN(num_classes=4)
fields = receptive_fields(net)
for field in fields:
    print(f"{field.name:28s} receptive field {field.receptive_field:3d} px, jump {field.jump}")
plt.plot([f.receptive_field for f in fields], marker="o")
plt.axhline(32, color="gray", linestyle="--", label="input size 32")
plt.xticks(range(len(fields)), [f.name for f in fields], rotation=60)
plt.ylabel("receptive field (px)")
plt.legend()
plt.show()
"""),
    md("""
## Standard, grouped and depthwise-separable blocks on the shapes task

Same widths, same training; parameters, time per training step and validation accuracy.
"""),
    code("""
import time

import torch

from project.cli import build

rows = []
for kind in ["standard", "grouped", "depthwise_separable"]:
    cli = build(
        "cnn",
        f"--model.net.conv={kind}",
        "--trainer.max_epochs=4",
        "--data.num_train=2000",
        "--data.num_val=500",
        "--trainer.enable_progress_bar=false",
        "--trainer.enable_model_summary=false",
    )
    start = time.perf_counter()
    cli.trainer.fit(cli.model, datamodule=cli.datamodule)
    step = (time.perf_counter() - start) / cli.trainer.global_step
    params = sum(p.numel() for p in cli.model.net.parameters())
    rows.append((kind, params, step * 1e3, cli.trainer.callback_metrics["val/acc"].item()))
print(f"{'conv':22s} {'params':>8s} {'ms/step':>8s} {'val acc':>8s}")
for kind, params, ms, acc in rows:
    print(f"{kind:22s} {params:8d} {ms:8.1f} {acc:8.3f}")
"""),
    md("""
## BatchNorm: train mode depends on the batch

In train mode BatchNorm normalises with the batch's own statistics, so one image's output changes
with the other images in its batch. In eval mode it uses the running statistics: the output is the
image's alone. Lightning switches the mode for you around validation and prediction.
"""),
    code("""
torch.manual_seed(0)
image = torch.randn(1, 3, 32, 32)
batch_a = torch.cat([image, torch.randn(7, 3, 32, 32)])
batch_b = torch.cat([image, torch.randn(7, 3, 32, 32) * 3])
for mode in ["train", "eval"]:
    getattr(net, mode)()
    with torch.no_grad():
        difference = (net(batch_a)[0] - net(batch_b)[0]).abs().max().item()
    print(f"{mode:5s} mode: the same image's logits differ by {difference:.4f} between two batches")
"""),
]

GRAPHS = [
    md("""
# 4. Graphs: message passing by hand

A GCN layer computes H' = D^-1/2 (A + I) D^-1/2 H W. Step by step on a small graph, then the same
with our edge-list layer and with PyG's `GCNConv`, then a batch of graphs, then training.
"""),
    code(SETUP),
    code("""
import torch

edge_index = torch.tensor([[0, 1, 1, 2, 2, 3, 3, 0, 3, 4], [1, 0, 2, 1, 3, 2, 0, 3, 4, 3]])  # both directions
n = 5
A = torch.zeros(n, n)
A[edge_index[0], edge_index[1]] = 1
A_hat = A + torch.eye(n)  # self-loops: a node keeps its own features
degree = A_hat.sum(dim=1)
D_inv_sqrt = torch.diag(degree.rsqrt())
norm = D_inv_sqrt @ A_hat @ D_inv_sqrt  # symmetric normalisation: sums do not grow with the degree
print("A + I:\\n", A_hat, "\\ndegrees:", degree, "\\nD^-1/2 (A + I) D^-1/2:\\n", norm.round(decimals=3))
"""),
    md("""
`gcn_norm` computes the same weights on the edge list, never building the N×N matrix.
"""),
    code("""
from project.nets.gcn_layer import gcn_norm

edges, weights = gcn_norm(edge_index, None, n)
dense = torch.zeros(n, n)
dense[edges[1], edges[0]] = weights
print("equal to the dense normalisation:", torch.allclose(dense, norm))
"""),
    code("""
from torch_geometric.nn import GCNConv

from project.nets.gcn_layer import GCNLayer

x = torch.randn(n, 8)
ours, pyg = GCNLayer(8, 4), GCNConv(8, 4)
with torch.no_grad():
    pyg.lin.weight.copy_(ours.lin.weight)
    pyg.bias.copy_(ours.bias)
print("GCNLayer equals GCNConv:", torch.allclose(ours(x, edge_index), pyg(x, edge_index), atol=1e-6))
print("and by hand:", torch.allclose(ours(x, edge_index), norm @ x @ ours.lin.weight.T + ours.bias, atol=1e-6))
"""),
    md("""
## A batch of graphs is one block-diagonal graph

PyG's `Batch` stacks the node features and offsets each graph's edge indices, so no edge joins two
graphs; the `batch` vector says which graph each node belongs to, for pooling.
"""),
    code("""
import matplotlib.pyplot as plt
from torch_geometric.data import Batch
from torch_geometric.utils import to_dense_adj

from project.data.synthetic_graphs import structure_graphs

graphs = structure_graphs(3, min_nodes=10, max_nodes=20, seed=1)
batch = Batch.from_data_list(graphs)
print(batch)
plt.imshow(to_dense_adj(batch.edge_index, max_num_nodes=batch.num_nodes)[0], cmap="Greys")
plt.title("adjacency of a batch of 3 graphs")
plt.show()
"""),
    md("""
## Train the graph classifier

The class is the family that generated the graph; node features are constant, so only the
structure tells them apart.
"""),
    code("""
from project.cli import build

cli = build("gcn", "--trainer.max_epochs=20", "--trainer.enable_progress_bar=false")
cli.trainer.fit(cli.model, datamodule=cli.datamodule)
print(f"val/acc {cli.trainer.callback_metrics['val/acc']:.3f} (chance: 0.25)")
"""),
]

TROUBLESHOOTING = [
    md("""
# 5. Troubleshooting: the diagnostics at work

Every config turns on `project.callbacks.diagnostics.Diagnostics`. Here each classic mistake is made
on purpose on a small model, the message it gets is shown, then the fix.
"""),
    code(SETUP),
    code("""
import logging
import time

import lightning.pytorch as L
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from project.callbacks.diagnostics import Diagnostics
from project.callbacks.log_file import log_to_console
from project.callbacks.training_checks import TrainingProblem
from project.models.classifier import ClassificationModule

log_to_console()  # the diagnostics' warnings, as the command line shows them
logging.getLogger("lightning.pytorch").setLevel(logging.ERROR)  # only our messages here


class Classifier(ClassificationModule):
    def unpack(self, batch):
        x, y = batch
        return (x,), y, len(x)


def net(final=None):
    layers = [nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3)]
    return nn.Sequential(*layers, *([final] if final else []))


def loader(x=None, y=None, dataset=None):
    torch.manual_seed(0)
    x = torch.randn(128, 8) if x is None else x
    y = torch.randint(0, 3, (128,)) if y is None else y
    return DataLoader(dataset or TensorDataset(x, y), batch_size=16)


def fit(model, train):
    trainer = L.Trainer(
        max_steps=30,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        callbacks=[Diagnostics()],
    )
    try:
        trainer.fit(model, train, loader())
        print("finished")
    except TrainingProblem as problem:
        print("stopped:", problem)
"""),
    md("""
## Labels shaped `[B, 1]`

A dataset that returns `[label]` gives labels `[B, 1]`; cross-entropy wants `[B]`. Without the check
the error comes from inside the loss and names neither tensor.
"""),
    code("""
fit(Classifier(net(), 3), loader(y=torch.randint(0, 3, (128, 1))))
fit(Classifier(net(), 3), loader(y=torch.randint(0, 3, (128, 1)).squeeze(1)))  # the fix
"""),
    md("""
## A network that ends in softmax

Cross-entropy applies log-softmax itself; a softmax before it squashes the gradients.
"""),
    code("""
fit(Classifier(net(final=nn.Softmax(dim=-1)), 3), loader())
fit(Classifier(net(), 3), loader())  # the fix: logits out; softmax only at prediction time
"""),
    md("""
## NaN

One NaN in the inputs stops the run at the batch that holds it; a non-finite loss from inside the
network names the first module whose output was non-finite.
"""),
    code("""
x = torch.randn(128, 8)
x[40, 2] = float("nan")
fit(Classifier(net(), 3), loader(x=x))
fit(Classifier(net(), 3), loader(x=torch.nan_to_num(x)))  # the fix: clean the data (or find where NaN comes from)
"""),
    md("""
## A slow loader

When most of a step is spent waiting for the next batch, the diagnostics say so with the current
`num_workers`. The fix: more workers, or preprocessing done once and cached.
"""),
    code("""
class SlowDataset(TensorDataset):
    def __getitem__(self, i):
        time.sleep(0.003)  # e.g. decoding an image from disk
        return super().__getitem__(i)


fit(Classifier(net(), 3), loader(dataset=SlowDataset(torch.randn(512, 8), torch.randint(0, 3, (512,)))))
"""),
    md("""
## Before a long run: `python -m project.doctor`

The same checks, plus one batch's shapes, the label histogram and an overfit test, as a verdict table.
"""),
    code("""
from project import doctor

exit_code = doctor.main(["--model", "cnn", "--data.num_train=256", "--data.num_val=64"])
print("exit code", exit_code)
"""),
]

NOTEBOOKS = {
    "01_quickstart.ipynb": QUICKSTART,
    "02_sequences_packing.ipynb": SEQUENCES,
    "03_cnn_receptive_field.ipynb": CNNS,
    "04_graphs_message_passing.ipynb": GRAPHS,
    "05_troubleshooting.ipynb": TROUBLESHOOTING,
}


def main() -> None:
    for name, cells in NOTEBOOKS.items():
        notebook = new_notebook(cells=cells)
        for i, cell in enumerate(notebook.cells):
            cell.id = f"cell-{i:02d}"  # stable ids: a rebuild changes only what changed
        notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbformat.write(notebook, HERE / name)


if __name__ == "__main__":
    main()
