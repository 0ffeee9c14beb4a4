# %% [markdown]
# # 5. Troubleshooting: the diagnostics at work
#
# Every config turns on `runkit.callbacks.diagnostics.Diagnostics`. Here each classic mistake is made
# on purpose on a small model, the message it gets is shown, then the fix.

# %%
import os
import tempfile

# Runs write logs/ and data/ into the working folder: keep them out of the repository.
os.chdir(tempfile.mkdtemp(prefix="notebook-"))

# %%
import logging
import time

import lightning.pytorch as L
import torch
from runkit import TrainingProblem
from runkit.callbacks.diagnostics import Diagnostics
from runkit.callbacks.log_file import log_to_console
from runkit.model import TaskModule
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

log_to_console()  # the diagnostics' warnings, as the command line shows them
logging.getLogger("lightning.pytorch").setLevel(logging.ERROR)  # only our messages here


class Classifier(TaskModule):
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


# %% [markdown]
# ## Labels shaped `[B, 1]`
#
# A dataset that returns `[label]` gives labels `[B, 1]`; cross-entropy wants `[B]`. Without the check
# the error comes from inside the loss and names neither tensor.

# %%
fit(Classifier(net(), 3), loader(y=torch.randint(0, 3, (128, 1))))
fit(Classifier(net(), 3), loader(y=torch.randint(0, 3, (128, 1)).squeeze(1)))  # the fix

# %% [markdown]
# ## A network that ends in softmax
#
# Cross-entropy applies log-softmax itself; a softmax before it squashes the gradients.

# %%
fit(Classifier(net(final=nn.Softmax(dim=-1)), 3), loader())
fit(Classifier(net(), 3), loader())  # the fix: logits out; softmax only at prediction time

# %% [markdown]
# ## NaN
#
# One NaN in the inputs stops the run at the batch that holds it; a non-finite loss from inside the
# network names the first module whose output was non-finite.

# %%
x = torch.randn(128, 8)
x[40, 2] = float("nan")
fit(Classifier(net(), 3), loader(x=x))
fit(Classifier(net(), 3), loader(x=torch.nan_to_num(x)))  # the fix: clean the data (or find where NaN comes from)

# %% [markdown]
# ## A slow loader
#
# When most of a step is spent waiting for the next batch, the diagnostics say so with the current
# `num_workers`. The fix: more workers, or preprocessing done once and cached.


# %%
class SlowDataset(TensorDataset):
    def __getitem__(self, i):
        time.sleep(0.003)  # e.g. decoding an image from disk
        return super().__getitem__(i)


fit(Classifier(net(), 3), loader(dataset=SlowDataset(torch.randn(512, 8), torch.randint(0, 3, (512,)))))

# %% [markdown]
# ## Before a long run: `python -m project.doctor`
#
# The same checks, plus one batch's shapes, the label histogram and an overfit test, as a verdict table.

# %%
from project import doctor

exit_code = doctor.main(["--model", "cnn", "--data.num_train=256", "--data.num_val=64"])
print("exit code", exit_code)
