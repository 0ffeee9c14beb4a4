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

MARKED = ("*.py", "*.toml", "*.txt", "*.yaml", "*.cfg", "Makefile", "*.md")
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


def strip_markdown_markers(text: str, excluded: set[str]) -> str:
    """A guide's version of the markers, `<!-- part: NAME -->`: at the end of a heading it takes the section (to the
    next heading as high), at the end of another line that line, alone on a line the paragraph below it."""
    lines = text.splitlines(keepends=True)
    drop: set[int] = set()
    for index, line in enumerate(lines):
        found = re.search(r"\s*<!-- part: (\w+(?:, \w+)*) -->\s*$", line)
        if not found:
            continue
        parts, alone = set(found.group(1).split(", ")), not line[: found.start()].strip()
        if not parts & excluded:
            lines[index] = "" if alone else line[: found.start()] + "\n"
            continue
        end, fenced = index + 1, False
        if line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            while end < len(lines):
                heading = re.match(r"(#+) ", lines[end])
                if not fenced and heading and len(heading.group(1)) <= level:
                    break
                fenced ^= lines[end].startswith("```")
                end += 1
        elif alone:
            while end < len(lines) and lines[end].strip():
                end += 1
        drop.update(range(index, end))
    kept = "".join(line for index, line in enumerate(lines) if index not in drop)
    return re.sub(r"\n{3,}", "\n\n", kept).rstrip("\n") + "\n"


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


def copy_library_guides(root: Path) -> None:
    """runkit's guides and README (the template's lib/docs/, lib/README.md) beside the project's own guides in docs/,
    where its code cites them."""
    for guide in sorted((root / "lib" / "docs").glob("*.md")):
        shutil.copy(guide, root / "docs" / guide.name)
    (root / "docs" / "runkit.md").write_text((root / "lib" / "README.md").read_text().replace("](docs/", "]("))


def cite_library_and_template(text: str, in_docs: bool, template_only: list[str]) -> str:
    """runkit's guides cited where the project has them (docs/), its modules package-relative (`runkit/model.py`),
    as in its own code; a file only the template has cited as the template's (a link to it becomes its text)."""
    cited = text.replace("../lib/docs/", "" if in_docs else "../docs/").replace("lib/docs/", "docs/")
    cited = cited.replace("../lib/README.md", "runkit.md" if in_docs else "../docs/runkit.md")
    cited = cited.replace("lib/README.md", "docs/runkit.md").replace("lib/runkit/", "runkit/")
    for name in template_only:
        link = rf"\[([^\]]*)\]\((?:\.\./)*{re.escape(name)}(?:#[^)]*)?\)"
        cited = re.sub(link, rf"\1 (the template's {name})", cited)
        cited = re.sub(rf"(?<![\w./-])(?<!template's ){re.escape(name)}", f"the template's {name}", cited)
    return cited


UPGRADE = """
# runkit, the library this project runs on, installs from the wheel in vendor/, built from the template's lib/ when
# the project was generated. A newer one: `make upgrade-runkit` (TEMPLATE=path/to/the/template where it has moved).
upgrade-runkit: $(STAMP)
	@test -n "$(TEMPLATE)" || { echo "make upgrade-runkit TEMPLATE=path/to/the/template (a checkout)"; exit 2; }
	rm -rf vendor/new && $(BIN)/python -m pip wheel --quiet --no-deps --wheel-dir vendor/new "$(TEMPLATE)/lib"
	rm -f vendor/*.whl && mv vendor/new/*.whl vendor/ && rmdir vendor/new
	$(BIN)/python -m pip install --quiet --no-index --find-links vendor --force-reinstall --no-deps lightning-runkit
	cp "$(TEMPLATE)"/lib/docs/*.md docs/ && sed 's#](docs/#](#g' "$(TEMPLATE)"/lib/README.md > docs/runkit.md
"""


# What a project keeps and where its guide is: the parts it needs (all kept), what it is, the guide and its file;
# a guide's sections of the parts left out are gone from it (`<!-- part: NAME -->`).
FEATURES = [
    ((), "what a model predicts (its task), the losses and the traps they hide", "tasks", "tasks.md"),
    ((), "which defaults hold on real data, measured, and your own files", "your data", "your-data.md"),
    (("cnn",), "your image folders, the residual network, transfer", "images", "your-data.md#images-cnn"),
    (
        ("cnn", "multilabel"),
        "image tagging, `--model cnn_multilabel`",
        "multilabel",
        "tasks.md#multilabel-images---model-cnn_multilabel",
    ),
    (("lstm",), "your texts, `--model lstm`", "texts", "your-data.md#texts-lstm"),
    (
        ("lstm",),
        "sensor, speech and motion sequences, `--model lstm_sequences`",
        "numeric sequences",
        "your-data.md#numeric-sequences-lstm-sensors-speech-features-motion",
    ),
    (("lstm",), "a tag per token, `--model lstm_tagger`", "tagging", "tasks.md#tagging---model-lstm_tagger"),
    (
        ("lstm", "regression"),
        "forecasting one or many series, `--model lstm_forecast`",
        "forecasting",
        "tasks.md#forecasting---model-lstm_forecast",
    ),
    (("gcn",), "TU and Planetoid files, node and graph level", "graphs", "your-data.md#graphs-gcn"),
    (("gcn",), "links from your edge lists, `--model gcn_link`", "link prediction", "link-prediction.md"),
    (
        ("gcn", "regression"),
        "a graph's property, `--model gcn_regression`",
        "graph regression",
        "tasks.md#graph-regression---model-gcn_regression",
    ),
    (
        ("gcn", "molecules"),
        "SMILES and SDF files through RDKit",
        "molecules",
        "your-data.md#molecules-gcn-the-molecules-extra",
    ),
    (("notebooks",), "the teaching notebooks, executed by the tests", "notebooks", "notebooks.md"),
    ((), "pre-flight checks, logs, the runs table, the LR range test, profiling", "diagnostics", "diagnostics.md"),
    ((), "Optuna sweeps, repeated seeds and folds", "sweeps", "sweeps.md"),
    ((), "MLflow, W&B offline and CSV beside TensorBoard", "trackers", "trackers.md"),
    ((), "safetensors and ONNX, checked against the checkpoint", "export", "export.md"),
    ((), "an HTTP endpoint per model on LitServe", "serving", "serving.md"),
    ((), "exact resume, signals, DDP equal to one process, safe loading", "reliability", "reliability.md"),
    ((), "several GPUs and machines, SLURM", "scaling out", "scaling-out.md"),
]


def readme(families: list[str], kept: set[str]) -> str:
    first = families[0]
    runs = "\n".join(f".venv/bin/python -m project.fit --model {f}   # {DESCRIPTIONS[f]}" for f in families)
    guides = "\n".join(
        f"- {what}: [{name}](docs/{guide})" for parts, what, name, guide in FEATURES if set(parts) <= kept
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

## What it keeps, and the guides

{guides}

## Layout

```
project/     fit.py, doctor.py, sweep.py, ...: the commands, a few lines each; registry.py: the families
  nets/      plain nn.Modules;  models/  LightningModules;  data/  DataModules;  serving/  request readers
configs/     trainer.yaml (shared), one YAML per family, presets/, sweeps/, loggers/
docs/        the guides above; runkit's are copied from its release
vendor/      runkit, the library the project runs on, as a wheel (below)
tests/       the test suite
```

## runkit

What runs the project and is not yours to edit (the tasks, the training system your LightningModules extend, the
command line, callbacks, checkpoints, trackers, sweeps, serving, the tools; [runkit](docs/runkit.md)) is a library,
runkit (`lightning-runkit` in `pyproject.toml`), installed by `make setup` from the wheel in `vendor/`, built from
the template when this project was generated. To take a newer one with its guides, from the template's checkout:
`make upgrade-runkit` (`TEMPLATE=path/to/it` if it moved). A runkit older than the project's code needs stops
every command at start with one line that says so.
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
    copy_library_guides(root)
    template_only = [name for name in parts["template_only"] if not name.endswith("/")]
    for pattern in MARKED:
        for path in root.rglob(pattern):
            if ".venv" in path.parts or path.relative_to(root).parts[0] == "lib":  # runkit installs whole
                continue
            text = path.read_text()
            if path.suffix == ".md":
                kept = strip_markdown_markers(text, excluded)
            else:
                kept = strip_markers(text, excluded, path.suffix == ".py")
            if path.suffix not in (".txt", ".cfg"):
                kept = cite_library_and_template(kept, path.parent.name == "docs", template_only)
            if kept != text:
                path.write_text(kept)
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
    (root / "README.md").write_text(readme(families, {name for name, keep in chosen.items() if keep}))


if __name__ == "__main__":
    main()
