"""Every file a project's text names, checked to exist: a guide's links, and the paths its code, configs and guides
cite (`docs/serving.md`, `configs/trainer.yaml`, `runkit/serving/api.py`). A generated project keeps some of the
template's files and not others; a reference to one it does not have is the mistake this finds."""

import importlib.util
import re
from collections.abc import Iterable
from pathlib import Path

TEXT = ("*.md", "*.py", "*.yaml", "*.toml", "Makefile")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
# A path from one of a project's own folders, or from the installed library (package-relative, as its code cites it).
FOLDERS = ("docs", "benchmarks", "lib", "tests", "project", "configs", "notebooks", "examples", "hooks", "runkit")
PATH = re.compile(rf"(?<![\w./<-])((?:\.\./)*(?:{'|'.join(FOLDERS)})/[\w./*-]*[\w/*])")
SKIPPED = (".venv", ".git", "logs", "data", "vendor", "build", ".ruff_cache", ".pytest_cache")
TEMPLATES = re.compile(r"the template's `?[\w./-]+")  # a file the template has and its projects do not
PLACEHOLDER = re.compile(r"\b(NAME|MODEL|FAMILY)\b")  # configs/NAME.yaml: a pattern, not a file


def text_files(root: Path, ignore: Iterable[str] = ()) -> Iterable[Path]:
    for pattern in TEXT:
        for path in sorted(root.rglob(pattern)):
            relative = path.relative_to(root)
            if not set(relative.parts) & set(SKIPPED) and ".egg-info" not in str(path) and str(relative) not in ignore:
                yield path


def _home(path: Path, root: Path) -> Path:
    """The folder a file's paths are cited from: the nearest with a pyproject.toml (the library's own in lib/)."""
    for folder in path.parents:
        if (folder / "pyproject.toml").exists() or folder == root:
            return folder
    return root


def _exists(target: str, base: Path) -> bool:
    if any(c in target for c in "*?["):
        return any(base.glob(target))
    return (base / target).exists()


def dangling(root: Path, package: str = "runkit", ignore: Iterable[str] = ()) -> list[str]:
    """`file:line: target` for each link or cited path that names no file: links from the linking file's folder,
    paths from the project's root or the citing file's own (a library's inside the project; `../` ones from the
    citing file's folder), `runkit/...` from the installed library. `ignore`: files (relative to root) whose paths
    are patterns. A guide's commands (its bash blocks) are examples on the template's families, run as written by
    the template's suite, not citations."""
    spec = importlib.util.find_spec(package)
    installed = Path(spec.origin).parent.parent if spec and spec.origin else root
    found = []
    for path in text_files(root, ignore):
        home = _home(path, root)
        command = False
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if path.suffix == ".md" and line.startswith("```"):
                command = line.startswith("```bash")
            if command:
                continue
            links = [t for t in LINK.findall(line) if path.suffix == ".md" and not re.match(r"[a-z]+:|#", t)]
            for target in links:
                if not _exists(target.split("#")[0], path.parent):
                    found.append(f"{path.relative_to(root)}:{number}: {target}")
            cited = LINK.sub("", line) if path.suffix == ".md" else line
            for target in PATH.findall(TEMPLATES.sub("", cited)):
                bases = [installed] if target.startswith(f"{package}/") else [home, root]
                bases = [path.parent] if target.startswith("../") else bases
                if not PLACEHOLDER.search(target) and not any(_exists(target.rstrip("."), b) for b in bases):
                    found.append(f"{path.relative_to(root)}:{number}: {target}")
    return found
