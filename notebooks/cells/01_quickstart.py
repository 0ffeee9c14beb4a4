# %% [markdown]
# # 1. Quickstart: configure, train, look, predict
#
# `python -m project.fit --model cnn` does four things: it composes a config, builds a DataModule and a
# model from it, trains them with Lightning's Trainer, and leaves logs and checkpoints behind. Here each
# step is one cell, with the same objects.

# %%
import os
import tempfile

# Runs write logs/ and data/ into the working folder: keep them out of the repository.
os.chdir(tempfile.mkdtemp(prefix="notebook-"))

# %% [markdown]
# `build` composes exactly what the command line would (`configs/trainer.yaml`, `configs/cnn.yaml`, then
# the overrides) without running it. The overrides shrink the run to seconds.

# %%
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

# %%
trainer.fit(model, datamodule=data)
checkpoint = trainer.checkpoint_callback
print(f"best val/acc {checkpoint.best_model_score:.3f} in {checkpoint.best_model_path}")

# %% [markdown]
# ## Learning curves from the run's TensorBoard files
#
# `tensorboard --logdir logs` shows them interactively; the event files are plain data too.

# %%
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

# %% [markdown]
# ## Load the best checkpoint and predict
#
# The checkpoint holds the network's config (its class path and arguments), so `load_from_checkpoint`
# needs nothing else. `predict_step` returns probabilities, the predicted class and its confidence.

# %%
import torch

from project.models.image import ImageModel

best = ImageModel.load_from_checkpoint(checkpoint.best_model_path).eval()
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
