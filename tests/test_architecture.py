"""The package's shape: data flows one way (log -> events -> engine -> replay -> records ->
Parquet -> queries -> CLI and API), no import circle, no module over 600 lines.

The import graph is read from the source (every ``import`` and ``from ... import``,
including those inside functions: a lazy import is still a dependency), so the test needs
no import of the package and sees the compiled build's sources too.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "maumau_log"

LAYERS: list[set[str]] = [
    {"_select", "cards", "violations"},  # value types every layer uses
    {"events"},  # the format: events, their decoder and the JSON Schemas
    {"rules", "logs"},  # rulesets and presets; log files, lines and the .mm notation
    {"scoring"},  # round scores and match totals
    {"engine"},  # the rules engine
    {"replay", "openspiel"},  # games driven through the engine; OpenSpiel's games as logs
    {"store"},  # the Parquet dataset
    {"run", "stats", "bots"},  # runners and ingest; queries; players and the simulator
    {"audit", "disputes"},  # analyses built on all of the above
    {"cli", "api", "__init__"},  # the command line, the public API and the front door
    {"launch", "__main__"},  # the process entry
]
"""Bottom to top: a top-level module or package may import only from its own layer or the
layers below it."""


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """The package's modules ``path`` imports (dotted, without ``maumau_log.``)."""
    name = _module_name(path)
    is_package = path.name == "__init__.py"
    here = name.split(".") if is_package else name.split(".")[:-1]
    if name == "__init__":
        here = []
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - (node.level - 1)]
            elif node.module and node.module.split(".")[0] == "maumau_log":
                base = []
            else:
                continue
            module = [m for m in (node.module or "").split(".") if m]
            if not node.level:
                module = module[1:]
            target = base + module
            for alias in node.names:
                candidate = ".".join([*target, alias.name])
                found.add(candidate if _exists(candidate) else ".".join(target))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "maumau_log":
                    found.add(".".join(alias.name.split(".")[1:]))
    return {f for f in found if f and f != name}


def _exists(dotted: str) -> bool:
    base = PACKAGE.joinpath(*dotted.split("."))
    return base.with_suffix(".py").exists() or (base / "__init__.py").exists()


def _graph() -> dict[str, set[str]]:
    return {_module_name(p): _imports(p) for p in sorted(PACKAGE.rglob("*.py"))}


def _layer(module: str) -> int:
    top = module.split(".")[0]
    for i, layer in enumerate(LAYERS):
        if top in layer:
            return i
    raise AssertionError(f"{top} is in no layer of LAYERS")


def test_every_top_level_entry_has_a_layer() -> None:
    entries = {p.stem for p in PACKAGE.glob("*.py")} | {
        p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()
    }
    assert entries == set().union(*LAYERS)
    # the top of the package stays small: packages and the value types, not modules per job
    # (the public API is one package, api/, re-exported by the package's __init__)
    assert len(entries - {"__init__", "__main__", "_select"}) <= 18


def test_imports_go_down_the_layers_only() -> None:
    wrong = [
        f"{module} imports {target}"
        for module, targets in _graph().items()
        for target in targets
        if _layer(target) > _layer(module)
    ]
    assert wrong == []


def test_no_import_circle() -> None:
    """Tarjan's strongly connected components over the module graph: every one a single
    module. A package's ``__init__`` re-exporting its submodules is an edge like any other,
    so a submodule must not import its package's ``__init__``."""
    graph = _graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    assert circles == []


def test_modules_stay_under_600_lines() -> None:
    long = {
        _module_name(p): n
        for p in PACKAGE.rglob("*.py")
        if (n := p.read_text("utf-8").count("\n")) > 600
    }
    assert long == {}


def test_graph_reader_sees_relative_and_lazy_imports() -> None:
    """The reader itself, on two known edges: ``run.shard`` imports the replay driver at
    the top and the store's collector inside a function."""
    graph = _graph()
    assert "replay.driver" in graph["run.shard"]
    assert "store.collector" in graph["run.shard"]
    assert defaultdict(set, graph)["cards"] == set()
