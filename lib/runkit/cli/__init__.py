"""The command line and a run's life: `--model NAME`, LightningCLI, the run folder, the summary at the end.

A project binds it to its model families once (`Commands(registry)`, in its `cli.py`): `main` runs a command
line, `build` / `compose` instantiate one without running it (notebooks, tests, the tools), `parse` checks one
and builds nothing.
"""
