"""A project's import layering, read from its source: the rooms of its package import downwards only (in the order
the project writes down), no two modules import each other, and runkit is reached through its public names alone.
Every import counts, those inside functions and under `if TYPE_CHECKING` too."""

import ast
import graphlib
from collections.abc import Collection, Sequence
from pathlib import Path


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, dotted name) for every absolute import in `path`, however deep or lazy: `a.b.c` for both
    `import a.b.c` and `from a.b import c`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found += [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
    return found


def room_of(path: Path, package: Path, top_modules: Collection[str]) -> str:
    """A module's room: its folder under the package; a top-level module is its own room if named in `top_modules`,
    else one of the thin commands (`entries`)."""
    parts = path.relative_to(package).parts
    if len(parts) > 1:
        return parts[0]
    return path.stem if path.stem in top_modules else "entries"


def violations(package: Path, layers: Sequence[str], top_modules: Collection[str] = ()) -> list[str]:
    """Each import of a room that comes later in `layers` (lowest first) than the importing module's own."""
    found = []
    for path in sorted(package.rglob("*.py")):
        own = room_of(path, package, top_modules)
        for line, name in imports(path):
            if not name.startswith(f"{package.name}."):
                continue
            target = name.split(".")[1]
            target = target if target in layers else "entries"
            if own not in layers:
                found.append(f"{path.relative_to(package)}: room {own!r} is not in the layers")
            elif layers.index(target) > layers.index(own):
                found.append(f"{path.relative_to(package)}:{line}: {own} imports {target}, which sits above it")
    return found


def module_cycle(package: Path) -> list[str]:
    """A cycle of modules importing each other (by any import, however deep or lazy), or []."""
    modules = {}
    for path in package.rglob("*.py"):
        modules[".".join(path.relative_to(package.parent).with_suffix("").parts).removesuffix(".__init__")] = path
    graph = {}
    for name, path in modules.items():
        # `from a.b import c` imports module a.b.c where there is one, else a.b
        found = {name if name in modules else name.rpartition(".")[0] for _, name in imports(path)}
        graph[name] = {m for m in found if m in modules and m != name}
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as error:
        return error.args[1]
    return []


def runkit_imports(path: Path) -> list[tuple[int, str]]:
    """(line, what) for every import of runkit in `path`: NAME for `from runkit import NAME`, `compat.X` for
    `from runkit.compat import X`, "" for `import runkit`."""
    return [
        (line, name.removeprefix("runkit").lstrip("."))
        for line, name in imports(path)
        if name.split(".")[0] == "runkit"
    ]


def outside_public_api(package: Path) -> list[str]:
    """`file:line: name` for each import of runkit by `package` that is not one of `runkit.__all__`."""
    import runkit

    public = {*runkit.__all__, ""}
    return [
        f"{path.relative_to(package).as_posix()}:{line}: {what}"
        for path in sorted(package.rglob("*.py"))
        for line, what in runkit_imports(path)
        if what not in public
    ]
