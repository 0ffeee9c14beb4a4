"""What `--model NAME` knows: a project's model families, each a config file under its configs/ folder, a
one-line description, and what the tests shrink it to. The project declares them (its registry.py); what each
predicts, its task, is its config's to say (`model.init_args.task`, else the model class's `default_task`)."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol


@dataclass(frozen=True)
class ModelEntry:
    config: str  # relative to the registry's config folder
    description: str
    # What the tests shrink its data and model to: a fit of a few seconds.
    test_args: tuple[str, ...] = ()


@dataclass(frozen=True)
class Registry:
    config_dir: Path  # configs/: trainer.yaml, which every family's file stacks on, and the families' files
    models: Mapping[str, ModelEntry]
    package: str = "project"  # the project's import name: its commands are `python -m PACKAGE.fit` and the like

    @property
    def prog(self) -> str:
        return f"python -m {self.package}"

    def config_flags(self, name: str) -> list[str]:
        """What `--model NAME` stands for: the shared Trainer config, then the family's."""
        return [
            "--config",
            str(self.config_dir / "trainer.yaml"),
            "--config",
            str(self.config_dir / self.models[name].config),
        ]

    def task(self, name: str) -> str:
        """What a family's model predicts (its task's `name`: multiclass, multilabel, regression...), read from its
        config file as the command line reads it (runkit/cli/monitor.py)."""
        import yaml

        from runkit.cli.monitor import task_class

        config = yaml.safe_load((self.config_dir / self.models[name].config).read_text()) or {}
        return task_class(config.get("model")).name

    def families(self) -> list[str]:
        """One model per family (the part of its name before `_`), its first multiclass one: what the shared
        engineering is measured and tested on."""
        first: dict[str, str] = {}
        for name in self.models:
            if self.task(name) == "multiclass":
                first.setdefault(name.split("_")[0], name)
        return list(first.values())

    def describe(self) -> str:
        width = max(map(len, self.models), default=0)
        lines = [f"  {name:<{width}}  {entry.description}" for name, entry in self.models.items()]
        return "Models (--model NAME, or a LightningModule class path):\n" + "\n".join(lines)


class CommandLine(Protocol):
    """What the commands built on the CLI (sweeps, repeats) ask of a project's `Commands`, without importing it."""

    registry: Registry

    def compose(self, args: Sequence[str]) -> Any: ...

    def parse(self, args: Sequence[str]) -> Any: ...

    def expand(self, args: Sequence[str]) -> list[str]: ...
