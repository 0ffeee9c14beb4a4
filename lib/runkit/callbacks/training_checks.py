"""The classic training mistakes, each detected by one plain function; `Diagnostics` calls them at the right time.

Each returns what it found (empty when all is well) or raises `TrainingProblem` for what would fail anyway,
only later and more cryptically. Messages say what was seen, the likely cause and the fix.
"""

import itertools
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import torch
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, RandomSampler, Subset

NAN_FIXES = (
    "Fixes, in order: lower the learning rate tenfold; clip gradients (--trainer.gradient_clip_val 1.0); "
    "check the data for NaN, inf or huge values."
)


def unregistered_modules(model: nn.Module) -> list[str]:
    """Layers kept in a plain list, tuple or dict: their parameters are invisible to the optimizer and to `.to()`."""
    found = []
    for name, module in model.named_modules():
        for attr, value in vars(module).items():
            if attr.startswith("_"):  # nn.Module's own registries (_modules, _parameters...)
                continue
            items = value.values() if isinstance(value, dict) else value if isinstance(value, list | tuple) else ()
            layers = [type(v).__name__ for v in items if isinstance(v, nn.Module)]
            if layers:
                where = f"{name}.{attr}" if name else attr
                found.append(f"{where} (a plain {type(value).__name__} of {len(layers)} {layers[0]})")
    return found


def parameters_outside(model: nn.Module, optimizers: Iterable[torch.optim.Optimizer]) -> list[str]:
    """Trainable parameters that no optimizer group holds: e.g. a layer created in `forward`."""
    held = {id(p) for optimizer in optimizers for group in optimizer.param_groups for p in group["params"]}
    return [name for name, p in model.named_parameters() if p.requires_grad and id(p) not in held]


def parameters_without_grad(model: nn.Module) -> list[str]:
    """Trainable parameters that the first backward did not reach: unused layers, or a detached path."""
    return [name for name, p in model.named_parameters() if p.requires_grad and p.grad is None]


def named_tensors(obj: Any, prefix: str = "batch") -> Iterator[tuple[str, torch.Tensor]]:
    """Every tensor in a batch or an output: tensors, tuples, lists, dicts, PyG `Data`, `PackedSequence`."""
    if isinstance(obj, torch.Tensor):
        yield prefix, obj
    elif hasattr(obj, "to_dict") and hasattr(obj, "edge_index"):  # PyG Data / Batch
        yield from named_tensors(obj.to_dict(), prefix)
    elif isinstance(obj, dict):
        for key, value in obj.items():
            yield from named_tensors(value, f"{prefix}.{key}")
    elif isinstance(obj, list | tuple):
        for i, value in enumerate(obj):
            yield from named_tensors(value, f"{prefix}[{i}]")


def non_finite(obj: Any, prefix: str = "batch") -> list[str]:
    """The floating tensors in `obj` that hold NaN or inf, with counts."""
    found = []
    for name, t in named_tensors(obj, prefix):
        if t.is_floating_point() and not torch.isfinite(t).all():
            found.append(f"{name} ({int(torch.isnan(t).sum())} NaN, {int(torch.isinf(t).sum())} inf)")
    return found


def first_non_finite_module(model: nn.Module, inputs: Sequence[Any]) -> str | None:
    """Re-run a forward pass with hooks on every module; the first to output NaN or inf (innermost first)."""
    found: list[str] = []

    def watch(name: str, module: nn.Module) -> Any:
        def hook(_module: nn.Module, _args: Any, output: Any) -> None:
            if not found and non_finite(output):
                found.append(f"{name} ({type(module).__name__})")

        return hook

    handles = [m.register_forward_hook(watch(name, m)) for name, m in model.named_modules() if name]
    try:
        with torch.no_grad():
            model(*inputs)
    finally:
        for handle in handles:
            handle.remove()
    return found[0] if found else None


def tensors_holding_graph(model: nn.Module) -> list[str]:
    """Attributes that keep tensors with an autograd graph across steps, e.g. `self.losses.append(loss)`.

    Each kept graph holds its step's activations: memory grows every step until it runs out.
    """
    found = []
    for name, module in model.named_modules():
        for attr, value in vars(module).items():
            if attr.startswith("_"):
                continue
            items = value.values() if isinstance(value, dict) else value if isinstance(value, list | tuple) else [value]
            count = sum(1 for v in items if isinstance(v, torch.Tensor) and v.grad_fn is not None)
            if count:
                found.append(f"{f'{name}.{attr}' if name else attr} ({count} tensor(s) with grad_fn)")
    return found


def memory_grows(samples: Sequence[int], min_growth: int = 16 * 2**20) -> bool:
    """Allocated memory that rose at every sample and by at least `min_growth` bytes in all: a leak."""
    rising = all(b > a for a, b in itertools.pairwise(samples))
    return len(samples) >= 3 and rising and samples[-1] - samples[0] >= min_growth


def shared_samples(train: DataLoader, val: DataLoader) -> str | None:
    """The same loader or dataset for training and validation, or samples (by identity) in both."""
    if train is val:
        return "the training and validation loaders are the same object"
    a, b = train.dataset, val.dataset
    if a is b:
        return "the training and validation loaders read the same dataset object"
    ids_a, ids_b = _sample_ids(a), _sample_ids(b)
    if ids_a is None or ids_b is None:
        return None
    common = ids_a & ids_b
    if common:
        return f"{len(common)} of the {len(ids_b)} validation samples are also training samples"
    return None


def overlapping_steps(train: Any, val: Any) -> str | None:
    """Time-series windows (datasets with `steps`, the `[first, end)` steps their windows read; many series:
    `datasets` of them, one per series) of validation that read steps training windows of the same series read
    too: their targets were training inputs or targets."""
    for a_set, b_set in zip(getattr(train, "datasets", [train]), getattr(val, "datasets", [val]), strict=False):
        a, b = getattr(a_set, "steps", None), getattr(b_set, "steps", None)
        if a is None or b is None or a[0] == a[1] or b[0] == b[1]:
            continue
        first, end = max(a[0], b[0]), min(a[1], b[1])
        if first >= end:
            continue
        return (
            f"validation windows read steps {b[0]}..{b[1] - 1} and training windows steps {a[0]}..{a[1] - 1}: "
            f"{end - first} steps are in both, so validation scores forecasts of values the model trained on. "
            "Split the series by time first, then cut each part into windows (no window across a boundary)"
        )
    return None


def _sample_ids(dataset: Any) -> set[Any] | None:
    # Only what is cheap and certain: Subset indices into one base dataset, or lists of sample objects.
    if isinstance(dataset, Subset):
        return {(id(dataset.dataset), int(i)) for i in dataset.indices}
    if isinstance(dataset, list | tuple) and len(dataset) <= 1_000_000:
        return {id(sample) for sample in dataset}
    return None


def shuffles(loader: DataLoader) -> bool:
    """A loader that draws its samples in random order."""
    sampler = getattr(loader.batch_sampler, "sampler", None) or loader.sampler
    return isinstance(sampler, RandomSampler) or (isinstance(sampler, DistributedSampler) and sampler.shuffle)
