"""Modules that moved from a project into runkit, still importable by their old names.

A run saved before a move names classes by the old path (its config.yaml: `class_path: project.tasks.Multilabel`;
a checkpoint's hyperparameters), and a script of the user's may import it. The finder below answers such an
import with the module's new home, where no module of the old name exists, and says so in one line on stderr.
"""

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from importlib.machinery import ModuleSpec
from types import ModuleType

# Old module -> where it lives now, with the runkit version that moved it; a submodule moves with its package.
MOVED = {
    "project.tasks": ("runkit.tasks", "0.2.0"),
    "project.nets.crf": ("runkit.tasks.crf", "0.2.0"),
    "project.models.base": ("runkit.model", "0.2.0"),
    "project.callbacks": ("runkit.callbacks", "0.2.0"),
    "project.checkpoints": ("runkit.checkpoints", "0.2.0"),
    "project.trackers": ("runkit.trackers", "0.2.0"),
    "project.extras": ("runkit.extras", "0.2.0"),
    "project.nets.receptive_field": ("runkit.receptive", "0.2.0"),
    "project.nets.batchnorm": ("runkit.batchnorm", "0.2.0"),
    "project.tools": ("runkit.tools", "0.2.0"),  # the profiler a preset names
    "project.sweeps": ("runkit.sweeps", "0.2.0"),  # the callbacks a trial's run.yaml names
    "project.data.values": ("runkit.formats.values", "0.3.0"),
    "project.data.graphs.edge_files": ("runkit.formats.edges", "0.3.0"),
    "project.data.text.files": ("runkit.formats.text", "0.3.0"),
    "project.data.text.conll": ("runkit.formats.conll", "0.3.0"),
    "project.data.text.batching": ("runkit.data.batching", "0.3.0"),
    "project.data.sequences.files": ("runkit.formats.sequences", "0.3.0"),
    "project.data.series.files": ("runkit.formats.series", "0.3.0"),
    "project.data.series.spacing": ("runkit.forecasting.spacing", "0.3.0"),
    "project.data.series.baselines": ("runkit.forecasting.baselines", "0.3.0"),
    "project.data.series.windows": ("runkit.forecasting.windows", "0.3.0"),
}


def new_name(name: str) -> tuple[str, str] | None:
    """(the module's new name, the version that moved it) for an old module name; None where it never moved."""
    for old, (new, version) in MOVED.items():
        if name == old or name.startswith(old + "."):
            return new + name[len(old) :], version
    return None


class _Alias(importlib.abc.Loader):
    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        return importlib.import_module(self.target)  # the module itself, under both names: one set of classes

    def exec_module(self, module: ModuleType) -> None:
        pass  # already executed under its own name


class MovedFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: object = None, target: object = None) -> ModuleSpec | None:
        moved = new_name(fullname)
        if moved is None:
            return None
        parent = fullname.rpartition(".")[0]
        under_alias = parent in sys.modules and sys.modules[parent].__name__ != parent  # project.tasks.regression
        if not under_alias:
            if importlib.machinery.PathFinder.find_spec(fullname, path) is not None:
                return None  # a module of the old name exists again, the project's own: it wins
            new, version = moved
            print(
                f"{fullname} moved to {new} in runkit {version}: read as {new} (a config or script naming the old "
                "path runs; rename it there to drop this line)",
                file=sys.stderr,
            )
        return importlib.util.spec_from_loader(fullname, _Alias(moved[0]))


def install() -> None:
    """Put the finder first on `sys.meta_path`, once: before the path finder, which would otherwise load a moved
    package's submodules a second time under their old names."""
    if not any(isinstance(finder, MovedFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, MovedFinder())
