"""`--model NAME`: the family's configs in place of the name, or a LightningModule class path, checked.

Read before LightningCLI parses anything, since the model class decides which data fields it links (`data_links`)
and jsonargparse takes a link only before it parses (a linked init argument is then no longer required). One table
of links declared for every class would need no look ahead, and would save a config that is not what was built:
jsonargparse skips a link whose target the class lacks, yet Lightning records it in the model's hyperparameters,
and a link target is left out of the saved config even where that class's own value, set by the user, was used.
"""

import sys
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path

import yaml
from lightning.pytorch import LightningModule

from runkit.cli.registry import Registry
from runkit.extras import import_object

SUBCOMMANDS = ("fit", "validate", "test", "predict")


def find_model_flag(args: Sequence[str]) -> tuple[str | None, int, int]:
    """The value of `--model VALUE` or `--model=VALUE`, its index and how many items it spans."""
    for i, arg in enumerate(args):
        if arg == "--model" and i + 1 < len(args):
            return args[i + 1], i, 2
        if arg.startswith("--model="):
            return arg.split("=", 1)[1], i, 1
    return None, 0, 0


def expand_model_flag(args: Sequence[str], registry: Registry) -> list[str]:
    """Replace `--model NAME` by `--config configs/trainer.yaml --config configs/NAME.yaml`, put first so later
    configs and flags override them.

    Any other value must be an importable LightningModule class path, which goes to LightningCLI unchanged.
    """
    args = list(args)
    name, index, span = find_model_flag(args)
    if name is None:
        return args
    if name not in registry.models:
        check_model_class_path(name, registry)
        return args
    del args[index : index + span]
    position = 1 if args and args[0] in SUBCOMMANDS else 0
    return [*args[:position], *registry.config_flags(name), *args[position:]]


def check_model_class_path(value: str, registry: Registry) -> None:
    """Refuse a `--model` value that is neither a registered name nor an importable LightningModule class."""
    if value.endswith((".yaml", ".yml", ".json")) or Path(value).is_file():
        tried = f"{value!r} is a file, not a model: pass a config file with --config {value} (after --model NAME)"
    elif "." not in value:
        tried = f"unknown model {value!r}: not a registered name, and not a class path (no dot)"
    else:
        module, _, name = value.rpartition(".")
        try:
            found = import_object(value)
        except ImportError as err:
            tried = f"unknown model {value!r}: not a registered name, and its module {module!r} does not import ({err})"
        except AttributeError:
            tried = f"unknown model {value!r}: not a registered name, and module {module!r} has no {name!r}"
        else:
            if isinstance(found, type) and issubclass(found, LightningModule):
                return
            tried = f"unknown model {value!r}: not a registered name, and {value} is not a LightningModule class"
    print(f"error: {tried}.\n{registry.describe()}", file=sys.stderr)
    raise SystemExit(2)


def config_files(args: Sequence[str]) -> list[str]:
    """The values of every `--config PATH`, `--config=PATH` and `-c PATH`, in command-line order."""
    files = []
    for flag, value in pairwise([*args, ""]):
        if flag in ("--config", "-c"):
            files.append(value)
        elif flag.startswith("--config="):
            files.append(flag.split("=", 1)[1])
    return files


def model_class_path(args: Sequence[str]) -> str | None:
    """The model's class path: from `--model CLASS_PATH`, else from the last `--config` file that names one."""
    name, _, _ = find_model_flag(args)
    if name is not None:
        return name
    found = None
    for value in config_files(args):
        config = yaml.safe_load(Path(value).read_text()) if Path(value).is_file() else None
        if isinstance(config, dict) and isinstance(config.get("model"), dict):
            found = config["model"].get("class_path", found)
    return found


def data_links_for(args: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """What to link from the data into the model: the model class's `data_links`; none for other modules."""
    path = model_class_path(args)
    if path is None or "." not in path:
        return {}
    try:
        return dict(getattr(import_object(path), "data_links", {}))
    except (ImportError, AttributeError):
        return {}  # LightningCLI reports the bad class path
