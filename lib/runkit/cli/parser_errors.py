"""The parser's errors in the project's one-line form, with the closest valid name where there is one.

jsonargparse reports a bad nested option as a Union error over every subclass it tried, after a usage block
of some 60 lines; the one useful fact (which class refused which key) sits in the middle. This reads that
fact out of its message and says it in one line, exit 2, the usage block only on `--help`.
"""

import difflib
import importlib
import inspect
import re
import sys
from typing import Any, NoReturn

from jsonargparse import ArgumentParser
from lightning.pytorch.cli import LightningArgumentParser

from runkit.extras import import_object


class ProjectArgumentParser(LightningArgumentParser):
    """LightningCLI's parser whose errors are one line: `error: --trainer.max_epoch is not an option; did you
    mean --trainer.max_epochs?`. Where it raises instead of exiting (`exit_on_error=False`, what
    `project.sweep` checks its search space with), the message is jsonargparse's own."""

    def error(self, message: str, ex: Exception | None = None) -> NoReturn:
        if not self.exit_on_error:
            super().error(message, ex)
        parser = getattr(ex, "subcommand_parser", None) or self
        print(f"error: {one_line(message, parser)}", file=sys.stderr)
        raise SystemExit(2)


def one_line(message: str, parser: ArgumentParser) -> str:
    """What is wrong, named by its option, from a jsonargparse error message."""
    if found := re.match(r"unrecognized arguments: (\S+)", message):
        option = found.group(1).split("=", 1)[0]
        return f"{option} is not an option{_did_you_mean(option, options_of(parser))}"
    key = re.match(r'Parser key "([^"]+)"', message)
    refused = re.findall(r"Option '([^']+)' is not accepted", message)
    nested = re.search(r"NestedArg\(key='([^']+)'", message)
    classes = re.findall(r"class_path[ =]'([\w.]+)'", message)
    if key and refused and classes:
        option = f"--{key.group(1)}." + (nested.group(1) if nested else refused[-1])
        return refused_option(option, refused[-1], classes[-1])
    if key and (missing := re.search(r"module '([\w.]+)' has no attribute '(\w+)'", message)):
        module, name = missing.groups()
        return f"--{key.group(1)}: {module} has no {name!r}{_did_you_mean(name, _classes_in(module))}"
    if key and (problem := re.search(r"Problem with given class_path '([\w.]+)':\s*\n\s*(.+)", message)):
        return f"--{key.group(1)}: {problem.group(1)}: {problem.group(2).strip()}"
    if key and (given := re.search(r"Given value: (.*)", message)):
        expected = re.findall(r"Expected a <class '([\w.]+)'>", message)
        wanted = " or ".join(dict.fromkeys(e.replace("NoneType", "null") for e in expected)) or "another value"
        return f"--{key.group(1)}: expected {wanted}, got {given.group(1).strip()!r}"
    lines = [line.strip(" -") for line in message.splitlines() if line.strip(" -")]
    if key:  # `Parser key "k":`, then what is wrong with it
        rest = [line.strip(" -:") for line in message[key.end() :].splitlines() if line.strip(" -:")]
        return f"--{key.group(1)}: {rest[0]}" if rest else f"--{key.group(1)}: {message}"
    return "; ".join(lines)


# Names for the same file, each group led by the name our DataModules take (a folder of images: `root`): a name
# refused is answered with one of its own group before one spelled alike (`train_path` is not `val_path`).
SAME_ROLE = (
    ("train_path", "root", "path", "edges_path", "train_file", "data_path", "train_root"),
    ("val_path", "val_root", "val_edges_path", "valid_path", "dev_path", "val_file"),
    ("test_path", "test_root", "test_edges_path", "test_file"),
)


def same_role(name: str, takes: list[str]) -> str | None:
    """The name among `takes` for the file `name` means (`path` -> `train_path`), if `name` is one of SAME_ROLE's."""
    for group in SAME_ROLE:
        if name in group:
            return next((other for other in group if other in takes and other != name), None)
    return None


def refused_option(option: str, name: str, class_path: str) -> str:
    """`--data.root: ShapesDataModule takes no 'root' (it takes data_dir, ...); ImageFolderDataModule does: ...`."""
    cls = _import(class_path)
    takes = init_arguments(cls)
    text = f"{option}: {class_path.rsplit('.', 1)[-1]} takes no {name!r}"
    if same := same_role(name, takes):
        return f"{text}; did you mean {option.rsplit('.', 1)[0]}.{same}?"
    if not any(name in group for group in SAME_ROLE) and (close := difflib.get_close_matches(name, takes, n=1)):
        return f"{text}; did you mean {option.rsplit('.', 1)[0]}.{close[0]}?"
    text += f" (it takes {', '.join(takes)})" if takes else ""
    package = class_path.rpartition(".")[0]
    if others := [c for c in _classes_in(package) if c != class_path.rsplit(".", 1)[-1]]:
        for other in others:
            its = init_arguments(_import(f"{package}.{other}"))
            if name in its or (its_name := same_role(name, its)):
                as_ = "" if name in its else f" as {its_name!r}"
                return f"{text}; {other} takes it{as_}: {option.split('.')[0]} {package}.{other}"
    return text


def options_of(parser: ArgumentParser) -> list[str]:
    """Every `--option` a parser has a default for (the Trainer's, early stopping's, the run's own...)."""
    try:
        return [f"--{key}" for key in parser.get_defaults().keys()]  # noqa: SIM118 (nested keys, dotted)
    except Exception:  # an error path: a parser that cannot give its defaults offers no suggestion
        return []


def init_arguments(cls: Any) -> list[str]:
    """The names a class's `__init__` takes, in order (its own and those it passes on by `**kwargs` are not known)."""
    try:
        parameters = inspect.signature(cls).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p.name for p in parameters if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def _did_you_mean(name: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(name, choices, n=1, cutoff=0.75)
    return f"; did you mean {close[0]}?" if close else ""


def _classes_in(module: str) -> list[str]:
    try:
        found = importlib.import_module(module)
    except ImportError:
        return []
    return [name for name, value in vars(found).items() if isinstance(value, type) and not name.startswith("_")]


def _import(class_path: str) -> Any:
    try:
        return import_object(class_path)
    except (ImportError, AttributeError):
        return None
