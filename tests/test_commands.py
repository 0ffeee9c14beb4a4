"""Every command the README and the guides show runs, as a user types it from the repository root, and exits 0, or
with the status and the one `error:` line its page says it stops with.

The README's commands run in one folder, in order, as a user working through it would: a command that reads
`logs/cnn/version_0/...` reads what a command before it wrote. Each guide's then run in a copy of that folder (its
reader has done the README), each command once (the README's are not run again). Each runs exactly as written,
with two kinds of change a user would not see:
- the files it names (`reviews.csv`, `train.conll`, `path/to/train`) are written small beforehand
  (tests/guide_files.py);
- a training is cut to one epoch of 2 batches and 2 batches of each evaluation (`SHORT`); a sweep or repeat to 2
  trials, seeds or folds (a grid sweep too); the LR range test to 30 steps.
`python -m` commands are forked from the preloaded process (lib/runkit/testing/preloaded.py); `project.serve` and
the `curl` after it run as real processes on a free port. What a test cannot run is listed in `NOT_RUN`, with what
checks it instead.

Template-only (parts.yaml): the guides are; a generated project's README is checked by tests/test_readme.py.
"""

import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from runkit.serving.launch import served
from runkit.testing.readme import bash_commands, opened

from tests.conftest import ROOT, python
from tests.guide_files import write_for

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "lib" / "docs").glob("*.md"))]
NOT_RUN = {  # a command's start -> why it is not run here, and what checks it instead
    "make test": "the test suite itself",  # and make test-slow
    "make lint": "the first step of .ci/run",
    ".venv/bin/tensorboard": "a server until stopped; tests/test_readme.py checks it is installed",
    ".venv/bin/cookiecutter": "tests/test_scaffold.py generates projects from this checkout",
    ".venv/bin/pip install": "an install: make setup runs it",
    "torchrun --nnodes": "two machines with 8 GPUs each",
}
COMMON = (
    "--trainer.enable_progress_bar=false",
    "--trainer.enable_model_summary=false",
    "--trainer.limit_val_batches=2",
    "--trainer.limit_test_batches=2",
    "--trainer.limit_predict_batches=2",
)
SHORT = (
    *COMMON,
    "--trainer.num_sanity_val_steps=0",
    "--trainer.min_steps=null",
    "--trainer.max_epochs=1",
    "--trainer.limit_train_batches=2",
)
COUNTS = ("--n_trials", "--seeds", "--folds")  # a sweep's or repeat's runs: 2 of each
# Commands that stop on purpose on this machine: (what the command holds, exit status, the start of its error line).
STOPS = [("presets/gpu_ddp.yaml", 2, "error: the Trainer refused its settings")] * (not torch.cuda.is_available())


def commands(page: Path, before: set[str]) -> list[str]:
    """The page's commands in order, each once, less those in `before` (the README's, for a guide)."""
    return list(dict.fromkeys(c for c in bash_commands(page.read_text()) if c not in before))


def shortened(words: list[str]) -> list[str]:
    """The command as run here: a training shortened, 2 trials, seeds or folds."""
    words = [("2" if i and words[i - 1] in COUNTS else word) for i, word in enumerate(words)]
    module = words[words.index("-m") + 1] if "-m" in words else ""
    after = words[words.index("-m") + 2 :] if module else []
    if {"--help", "--print_config", "--report", "--check"} & set(after):
        return words
    if module == "project.sweep" and "--n_trials" not in words:  # a grid sweep runs every point: 2 of them
        words = [*words, "--n_trials", "2"]
    if module in ("project.fit", "project.sweep", "project.repeat") or after[:1] == ["fit"]:
        return [*words, *SHORT]
    if module == "project.lr_find":
        return [*words, *COMMON, "--num_training", "30"]
    if module == "project":
        return [*words, *COMMON]
    return words


def make_recipe(target: str) -> list[str]:
    """The project command a Makefile target runs (`make train`: `$(BIN)/python -m project.fit --model cnn`)."""
    recipe = re.search(rf"^{target}:.*\n\t(.+)", (ROOT / "Makefile").read_text(), re.M).group(1)
    return shlex.split(recipe.replace("$(BIN)/", ".venv/bin/"))


def model_of(words: list[str]) -> str:
    return words[words.index("--model") + 1] if "--model" in words else ""


def run(words: list[str], folder: Path) -> subprocess.CompletedProcess:
    if words[0].endswith("/torchrun"):
        env = {"PYTHONPATH": str(ROOT)}
        command = [sys.executable, "-m", "torch.distributed.run", *words[1:]]
        return subprocess.run(command, cwd=folder, capture_output=True, text=True, env=env, timeout=600, check=False)
    assert words[0] == ".venv/bin/python", words  # every other command this test runs is the project's Python
    return python(*words[1:], cwd=folder)


def run_page(page: Path, folder: Path, before: set[str] = frozenset()) -> tuple[int, list[str]]:
    """Run the page's commands in `folder`, in order: how many ran, and what failed, each with its page, command
    and error."""
    failed, ran = [], 0
    shown = commands(page, before)
    for i, command in enumerate(shown):
        if any(command.startswith(start) for start in NOT_RUN) or command.startswith("curl "):
            continue
        words = opened(shlex.split(command))
        if words[:2] == ["make", "train"]:
            words = make_recipe("train")
        write_for(words, folder, model_of(words))
        words = shortened(words)
        ran += 1
        if "project.serve" in words:
            failed += serve_and_ask(words, [c for c in shown[i + 1 :] if c.startswith("curl ")], folder, page.name)
            continue
        started = time.perf_counter()
        done = run(words, folder)
        print(f"{time.perf_counter() - started:6.1f} s  {page.name}: {command[:150]}")  # pytest -s: the slow ones
        stop = next(((code, line) for held, code, line in STOPS if held in command), None)
        errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
        if stop is None and done.returncode != 0:
            said = (errors or [done.stderr[-1500:] + done.stdout[-1500:]])[0]
            failed.append(f"{page.name}: {command}\n  exit {done.returncode}: {said}")
        elif stop is not None and [done.returncode, *[e[: len(stop[1])] for e in errors]] != list(stop):
            failed.append(
                f"{page.name}: {command}\n  expected exit {stop[0]}, {stop[1]!r}; got {done.returncode}, {errors}"
            )
    return ran, failed


@pytest.mark.slow
def test_every_command_of_the_readme_and_the_guides_runs_as_written(tmp_path):
    readme = tmp_path / "README"
    readme.mkdir()
    for name in ("configs", "examples"):
        (readme / name).symlink_to(ROOT / name)
    ran, failed = run_page(PAGES[0], readme)
    assert failed == [], "\n".join(failed)  # the guides start where the README ends
    for page in PAGES[1:]:
        shutil.copytree(readme, tmp_path / page.stem, symlinks=True)
        more, failed_here = run_page(page, tmp_path / page.stem, before=set(bash_commands(PAGES[0].read_text())))
        ran, failed = ran + more, failed + failed_here
    assert failed == [], "\n".join(failed)
    shown = {c for page in PAGES for c in bash_commands(page.read_text())}
    assert ran >= len(shown) - 10, (ran, len(shown))  # only NOT_RUN's are left out


def serve_and_ask(words: list[str], asked: list[str], folder: Path, page: str) -> list[str]:
    """`project.serve CHECKPOINT` on a free port, each `curl` the page shows asked of it: a JSON answer each."""
    checkpoint = folder / words[words.index("project.serve") + 1]
    failed = []
    with served(checkpoint, *words[words.index("project.serve") + 2 :], log=folder / "serve.log") as url:
        for command in asked:
            curl = shlex.split(command.replace("localhost:8000", url.removeprefix("http://")))
            answer = subprocess.run(curl, cwd=folder, capture_output=True, text=True, timeout=60, check=False)
            if answer.returncode != 0 or '"predictions"' not in answer.stdout:
                failed.append(f"{page}: {command}\n  exit {answer.returncode}: {answer.stdout[-500:]}")
    return failed
