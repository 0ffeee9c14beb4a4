"""The commands a project's README shows, checked as written without training anything: a project command composes
its config (`--print_config`), a sweep checks its search space, `make` names a target of the Makefile, a tool is
installed. The commands are read from the README's fenced `bash` blocks."""

import importlib.util
import re
import shlex
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

RUN_ARTIFACTS = re.compile(r"^logs/")  # a run's own files (config.yaml, checkpoints): they exist only after a run
LR_FIND_OPTIONS = ("--min_lr", "--max_lr", "--num_training")


def bash_commands(markdown: str) -> list[str]:
    """The commands of the fenced bash blocks: continuation lines joined, comments and prompts dropped."""
    commands = []
    for block in re.findall(r"^```bash\n(.*?)^```", markdown, re.S | re.M):
        for command in block.replace("\\\n", " ").splitlines():
            words = shlex.split(command, comments=True)
            if words:
                commands.append(" ".join(shlex.quote(w) for w in words))
    return commands


def opened(words: list[str]) -> list[str]:
    """The words with optional groups' brackets removed (`[--data.val_path val.csv]`), a list value kept whole
    (`--data.value_fields '[load]'`)."""
    kept, group = [], False
    for word in words:
        if word.startswith("[-"):
            word, group = word[1:], True
        if group and word.endswith("]") and word.count("]") > word.count("["):
            word, group = word[:-1], False
        if word:
            kept.append(word)
    return kept


def project_args(words: list[str]) -> list[str]:
    """The arguments after `-m PACKAGE...`, with optional `[...]` brackets opened and run artifacts left out."""
    args = opened(words)
    kept: list[str] = []
    skip = False
    for i, arg in enumerate(args):
        if skip:
            skip = False
            continue
        following = args[i + 1] if i + 1 < len(args) else ""
        if arg in ("--ckpt_path", "--config") and RUN_ARTIFACTS.match(following):
            skip = True
            continue
        kept.append(arg)
    return kept


def without_options(args: list[str], options: tuple[str, ...]) -> list[str]:
    """`args` less each of `options` and its value (`--opt value` or `--opt=value`): lr_find's own flags."""
    kept, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg in options:
            skip = True
        elif not arg.startswith(tuple(f"{o}=" for o in options)):
            kept.append(arg)
    return kept


def parses(command: str, root: Path, commands: Any) -> None:
    """Check `command` as the README runs it from `root`, with the project's `Commands` (its `cli.commands`)."""
    package = commands.registry.package
    words = shlex.split(command)
    if words[0] == "make":
        targets = re.findall(r"^([\w-]+):", (root / "Makefile").read_text(), re.M)
        assert set(words[1:]) <= set(targets), command
        return
    if "-m" in words:
        module = words[words.index("-m") + 1]
        args = project_args(words[words.index("-m") + 2 :])
        if module in (package, f"{package}.fit", f"{package}.doctor", f"{package}.lr_find"):
            args = without_options(args, LR_FIND_OPTIONS) if module.endswith(".lr_find") else args
            help_ = "--help" in args or "-h" in args
            if module == package:
                _exits_0(lambda: commands.main(args if help_ else [*args, "--print_config"]), command)
            elif module == f"{package}.fit":
                _exits_0(lambda: commands.main(["--help"] if help_ else [*args, "--print_config"], "fit"), command)
            else:
                _exits_0(lambda: commands.compose(args if help_ else [*args, "--print_config"]), command)
        elif module == f"{package}.sweep":  # the sweep file's keys and values, and the objective: nothing runs
            assert commands.sweep([*args, "--check"]) == 0, command
        else:
            assert importlib.util.find_spec(module) is not None, command
        return
    # `.venv/bin/X` is the README's name for the project's environment: the one running these tests.
    tool = words[0].removeprefix(".venv/bin/")
    found = (Path(sys.executable).parent / tool).exists() or shutil.which(tool) is not None
    assert found, f"{tool} is not installed in this environment: {command}"


def _exits_0(call: Callable[[], object], command: str) -> None:
    """`--print_config` and `--help` print, then exit 0."""
    try:
        call()
    except SystemExit as exit_:
        assert exit_.code in (None, 0), f"exit {exit_.code}: {command}"
    else:
        raise AssertionError(f"printed nothing and did not exit: {command}")
