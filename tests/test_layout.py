"""The layout stays as built: rooms by job, imports one way, no cycle (read from the source)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).parents[1]

# Each room's rank: a module may import its own room or a room ranked lower, never higher.
RANKS = {
    "policies": 0,
    "playground": 1,  # the root modules: limits, cache_dir
    "playground.summaries": 2,
    "playground.engine": 3,
    "playground.formats": 4,
    "playground.money": 4,
    "playground.models": 4,
    "playground.measures": 5,
    "playground.stacks": 6,
    "playground.export": 7,
    "playground.analyses": 8,
    "playground.charts": 9,
    "playground.cli": 10,
    "playground.ui": 10,
}
APART = {("playground.cli", "playground.ui"), ("playground.ui", "playground.cli")}


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    files = [*ROOT.glob("playground/**/*.py"), *ROOT.glob("policies/**/*.py")]
    return {_module_name(path): path for path in files}


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """Every project module the file imports, at the top or inside a function: ``from x import
    y`` imports module ``x.y`` where y is a module, else the module (or package) ``x`` itself,
    even where the same file imports another module of package x too."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                name = f"{node.module}.{alias.name}"
                if name in modules:
                    found.add(name)
                elif node.module in modules:
                    found.add(node.module)
    return found


def _room(module: str) -> str:
    if module.startswith("policies"):
        return "policies"
    parts = module.split(".")
    if len(parts) == 2 and f"playground.{parts[1]}" not in RANKS:
        return "playground"
    return ".".join(parts[:2]) if len(parts) > 1 else "playground"


def test_at_most_two_modules_sit_directly_in_playground():
    loose = sorted(p.name for p in (ROOT / "playground").glob("*.py") if p.name != "__init__.py")
    assert len(loose) <= 2, loose


def test_every_room_says_what_lives_there_and_what_it_may_import():
    for room in RANKS:
        if room in ("policies", "playground"):
            continue
        init = ROOT / room.replace(".", "/") / "__init__.py"
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc and "import" in doc, f"{init} has no docstring saying what it may import"


def test_every_module_lives_in_a_room():
    for module in _modules():
        assert _room(module) in RANKS, f"{module} is in no room"


def test_imports_run_one_way():
    modules = _modules()
    wrong = []
    for module, path in modules.items():
        room = _room(module)
        for target in _imports(path, modules):
            there = _room(target)
            if (room, there) in APART or (there != room and RANKS[there] > RANKS[room]):
                wrong.append(f"{module} imports {target}")
    assert not wrong, "\n".join(wrong)


def test_no_import_cycle_between_modules():
    modules = _modules()
    graph = {module: _imports(path, modules) - {module} for module, path in modules.items()}
    state: dict[str, int] = {}
    cycles = []

    def visit(module: str, trail: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                cycles.append(" -> ".join([*trail[trail.index(target) :], target]))
            elif target not in state:
                visit(target, [*trail, target])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert not cycles, "\n".join(cycles)


def test_one_module_starts_worker_processes():
    starting = {"ProcessPoolExecutor", "LocalCluster", "get_context", "Pool"}
    found = set()
    for name, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            called = node.func if isinstance(node, ast.Call) else None
            called_name = getattr(called, "attr", None) or getattr(called, "id", None)
            if called_name in starting:
                found.add(name)
    assert found == {"playground.analyses.runner"}


def test_no_module_outside_policies_names_a_policy_class_in_a_string():
    """What a policy is decides what code does with it through the class (its declarations, a
    table keyed by it), never through its name written out: a renamed class breaks an import."""
    from policies.registry import POLICY_TYPES

    named = []
    for name, path in _modules().items():
        if name.startswith("policies"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in POLICY_TYPES:
                named.append(f"{name}:{node.lineno} {node.value}")
    assert not named


def test_recommend_and_corpus_are_packages_of_small_modules():
    for package in ("recommend", "corpus"):
        folder = ROOT / "playground" / "analyses" / package
        assert (folder / "__init__.py").is_file()
        sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in folder.glob("*.py")}
        assert max(sizes.values()) < 400, sizes
