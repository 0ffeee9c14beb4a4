"""Every command in the README's `bash` blocks parses, as written: a project command composes its config
(`--print_config`), `make` names a target of the Makefile, a tool exists. Nothing is trained here."""

import importlib.util
import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

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


COMMANDS = bash_commands((ROOT / "README.md").read_text())


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
    """The arguments after `-m project...`, with optional `[...]` brackets opened and run artifacts left out."""
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


def composes(module: str, args: list[str], capsys) -> None:
    from project.cli import compose, main

    if "--help" in args or "-h" in args:
        command = ["--help"] if module == "project.fit" else args
    else:
        command = [*args, "--print_config"]
    with pytest.raises(SystemExit) as exit_:
        if module == "project.fit":
            main(command, subcommand="fit")
        elif module == "project":
            main(command)
        else:
            compose(command)
    assert exit_.value.code in (None, 0), capsys.readouterr().err[-2000:]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_readme_command_parses(command, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)  # as the README runs them: from the repository root (--print_config writes nothing)
    words = shlex.split(command)
    if words[0] == "make":
        targets = re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(), re.M)
        assert set(words[1:]) <= set(targets), command
        return
    if "-m" in words:
        module = words[words.index("-m") + 1]
        args = project_args(words[words.index("-m") + 2 :])
        if module in ("project", "project.fit", "project.doctor"):
            composes(module, args, capsys)
        elif module == "project.lr_find":
            composes(module, without_options(args, LR_FIND_OPTIONS), capsys)
        elif module == "project.sweep":  # the sweep file's keys and values, and the objective: nothing runs
            from project.sweep import main

            assert main([*args, "--check"]) == 0, command
        else:
            assert importlib.util.find_spec(module) is not None, command
        return
    # `.venv/bin/X` is the README's name for the project's environment: the one running these tests.
    tool = words[0].removeprefix(".venv/bin/")
    found = (Path(sys.executable).parent / tool).exists() or shutil.which(tool) is not None
    assert found, f"{tool} is not installed in this environment: {command}"


def test_the_readme_has_commands():
    assert len(COMMANDS) >= 5 and any("project.fit" in c for c in COMMANDS)
