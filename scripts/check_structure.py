"""Structure rules of the tree, checked by `make lint` (scripts/lint.sh):

1. No source module over 450 lines (Python in the listed folders, TypeScript in
   frontend/src), except generated files (a GENERATED marker in their first lines) and
   Django migrations.
2. No import cycle between the modules of a Python package (every `*/src/<package>/`).
   Every `import` counts, function-level ones included: a cycle hidden inside a function
   is still a cycle. Imports under `if TYPE_CHECKING:` are skipped (never run). An import
   points at the most specific module it names: `from pkg import name` points at
   `pkg.name` when that is a submodule, else at `pkg` (its `__init__`).
3. No import cycle between frontend/src modules. `import type` / `export type` are skipped
   (erased by the compiler); `import('./x')` counts, like Python's function-level imports.

Usage: check_structure.py [--root DIR]. Prints each violation (each cycle as a chain
`a -> b -> a` with the importing line of every link) and exits 1 when there is any.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections import deque
from collections.abc import Iterable, Iterator
from itertools import pairwise
from pathlib import Path

MAX_LINES = 450
#: Folders whose Python files must stay under the limit (relative to the root).
PYTHON_ROOTS = (
    "backend/src",
    "analysis/src",
    "analysis/tests",
    "netem-agent",
    "netem-profile",
    "steer",
    "testkit",
    "e2e",
    "deploy",
    "scripts",
)
FRONTEND_SRC = "frontend/src"
FRONTEND_SUFFIXES = (".ts", ".tsx")
SKIPPED_DIRS = {"node_modules", "__pycache__", ".venv", "dist", "build"}
#: Lines read for a generated-file marker.
MARKER_LINES = 5
GENERATED = re.compile(r"\bGENERATED\b|@generated|auto-generated")

#: A graph: module -> {imported module: line of the first such import}.
Graph = dict[str, dict[str, int]]


def _files(root: Path, suffixes: tuple[str, ...]) -> Iterator[Path]:
    if not root.is_dir():
        return
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).parts
        if any(part in SKIPPED_DIRS or part.startswith(".") for part in relative[:-1]):
            continue
        if path.is_file() and path.name.endswith(suffixes):
            yield path


def _is_generated(text: str) -> bool:
    return bool(GENERATED.search("\n".join(text.splitlines()[:MARKER_LINES])))


def oversized(root: Path) -> list[str]:
    """`path: N lines` for every hand-written module over MAX_LINES."""
    candidates: list[Path] = []
    for folder in PYTHON_ROOTS:
        candidates += [p for p in _files(root / folder, (".py",)) if "migrations" not in p.parts]
    candidates += list(_files(root / FRONTEND_SRC, FRONTEND_SUFFIXES))
    found = []
    for path in candidates:
        text = path.read_text(encoding="utf-8")
        lines = len(text.splitlines())
        if lines > MAX_LINES and not _is_generated(text):
            found.append(f"{path.relative_to(root)}: {lines} lines (limit {MAX_LINES})")
    return found


# --- Python import graph ---------------------------------------------------------------


def python_packages(root: Path) -> list[Path]:
    """Every `<project>/src/<package>` with an `__init__.py`."""
    return sorted(p.parent for p in root.glob("*/src/*/__init__.py"))


def _module_names(package: Path) -> dict[str, Path]:
    names = {}
    for path in _files(package, (".py",)):
        parts = path.relative_to(package.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join(parts)] = path
    return names


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement at any depth, except under `if TYPE_CHECKING:`."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
        else:
            stack.extend(ast.iter_child_nodes(node))


def _targets(
    node: ast.Import | ast.ImportFrom, module: str, is_package: bool, known: set[str]
) -> Iterator[str]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            name = alias.name
            while name and name not in known:  # `import a.b.attr` is not valid, but be safe
                name = name.rpartition(".")[0]
            if name:
                yield name
        return
    if node.level:
        base = module if is_package else module.rpartition(".")[0]
        for _ in range(node.level - 1):
            base = base.rpartition(".")[0]
        source = f"{base}.{node.module}" if node.module else base
    else:
        source = node.module or ""
    for alias in node.names:
        submodule = f"{source}.{alias.name}"
        if submodule in known:
            yield submodule
        elif source in known:
            yield source


def python_graph(package: Path) -> Graph:
    """The import graph between the modules of one package."""
    modules = _module_names(package)
    known = set(modules)
    graph: Graph = {name: {} for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in _imports(tree):
            for target in _targets(node, name, path.name == "__init__.py", known):
                if target != name:
                    line = graph[name].get(target, node.lineno)
                    graph[name][target] = min(line, node.lineno)
    return graph


# --- Frontend import graph -------------------------------------------------------------

#: `import ... from './x'`, `export ... from './x'`, `import './x'` at the start of a line
#: (top-level statements; the formatter puts them there), and `import('./x')` anywhere.
_STATIC = re.compile(
    r"^(?:import|export)\s+(?P<type>type\s+)?(?:[^'\";]*?\bfrom\s*)?['\"](?P<spec>\.[^'\"]*)['\"]",
    re.MULTILINE,
)
_DYNAMIC = re.compile(r"\bimport\(\s*['\"](?P<spec>\.[^'\"]*)['\"]\s*\)")
_RESOLUTIONS = ("", ".ts", ".tsx", "/index.ts", "/index.tsx")


def _resolve(importer: Path, spec: str, modules: set[Path]) -> Path | None:
    base = (importer.parent / spec).resolve()
    for suffix in _RESOLUTIONS:
        candidate = Path(f"{base}{suffix}")
        if candidate in modules:
            return candidate
    return None


def frontend_graph(src: Path) -> Graph:
    """The import graph between frontend/src modules (relative specifiers only)."""
    paths = {p.resolve() for p in _files(src, FRONTEND_SUFFIXES)}
    base = src.resolve()
    graph: Graph = {}
    for path in sorted(paths):
        name = str(path.relative_to(base))
        edges = graph.setdefault(name, {})
        text = path.read_text(encoding="utf-8")
        specs = [(m, m["spec"]) for m in _STATIC.finditer(text) if not m["type"]]
        specs += [(m, m["spec"]) for m in _DYNAMIC.finditer(text)]
        for match, spec in specs:
            target = _resolve(path, spec, paths)
            if target is not None and target != path:
                line = text.count("\n", 0, match.start()) + 1
                key = str(target.relative_to(base))
                edges[key] = min(edges.get(key, line), line)
    return graph


# --- Cycles ----------------------------------------------------------------------------


def _components(graph: Graph) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph.get(succ, {})))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                if len(members) > 1:
                    found.append(sorted(members))
    return sorted(found)


def _shortest_cycle(graph: Graph, start: str, allowed: set[str]) -> list[str]:
    previous: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for succ in sorted(graph[node]):
            if succ == start:
                chain = [node]
                while chain[-1] != start:
                    chain.append(previous[chain[-1]])
                return [*reversed(chain), start]
            if succ in allowed and succ not in previous:
                previous[succ] = node
                queue.append(succ)
    raise AssertionError(f"{start} is in a component but on no cycle")


def cycles(graph: Graph) -> list[list[str]]:
    """Chains `[a, b, ..., a]` covering every module that is on a cycle: per component, the
    shortest cycle through each module that no earlier chain passed through."""
    chains = []
    for component in _components(graph):
        members = set(component)
        covered: set[str] = set()
        for module in component:
            if module not in covered:
                chain = _shortest_cycle(graph, module, members)
                covered.update(chain)
                chains.append(chain)
    return chains


def describe(chain: list[str], graph: Graph) -> str:
    links = [f"{a} (line {graph[a][b]})" for a, b in pairwise(chain)]
    return " -> ".join([*links, chain[-1]])


def import_cycles(root: Path) -> list[str]:
    found = []
    graphs: list[tuple[str, Graph]] = [(p.name, python_graph(p)) for p in python_packages(root)]
    if (root / FRONTEND_SRC).is_dir():
        graphs.append((FRONTEND_SRC, frontend_graph(root / FRONTEND_SRC)))
    for label, graph in graphs:
        found += [f"{label}: {describe(chain, graph)}" for chain in cycles(graph)]
    return found


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    args = parser.parse_args(None if argv is None else list(argv))
    sizes = oversized(args.root)
    loops = import_cycles(args.root)
    for line in sizes:
        print(f"too long: {line}")
    for line in loops:
        print(f"import cycle: {line}")
    if sizes or loops:
        print(f"structure: {len(sizes)} module(s) too long, {len(loops)} import cycle(s)")
        return 1
    print("structure: clean")
    return 0


if __name__ == "__main__":
    sys.exit(main())
