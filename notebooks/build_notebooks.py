"""Writes each `notebooks/cells/NAME.py` as `notebooks/NAME.ipynb`: `python notebooks/build_notebooks.py`.

The cell sources are plain Python in the "percent" format (`# %%` starts a code cell, `# %% [markdown]`
a markdown cell of `# `-prefixed lines; Jupytext and VS Code read it too), so they are linted, diffed
and reviewed as code. The notebooks are stored without outputs; the test suite executes them (nbmake)
and checks that they match their sources.
"""

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent
SOURCES = HERE / "cells"


def parse(source: str) -> list[nbformat.NotebookNode]:
    """Percent-format text → notebook cells."""
    cells, kind, lines = [], None, []

    def flush() -> None:
        text = "\n".join(lines).strip()
        if kind == "markdown":
            text = "\n".join(line.removeprefix("#").removeprefix(" ") for line in text.splitlines())
            cells.append(new_markdown_cell(text))
        elif kind == "code":
            cells.append(new_code_cell(text))

    for line in source.splitlines():
        if line.startswith("# %%"):
            flush()
            kind, lines = ("markdown" if "[markdown]" in line else "code"), []
        else:
            lines.append(line)
    flush()
    return cells


def build(source: Path) -> nbformat.NotebookNode:
    notebook = new_notebook(cells=parse(source.read_text()))
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for i, cell in enumerate(notebook.cells):
        cell.id = f"cell-{i:02d}"  # stable ids: a rebuild changes only what changed
    return notebook


def main(out_dir: Path = HERE) -> list[Path]:
    written = []
    for source in sorted(SOURCES.glob("*.py")):
        path = out_dir / f"{source.stem}.ipynb"
        nbformat.write(build(source), path)
        written.append(path)
    return written


if __name__ == "__main__":
    main()
