# %% [markdown]
# # 3. CNNs: receptive field and convolution types
#
# How much of the image one output unit of the last conv layer sees, and what grouped and
# depthwise-separable convolutions trade against standard ones.
#
# The network pools globally before its head, so the head sees only what one unit of the last conv
# layer sees. Three stages see 9×9 pixels of a 32×32 image: enough to count the local textures that
# tell the generated shapes apart, not to recognise a digit (val acc 0.65 on real digit scans). By
# default (`depth: auto`) `SimpleCNN` builds as many stages as it takes to cover the input.

# %%
import os
import tempfile

# Runs write logs/ and data/ into the working folder: keep them out of the repository.
os.chdir(tempfile.mkdtemp(prefix="notebook-"))

# %%
import matplotlib.pyplot as plt
from runkit.receptive import receptive_fields

from project.nets.cnn import SimpleCNN

for depth in [3, "auto"]:
    net = SimpleCNN(num_outputs=4, depth=depth, image_size=32)
    fields = receptive_fields(net)
    print(f"depth {depth}:")
    for field in fields:
        print(f"  {field.name:28s} receptive field {field.receptive_field:3d} px, jump {field.jump}")
    plt.plot([f.receptive_field for f in fields], marker="o", label=f"depth {depth}")
plt.axhline(32, color="gray", linestyle="--", label="input size 32")
plt.xticks(range(len(fields)), [f.name for f in fields], rotation=60)
plt.ylabel("receptive field (px)")
plt.legend()
plt.show()

# %% [markdown]
# ## Standard, grouped and depthwise-separable blocks on the shapes task
#
# Same widths, same training; parameters, time per training step and validation accuracy.

# %%
import time

import torch

from project.cli import build

rows = []
for kind in ["standard", "grouped", "depthwise_separable"]:
    cli = build(
        "cnn",
        "--model.net=project.nets.cnn.SimpleCNN",
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

# %% [markdown]
# ## BatchNorm: train mode depends on the batch
#
# In train mode BatchNorm normalises with the batch's own statistics, so one image's output changes
# with the other images in its batch. In eval mode it uses the running statistics: the output is the
# image's alone. Lightning switches the mode for you around validation and prediction.

# %%
torch.manual_seed(0)
image = torch.randn(1, 3, 32, 32)
batch_a = torch.cat([image, torch.randn(7, 3, 32, 32)])
batch_b = torch.cat([image, torch.randn(7, 3, 32, 32) * 3])
for mode in ["train", "eval"]:
    getattr(net, mode)()
    with torch.no_grad():
        difference = (net(batch_a)[0] - net(batch_b)[0]).abs().max().item()
    print(f"{mode:5s} mode: the same image's logits differ by {difference:.4f} between two batches")
