"""The tasks' pictures for TensorBoard, drawn with matplotlib (imported only when a picture is due)."""

import itertools
from collections.abc import Sequence
from typing import Any

import torch

MAX_CLASSES = 30  # beyond this a confusion matrix or a bar per label is unreadable


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")  # files only, no display needed
    import matplotlib.pyplot as plt

    return plt


def confusion(matrix: torch.Tensor, names: list[str]) -> Any:
    """Rows: true class, columns: predicted; each row normalised to 1 (the recall on the diagonal), counts in the
    cells."""
    plt = _pyplot()
    recall = (matrix.float() / matrix.sum(dim=1, keepdim=True).clamp(min=1)).numpy()
    size = 1.2 + 0.45 * len(names)
    fig, ax = plt.subplots(figsize=(size, size))
    ax.imshow(recall, cmap="Blues", vmin=0, vmax=1)
    ax.set(xticks=range(len(names)), yticks=range(len(names)), xlabel="predicted", ylabel="true")
    ax.set_xticklabels(names, rotation=90)
    ax.set_yticklabels(names)
    for i, j in itertools.product(range(len(names)), repeat=2):
        shade = "white" if recall[i, j] > 0.5 else "black"
        ax.text(j, i, int(matrix[i, j]), ha="center", va="center", fontsize=7, color=shade)
    fig.tight_layout()
    return fig


def bars(values: torch.Tensor, names: list[str], xlabel: str) -> Any:
    """One horizontal bar per name (per-label F1, for instance), on a 0..1 axis."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5, 1 + 0.3 * len(names)))
    ax.barh(range(len(names)), values.tolist(), color="tab:blue")
    ax.set(yticks=range(len(names)), xlim=(0, 1), xlabel=xlabel)
    ax.set_yticklabels(names)
    ax.invert_yaxis()
    fig.tight_layout()
    return fig


def predicted_vs_true(pred: torch.Tensor, true: torch.Tensor, name: str) -> Any:
    """A scatter of predictions against targets with the diagonal: a good model hugs it."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(4.5, 4.5))
    ax.scatter(true.numpy(), pred.numpy(), s=6, alpha=0.5)
    low, high = float(min(true.min(), pred.min())), float(max(true.max(), pred.max()))
    ax.plot([low, high], [low, high], color="black", linewidth=1)
    ax.set(xlabel=f"true {name}", ylabel=f"predicted {name}")
    fig.tight_layout()
    return fig


def forecasts(
    history: torch.Tensor,
    target: torch.Tensor,
    forecast: torch.Tensor,
    baseline: torch.Tensor,
    interval: tuple[torch.Tensor, torch.Tensor] | None,
    name: str,
) -> Any:
    """A few windows side by side: each one's input steps, the true next steps, the model's forecast (and its
    interval, shaded) and the baseline it is judged against (`[k, L]` history, `[k, H]` the rest)."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, len(history), figsize=(4 * len(history), 3), squeeze=False)
    steps_in, steps_out = torch.arange(-history.shape[1], 0), torch.arange(target.shape[1])
    for i, ax in enumerate(axes[0]):
        ax.plot(steps_in, history[i], color="tab:gray", linewidth=1, label="input")
        ax.plot(steps_out, target[i], color="black", linewidth=1.5, label="true")
        ax.plot(steps_out, baseline[i], color="tab:orange", linewidth=1, linestyle="--", label="seasonal naive + drift")
        ax.plot(steps_out, forecast[i], color="tab:blue", linewidth=1.5, label="forecast")
        if interval is not None:
            ax.fill_between(steps_out, interval[0][i], interval[1][i], color="tab:blue", alpha=0.2, label="interval")
        ax.set(xlabel="steps from the forecast's origin", ylabel=name if i == 0 else None)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def residual_histogram(residuals: torch.Tensor, name: str) -> Any:
    """Predicted minus true: centred on 0 without bias; heavy tails show the outliers an MSE chases."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(4.5, 3))
    ax.hist(residuals.numpy(), bins=40)
    ax.axvline(0, color="black", linewidth=1)
    ax.set(xlabel=f"residual (predicted - true) {name}", ylabel="count")
    fig.tight_layout()
    return fig


def histogram_lines(counts: torch.Tensor, names: Sequence[str] | None, batches: int) -> str:
    """A text histogram of the labels in the first training batches, one line per class or label: for the console."""
    total = int(counts.sum())
    names = names or [str(i) for i in range(len(counts))]
    lines = [f"Labels in the first {batches} training batches ({total} scored):"]
    for name, count in zip(names, counts.tolist(), strict=True):
        share = count / max(total, 1)
        lines.append(f"  {name:<16} {count:>7}  {share:6.1%}  {'#' * round(40 * share)}")
    return "\n".join(lines)
