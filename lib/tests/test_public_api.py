"""Every name of runkit's public API is the object its module defines, however many of runkit's modules were
imported before: a submodule of the same name would shadow a lazily exported function."""

import importlib
import pkgutil
import types

import runkit


def test_every_public_name_is_what_its_module_defines_after_every_module_is_imported():
    for module in pkgutil.walk_packages(runkit.__path__, "runkit."):
        if not module.name.endswith(("wandb_run", "mlflow_run")):  # optional extras: imported where installed
            importlib.import_module(module.name)
    wrong = []
    for name in runkit.__all__:
        got = getattr(runkit, name)
        where = runkit._LAZY.get(name)
        if where is not None and got is not getattr(importlib.import_module(where), name):
            wrong.append(f"{name}: {got!r}")
        elif isinstance(got, types.ModuleType) and name != "figures":  # the one module exported as a module
            wrong.append(f"{name} is a module")
    assert wrong == []
