"""The optional extras (pyproject.toml's `[project.optional-dependencies]`): a feature that needs one checks it
first, and a missing one is a one-line error with the pip command, not an ImportError deep in a run. And
`import_object`, what a dotted class path in a config names."""

import importlib
import importlib.util
from typing import Any

from runkit import UserError

# extra -> the pip packages it installs (as a project's pyproject.toml lists them), for the features runkit runs; a
# project's own extra (molecules) names its modules, which are then the packages too.
EXTRAS = {
    "onnx": ("onnx", "onnxscript", "onnxruntime"),
    "mlflow": ("mlflow-skinny",),
    "wandb": ("wandb",),
    "serve": ("litserve", "httpx"),
}


class MissingExtra(UserError):
    """A feature's optional packages are not installed."""


def require_extra(*modules: str, extra: str) -> None:
    """Raise MissingExtra naming the pip command unless every module in `modules` can be imported."""
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if missing:
        raise MissingExtra(
            f"this needs the '{extra}' extra, and {', '.join(missing)} is not installed: pip install "
            f'{" ".join(EXTRAS.get(extra, modules))}   (or, in this project: pip install -e ".[{extra}]")'
        )


def import_object(path: str) -> Any:
    """The object a dotted path names (`torch.optim.AdamW`), imported; ImportError or AttributeError as Python
    raises them, for the caller to word."""
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)
