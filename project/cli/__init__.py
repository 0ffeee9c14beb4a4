"""The command line and a run's life: `--model NAME`, LightningCLI, the run folder, the summary at the end.

`main` runs a command line, `build` / `compose` instantiate one without running it (notebooks, tests,
the tools), `parse` checks one and builds nothing. Imported lazily, so `project.cli.registry` stays cheap.
"""

from typing import Any

__all__ = ["build", "compose", "main", "parse"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from project.cli import lightning_cli

        return getattr(lightning_cli, name)
    raise AttributeError(f"module 'project.cli' has no attribute {name!r}")
