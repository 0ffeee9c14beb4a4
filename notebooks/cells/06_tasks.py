# %% [markdown]
# # 6. Tasks: multiclass, multilabel, regression
#
# The same network can be trained for three tasks; what changes is the loss on its raw outputs, and
# mixing them up is one of the classic reasons a model learns nothing or returns NaN. Here: the three
# losses on the same toy data, the MSE broadcasting trap with numbers, and a forecast against the
# seasonal-naive baseline it must beat.

# %%
import os
import tempfile

# Runs write logs/ and data/ into the working folder: keep them out of the repository.
os.chdir(tempfile.mkdtemp(prefix="notebook-"))

# %%
import logging
import warnings

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from runkit import TrainingProblem
from runkit.tasks import Multiclass, Multilabel, Regression

logging.getLogger("lightning.pytorch").setLevel(logging.ERROR)
torch.manual_seed(0)

# %% [markdown]
# ## The three losses on the same outputs
#
# Four samples, three outputs each. Read as **multiclass**, the outputs are logits of one class and
# the target is a class id; as **multilabel**, each output is the logit of its own yes/no label; as
# **regression**, each output is a value. Each task's loss takes the raw outputs: cross-entropy applies
# log-softmax, binary cross-entropy a sigmoid per label, MSE nothing.

# %%
outputs = torch.tensor([[2.0, -1.0, 0.5], [0.1, 0.2, 3.0], [-1.0, 2.5, 2.0], [0.0, 0.0, 0.0]])
class_ids = torch.tensor([0, 2, 1, 1])
label_rows = torch.tensor([[1, 0, 1], [0, 0, 1], [0, 1, 1], [0, 0, 0]])
values = torch.tensor([[1.8, -0.9, 0.4], [0.0, 0.3, 2.7], [-1.2, 2.4, 2.1], [0.1, -0.1, 0.0]])

for task, target in ((Multiclass(), class_ids), (Multilabel(), label_rows), (Regression(standardize=False), values)):
    task.bind(3)
    print(f"{task.name:<11} targets {list(target.shape)!s:<7} loss {task.loss(outputs, target).item():.4f}")

# %% [markdown]
# An untrained network outputs about 0: cross-entropy is then ln(C), binary cross-entropy ln 2 per
# label, MSE the mean squared target (about 1 for standardised targets). `python -m project.doctor`
# checks the first batch's loss against exactly these.

# %%
zeros = torch.zeros(4, 3)
print(f"multiclass: {F.cross_entropy(zeros, class_ids):.4f} = ln 3 = {torch.log(torch.tensor(3.0)):.4f}")
print(f"multilabel: {F.binary_cross_entropy_with_logits(zeros, label_rows.float()):.4f} = ln 2")

# %% [markdown]
# A sigmoid at the end of a multilabel network squashes twice (the loss applies its own), and a
# softmax across labels makes them compete: two labels can no longer both be likely. The task names both.

# %%
multilabel = Multilabel()
multilabel.bind(3)
print(multilabel.check_outputs(torch.sigmoid(outputs)))
print(multilabel.check_outputs(outputs.softmax(dim=-1)))

# %% [markdown]
# ## The MSE broadcasting trap, with numbers
#
# A regression network outputs `[B, 1]`; a dataset that returns each target as a plain number gives
# `[B]`. `F.mse_loss` broadcasts the pair to `[B, B]`, every output against every target, warns once,
# and trains. The best any model can then do is to output the mean target for every input.

# %%
x = torch.linspace(-2, 2, 64).unsqueeze(1)
y = 3 * x.squeeze(1)  # [64]: a perfectly learnable line, but flat
perfect = 3 * x  # [64, 1]: the right answer, as the network would give it
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    print(f"MSE of the perfect answer, [64, 1] vs [64]:  {F.mse_loss(perfect, y).item():.3f}")
    print(
        f"MSE of the mean, [64, 1] vs [64]:            {F.mse_loss(torch.full_like(perfect, y.mean()), y).item():.3f}"
    )
print(f"MSE of the perfect answer, [64, 1] vs [64, 1]: {F.mse_loss(perfect, y.unsqueeze(1)).item():.3f}")

# %% [markdown]
# The perfect answer scores worse than the mean: gradient descent walks away from it. The regression
# task refuses the pair with both shapes and the fix.

# %%
regression = Regression(standardize=False)
regression.bind(1)
try:
    regression.loss(perfect, y)
except TrainingProblem as problem:
    print(problem)

# %% [markdown]
# ## A forecast against the seasonal-naive baseline
#
# `--model lstm_forecast` on its generated hourly series (trend, daily and weekly seasons, noise): four
# days in (`input_length: auto`, four seasons of the 24 hours `season: auto` reads off the times), the
# next day out. A forecast is worth its training only if it beats the forecasts a practitioner tries
# first, logged on the same windows: repeating yesterday (the seasonal naive, `val/mae_seasonal_naive`),
# with the window's mean day-on-day change added (`val/mae_seasonal_drift`), and Holt-Winters fitted on
# the training part (`val/mae_ets`); `val/mase` is the model's MAE over the seasonal naive's. The network
# learns a correction to the seasonal naive with drift: untrained, it forecasts exactly that. A short run
# here (6 epochs).

# %%
from project.cli import build

cli = build(
    "lstm_forecast",
    "--trainer.enable_progress_bar=false",
    "--trainer.enable_model_summary=false",
    "--data.synthetic_length=3000",
    "--trainer.max_epochs=6",
)
cli.trainer.fit(cli.model, cli.datamodule)
metrics = cli.trainer.validate(cli.model, cli.datamodule, ckpt_path="best", verbose=False)[0]
for name in (
    "val/mae",
    "val/mae_last_value",
    "val/mae_seasonal_naive",
    "val/mae_seasonal_drift",
    "val/mae_ets",
    "val/mase",
):
    print(f"{name:<24} {metrics[name]:.3f}")

# %%
data, model = cli.datamodule, cli.model.eval()
inputs, future, target, baselines, _ = data.val_set[len(data.val_set) // 2]
with torch.no_grad():
    forecast = model.task.to_units(model(inputs.unsqueeze(0), future.unsqueeze(0)))[0]
history = inputs[:, 0] * data.std[0] + data.mean[0]
steps_in, steps_out = torch.arange(-len(history), 0), torch.arange(len(target))
fig, ax = plt.subplots(figsize=(9, 3))
ax.plot(steps_in[-72:], history[-72:], color="grey", label="input (last 3 days)")
ax.plot(steps_out, target, color="black", label="what came")
ax.plot(steps_out, baselines[1], "--", label="seasonal naive (yesterday)")
ax.plot(steps_out, forecast, label="LSTM forecast")
ax.set(xlabel="hours from now", ylabel="value")
ax.legend(loc="upper left", fontsize=8)
fig.tight_layout()
plt.show()
