"""Runs (cookiecutter >= 2.4) in a temporary copy of this repository, before the questions.

Cookiecutter only renders a child folder named with `{{cookiecutter...}}`; this repository keeps its
runnable project at the root instead. So, in the copy, move the root into that folder, leaving out
what a working copy accumulates and a new project must not inherit (runs, data, the venv, caches).
"""

import shutil
from pathlib import Path

TEMPLATE = "{{cookiecutter.project_slug}}"
STAYS = {"cookiecutter.json", "hooks", TEMPLATE}  # what cookiecutter itself reads
LEFT_OUT = {".git", ".venv", "logs", "data", "lightning_logs", "checkpoints", ".pytest_cache", ".ruff_cache"}
LEFT_OUT_ANYWHERE = {"__pycache__", ".ipynb_checkpoints"}


def main() -> None:
    root = Path.cwd()
    target = root / TEMPLATE
    target.mkdir()
    for path in sorted(root.iterdir()):
        if path.name in STAYS:
            continue
        if path.name in LEFT_OUT or path.name.endswith(".egg-info"):
            shutil.rmtree(path) if path.is_dir() else path.unlink()
        else:
            shutil.move(str(path), str(target / path.name))
    for junk in [p for name in LEFT_OUT_ANYWHERE for p in target.rglob(name)]:
        shutil.rmtree(junk, ignore_errors=True)


if __name__ == "__main__":
    main()
