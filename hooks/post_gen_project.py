"""Runs inside the newly generated project: names it, and keeps only the parts that were chosen.

parts.yaml says what belongs to each part (a model family, a task beyond multiclass, the notebooks, the CI
workflow): an excluded part takes its folders and files, its notebooks and its dependencies with it, and
every line or statement the template marks `# part: NAME` in the files the parts share: a line ending in
the marker goes (with the lines its brackets span), a marker alone on a line takes the statement below
it. `# part: cnn, multilabel` marks what needs both: it goes when either is excluded. The markers of the
parts kept are removed too.
"""

import ast
import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml  # cookiecutter's own dependency

# fmt: off
# Single-quoted: jsonify writes a double-quoted JSON string into each.
NAME = json.loads(r'''{{ cookiecutter.project_name | jsonify }}''')
SLUG = json.loads(r'''{{ cookiecutter.project_slug | jsonify }}''')
DESCRIPTION = json.loads(r'''{{ cookiecutter.description | jsonify }}''')
AUTHOR = json.loads(r'''{{ cookiecutter.author | jsonify }}''')
TEMPLATE = json.loads(r'''{{ cookiecutter._template | jsonify }}''')  # as given to cookiecutter
# fmt: on
CHOSEN = {
    "cnn": "{{ cookiecutter.include_cnn }}" == "yes",
    "lstm": "{{ cookiecutter.include_lstm }}" == "yes",
    "gcn": "{{ cookiecutter.include_gcn }}" == "yes",
}
TASKS = {
    "multilabel": "{{ cookiecutter.include_multilabel }}" == "yes",
    "regression": "{{ cookiecutter.include_regression }}" == "yes",
}
MOLECULES = "{{ cookiecutter.include_molecules }}" == "yes"
NOTEBOOKS = "{{ cookiecutter.include_notebooks }}" == "yes"
GITHUB_ACTIONS = "{{ cookiecutter.include_github_actions }}" == "yes"
FAMILIES = ("cnn", "lstm", "gcn")

MARKED = ("*.py", "*.toml", "*.txt", "*.yaml", "*.cfg", "Makefile")
DESCRIPTIONS = {
    "cnn": "a CNN image classifier (generated shapes, or your image folders)",
    "lstm": "an LSTM sequence classifier (generated sequences, or your CSV/TSV/JSONL texts)",
    "gcn": "a GCN for graph-, node- and link-level tasks (generated graphs, TU and Planetoid files, edge lists)",
}


def remove(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path)
    elif path.exists():
        path.unlink()


def remove_part(root: Path, part: dict) -> None:
    """Delete a part's folders and files, its notebooks (cells and built .ipynb) and its requirement lines."""
    for name in part["paths"]:
        remove(root / name)
    for name in part["notebooks"]:
        remove(root / "notebooks" / "cells" / f"{name}.py")
        remove(root / "notebooks" / f"{name}.ipynb")
    for requirements in ("pyproject.toml", "constraints.txt"):
        path = root / requirements
        text = path.read_text()
        for name in part["dependencies"]:
            text = re.sub(rf'(?m)^\s*"?{re.escape(name)}(\[[^\]]*\])?\s*(==|>=|<=|~=|!=|<|>|")[^\n]*\n', "", text)
        path.write_text(text)


def strip_markers(text: str, excluded: set[str], is_python: bool) -> str:
    """Drop what is marked for an excluded part; drop the markers of the parts kept."""
    lines = text.splitlines(keepends=True)
    statements = {}
    if is_python:
        for node in ast.parse(text).body:
            first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
            statements[first] = node.end_lineno
    drop: set[int] = set()
    for number, line in enumerate(lines, start=1):
        found = re.search(r"\s*# part: (\w+(?:, \w+)*)\s*$", line)
        if not found:
            continue
        parts, alone = set(found.group(1).split(", ")), line.strip().startswith("# part:")
        if not parts & excluded:
            lines[number - 1] = "" if alone else line[: found.start()] + "\n"
        elif alone:
            drop.update(range(number, statements[number + 1] + 1))
        else:
            drop.update(_bracketed(lines, number))
    kept = "".join(line for number, line in enumerate(lines, start=1) if number not in drop)
    return re.sub(r"\n{4,}", "\n\n\n", kept).rstrip("\n") + "\n"


def _bracketed(lines: list[str], number: int) -> range:
    """The marked line and, when it closes brackets opened above, the lines up to where they opened."""
    balance, start = 0, number
    while True:
        code = lines[start - 1].split("#")[0]
        balance += code.count(")") + code.count("]") + code.count("}")
        balance -= code.count("(") + code.count("[") + code.count("{")
        if balance <= 0 or start == 1:
            return range(start, number + 1)
        start -= 1


def edit(path: Path, *replacements: tuple[str, str]) -> None:
    text = path.read_text()
    for old, new in replacements:
        if old not in text:
            raise SystemExit(f"post_gen_project: {path} no longer contains {old!r}; update the hook")
        text = text.replace(old, new)
    path.write_text(text)


def vendor_library(root: Path) -> None:
    """The library the project runs on (the template's lib/) as a wheel in vendor/, which the project's Makefile
    installs from; its source goes with the template."""
    command = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(root / "vendor")]
    if importlib.util.find_spec("setuptools"):
        command.append("--no-build-isolation")  # offline, and seconds faster
    built = subprocess.run([*command, str(root / "lib")], capture_output=True, text=True)
    if built.returncode != 0:
        raise SystemExit(f"post_gen_project: building the runkit wheel from lib/ failed:\n{built.stderr[-2000:]}")
    remove(root / "lib")


UPGRADE = """
# runkit, the library this project runs on, installs from the wheel in vendor/, built from the template's lib/ when
# the project was generated. A newer one: `make upgrade-runkit` (TEMPLATE=path/to/the/template where it has moved).
upgrade-runkit: $(STAMP)
	@test -n "$(TEMPLATE)" || { echo "make upgrade-runkit TEMPLATE=path/to/the/template (a checkout)"; exit 2; }
	rm -rf vendor/new && $(BIN)/python -m pip wheel --quiet --no-deps --wheel-dir vendor/new "$(TEMPLATE)/lib"
	rm -f vendor/*.whl && mv vendor/new/*.whl vendor/ && rmdir vendor/new
	$(BIN)/python -m pip install --quiet --no-index --find-links vendor --force-reinstall --no-deps lightning-runkit
"""


def readme(families: list[str]) -> str:
    first = families[0]
    runs = "\n".join(f".venv/bin/python -m project.fit --model {f}   # {DESCRIPTIONS[f]}" for f in families)
    notebooks = (
        "\n## Notebooks\n\n`notebooks/` holds teaching notebooks, executed by the test suite; edit their cells in\n"
        "`notebooks/cells/` and rebuild them with `.venv/bin/python notebooks/build_notebooks.py`.\n"
        if NOTEBOOKS
        else ""
    )
    return f"""# {NAME}

{DESCRIPTION}

Model families: {", ".join(families)}. Generated from the Lightning project template: Lightning's
Trainer does the engineering, torchmetrics the metrics; a family is a network (`project/nets/`), a
LightningModule (`project/models/`), a DataModule (`project/data/`) and a config (`configs/`).

## Quickstart

```bash
make train   # creates .venv, installs the pinned versions, trains the {first} model
make test    # the tests (`make test-slow`: the slow end-to-end runs; `make lint` runs ruff)
```

## Running

```bash
{runs}
.venv/bin/python -m project.fit --model {first} --config configs/presets/debug.yaml   # presets stack
.venv/bin/python -m project.doctor --model {first}    # pre-flight checks of data and model, with a verdict
.venv/bin/python -m project.lr_find --model {first}   # LR range test: a plot and a suggestion
.venv/bin/tensorboard --logdir logs
```

Every run writes `logs/<family>/version_N/`: TensorBoard events, `train.log`, `config.yaml` (repeat
the run with `--config`), and checkpoints. `--help` lists every option.
{notebooks}
## Layout

```
project/     fit.py, doctor.py, ...: the commands; cli/ (LightningCLI, registry.py: --model NAME), tools/
  nets/      plain nn.Modules;  models/  LightningModules;  data/  DataModules;  tasks/  what a model predicts
  callbacks/ checkpoints/ trackers/ sweeps/   a run's machinery
vendor/      runkit, the library the project runs on, as a wheel (below)
configs/     trainer.yaml (shared), one YAML per family, presets/
benchmarks/  scripts that print tables
tests/       the test suite
```

## runkit

What runs the project and is not yours to edit (user errors, atomic writes, every Lightning workaround, the
DataModule your DataModules extend, so far) is a library, runkit (`lightning-runkit` in `pyproject.toml`),
installed by `make setup` from the wheel in `vendor/`, built from the template when this project was generated.
To take a newer one, from the template's checkout: `make upgrade-runkit` (`TEMPLATE=path/to/it` if it moved). A
runkit older than the project's code needs stops every command at start with one line that says so.
"""


def main() -> None:
    root = Path.cwd()
    parts = yaml.safe_load((root / "parts.yaml").read_text())
    chosen = {**CHOSEN, **TASKS, "notebooks": NOTEBOOKS, "github_actions": GITHUB_ACTIONS}
    chosen["molecules"] = MOLECULES and CHOSEN["gcn"]  # molecules are graphs: they go with the GCN
    excluded = {name for name, keep in chosen.items() if not keep} | {"board", "template"}  # the template's own
    families = [family for family in FAMILIES if CHOSEN[family]]
    for name in excluded:
        remove_part(root, parts[name])
    for name in parts["template_only"]:
        remove(root / name)
    edit(
        root / "pyproject.toml",
        ('testpaths = ["tests", "lib/tests", "notebooks"]', 'testpaths = ["tests", "notebooks"]'),
        ('\nsrc = [".", "lib/tests"]  # lib/tests\' helpers are first-party', ""),
        ('\n"lib/tests/*" = ["RUF043"]', ""),
    )
    if not NOTEBOOKS:
        edit(root / "pyproject.toml", ('testpaths = ["tests", "notebooks"]', 'testpaths = ["tests"]'))
    for pattern in MARKED:
        for path in root.rglob(pattern):
            if ".venv" not in path.parts and path.relative_to(root).parts[0] != "lib":  # runkit installs whole
                path.write_text(strip_markers(path.read_text(), excluded, path.suffix == ".py"))
    authors = "{ name = " + json.dumps(AUTHOR) + " }"  # no double braces: this file is a Jinja template
    edit(
        root / "pyproject.toml",
        ('name = "lightning-project-template"', f"name = {json.dumps(SLUG)}"),
        (
            'description = "A PyTorch Lightning template that teaches by working code: LSTM, CNN and GCN classifiers."',
            f"description = {json.dumps(DESCRIPTION)}\nauthors = [{authors}]",
        ),
    )
    edit(
        root / "Makefile",
        ("trains the CNN", f"trains the {families[0]} model"),
        ("-m project.fit --model cnn", f"-m project.fit --model {families[0]}"),
        ("from this checkout's lib/ beside the project.", "from vendor/ (make upgrade-runkit below)."),
        ("$(STAMP): pyproject.toml lib/pyproject.toml constraints.txt", "$(STAMP): pyproject.toml constraints.txt"),
        ("-c constraints.txt -e ./lib -e", "-c constraints.txt --find-links vendor -e"),
        (".PHONY: setup", ".PHONY: upgrade-runkit setup"),
    )
    (root / "Makefile").write_text((root / "Makefile").read_text() + UPGRADE)
    edit(
        root / "pyproject.toml",
        ("the Makefile installs it from this checkout", "the Makefile installs it from vendor/"),
    )
    # A project stops at start when its runkit is older than its code needs, naming the command that upgrades it,
    # which builds from the template this project came from while that checkout is where it was.
    edit(root / "project" / "__init__.py", ('upgrade="make setup"', 'upgrade="make upgrade-runkit"'))
    if Path(TEMPLATE).is_absolute() and (Path(TEMPLATE) / "lib").is_dir():
        edit(root / "Makefile", ("\nupgrade-runkit:", f"\nTEMPLATE ?= {TEMPLATE}\nupgrade-runkit:"))
    vendor_library(root)
    (root / "README.md").write_text(readme(families))


if __name__ == "__main__":
    main()
