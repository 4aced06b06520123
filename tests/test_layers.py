"""The layers of engine/ and app/ import only downward, and no files import each other in a circle.

Bottom to top (docs/architecture.md says what each layer is for):

    ops → ir → hooks → eager core → nn, optim → capture, autodiff, passes → codegen → record
        → compat facades → runner → app

A module may import from its own layer or below. Every import is read from the source with `ast`,
function-local imports included (a local import still ties the two files together; it only hides
the tie from Python's import order). A cycle may be no longer than a package's `__init__` and one
of its own files (the package re-exporting the file, the file reaching a name the `__init__` made).

`KNOWN_UPWARD` and `KNOWN_CYCLES` below listed every break of these rules while issue 14 removed
them; they are empty now, and may only stay so: the test fails on an import that is not listed, and
also on a listed import that no longer breaks a rule (so a list is never more than what is true).
"""
from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Each layer and the modules in it, by dotted-name prefix ("=name": that module only, not the ones
# below it); the longest matching prefix decides, so a file can be placed in the layer it belongs to
# although it sits in another folder.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("ops", ("engine.ops", "engine.errors")),             # errors: the exception kinds every layer raises
    ("ir", ("engine.ir",)),
    ("hooks", ("engine.hooks", "engine.user_code")),     # user_code: where the user's program is (its file, line)
    ("core", ("engine.autograd", "engine.autograd_check", "engine.autograd_function", "engine.backward",
              "engine.creation", "engine.format", "engine.functional", "engine.native", "engine.nn_context",
              "engine.random_pytorch", "engine.tensor", "engine.tensor_inplace", "engine.tensor_methods",
              # PyTorch's class names, device, dtypes and Size are facts of the core's tensors, not facade
              "engine.compat.torch_class_names", "engine.compat.torch_device", "engine.compat.torch_dtypes",
              "engine.compat.torch_size")),
    ("nn/optim", ("engine.nn", "engine.optim")),
    ("capture/autodiff/passes", ("engine.capture", "engine.autodiff", "engine.passes",
                                 "engine.onnx")),      # ONNX files to and from Graphs, as a capture makes them
    ("codegen", ("engine.codegen",)),
    ("record", ("engine.record",)),
    ("compat", ("engine.compat",
                "=engine")),         # engine/__init__.py: `import dagscope` in a run, a facade over the layers
    ("runner", ("engine.runner",)),
    ("app", ("app",)),
]
RANK = {name: i for i, (name, _) in enumerate(LAYERS)}


# Imports that climb, by importing module. Each is a debt of issue 14: remove the import (move
# the code to the layer it belongs to, or let the lower layer publish through engine.hooks), then
# delete its line here.
KNOWN_UPWARD_BY_FILE: dict[str, set[str]] = {
}

# Imports between files of one circle (a strongly connected component of the import graph larger
# than a package's __init__ and its files), upward ones excepted (they are listed above). Removing
# the upward imports breaks most of these circles; what remains is cut inside a layer.
KNOWN_CYCLES_BY_FILE: dict[str, set[str]] = {
}
KNOWN_UPWARD = {(a, b) for a, targets in KNOWN_UPWARD_BY_FILE.items() for b in targets}
KNOWN_CYCLES = {(a, b) for a, targets in KNOWN_CYCLES_BY_FILE.items() for b in targets}


def module_files() -> dict[str, Path]:
    files = {}
    for top in ("engine", "app"):
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            files[".".join(parts)] = path
    return files


def layer_of(module: str) -> str:
    best, best_len = None, -1
    for name, prefixes in LAYERS:
        for prefix in prefixes:
            exact = prefix.startswith("=")
            prefix = prefix.lstrip("=")
            if (module == prefix or (not exact and module.startswith(prefix + "."))) and len(prefix) > best_len:
                best, best_len = name, len(prefix)
    assert best is not None, f"{module} is in no layer: add it to LAYERS in {__file__}"
    return best


def imports_of(module: str, path: Path, files: dict[str, Path]) -> set[str]:
    """The project's modules `module` imports, anywhere in the file. `from a.b import c` imports the
    module a.b.c when there is one, else a name from a.b; `import a.b.c` counts as a.b.c."""
    def known(name: str | None) -> str | None:
        while name and name not in files:
            name = name.rpartition(".")[0]
        return name or None

    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(known(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module if path.name == "__init__.py" else module.rpartition(".")[0]
                for _ in range(node.level - 1):
                    package = package.rpartition(".")[0]
                base = f"{package}.{base}" if base else package
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in files else known(base))
    found.discard(None)
    found.discard(module)
    return found


def import_graph() -> dict[str, set[str]]:
    files = module_files()
    return {module: imports_of(module, path, files) for module, path in files.items()}


def circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components with more than one module (Tarjan's algorithm, iterative)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def allowed_circle(component: set[str], graph: dict[str, set[str]]) -> bool:
    """A package's __init__ with files of its own package that import nothing else in the circle:
    every cycle in it is __init__ -> file -> __init__."""
    for package in component:
        children = component - {package}
        if all(child.rpartition(".")[0] == package and not (graph[child] & (children - {child}))
               for child in children):
            return True
    return False


def violations(graph: dict[str, set[str]]) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    upward = {(a, b) for a, targets in graph.items() for b in targets if RANK[layer_of(b)] > RANK[layer_of(a)]}
    cyclic = set()
    for component in circles(graph):
        if allowed_circle(component, graph):
            continue
        cyclic |= {(a, b) for a in component for b in graph[a] & component if (a, b) not in upward}
    return upward, cyclic


def _describe(pairs, graph) -> str:
    return "\n".join(f"    ({a!r}, {b!r}),   # {layer_of(a)} -> {layer_of(b)}" for a, b in sorted(pairs))


def test_every_module_has_a_layer():
    for module in module_files():
        layer_of(module)


def test_no_new_upward_import():
    graph = import_graph()
    upward, _ = violations(graph)
    new = upward - KNOWN_UPWARD
    assert not new, "imports that climb a layer (import from your layer or below; publish through " \
                    "engine.hooks if a lower layer must tell a higher one):\n" + _describe(new, graph)


def test_no_new_import_cycle():
    graph = import_graph()
    _, cyclic = violations(graph)
    new = cyclic - KNOWN_CYCLES
    circles_text = "\n".join(f"  circle of {len(c)}: {sorted(c)}" for c in circles(graph)
                             if not allowed_circle(c, graph) and any(a in c for a, _ in new))
    assert not new, "imports that close a circle of files:\n" + _describe(new, graph) + "\n" + circles_text


def test_known_violations_still_exist():
    """A listed violation that is gone must leave the list, so the list keeps saying what is true."""
    graph = import_graph()
    upward, cyclic = violations(graph)
    gone_up, gone_cycle = KNOWN_UPWARD - upward, KNOWN_CYCLES - cyclic
    assert not gone_up and not gone_cycle, (
        "listed violations that are gone: delete them from tests/test_layers.py\n"
        + ("KNOWN_UPWARD:\n" + _describe(gone_up, graph) + "\n" if gone_up else "")
        + ("KNOWN_CYCLES:\n" + _describe(gone_cycle, graph) if gone_cycle else ""))
    assert not (KNOWN_UPWARD & KNOWN_CYCLES)


# The checker itself, on small made-up graphs.

def test_circles_and_the_package_exception():
    graph = {"p": {"p.a"}, "p.a": {"p"}, "q": set()}
    assert circles(graph) == [{"p", "p.a"}]
    assert allowed_circle({"p", "p.a"}, graph)
    graph = {"p": {"p.a", "p.b"}, "p.a": {"p.b"}, "p.b": {"p"}}
    assert not allowed_circle(circles(graph)[0], graph)
    graph = {"x": {"y"}, "y": {"z"}, "z": {"x"}}
    assert circles(graph) == [{"x", "y", "z"}] and not allowed_circle({"x", "y", "z"}, graph)


def test_upward_and_cyclic_pairs():
    graph = {"engine.tensor": {"engine.record"}, "engine.record": {"engine.tensor"},
             "engine.ops": set(), "engine.capture.a": {"engine.capture.b"}, "engine.capture.b": {"engine.capture.a"}}
    upward, cyclic = violations(graph)
    assert upward == {("engine.tensor", "engine.record")}
    assert cyclic == {("engine.record", "engine.tensor"), ("engine.capture.a", "engine.capture.b"),
                      ("engine.capture.b", "engine.capture.a")}


def test_function_local_and_relative_imports_are_read(tmp_path):
    source = "from . import sibling\nfrom .sibling import x\ndef f():\n    import engine.tensor\n"
    path = tmp_path / "mod.py"
    path.write_text(source)
    files = {"engine.capture.mod": path, "engine.capture.sibling": path, "engine.capture": path,
             "engine.tensor": path, "engine": path}
    assert imports_of("engine.capture.mod", path, files) == {"engine.capture.sibling", "engine.tensor"}


def _as_literal(pairs: set[tuple[str, str]], with_layers: bool) -> str:
    by_file: dict[str, list[str]] = {}
    for a, b in sorted(pairs):
        by_file.setdefault(a, []).append(b)
    lines = []
    for a, targets in by_file.items():
        head = f'    "{a}": {{'
        items = ", ".join(f'"{b}"' for b in targets) + "},"
        note = f"   # {layer_of(a)} -> {', '.join(sorted({layer_of(b) for b in targets}))}" if with_layers else ""
        if len(head + items + note) <= 118:
            lines.append(head + items + note)
        else:
            lines.append(head + note)
            lines.extend(textwrap.wrap(items, 112, initial_indent=" " * 8, subsequent_indent=" " * 8,
                                       break_on_hyphens=False))
    return "\n".join(lines)


if __name__ == "__main__":       # print today's lists, to paste above after a change
    graph = import_graph()
    up, cyc = violations(graph)
    print(f"# {len(up)} upward\n{_as_literal(up, True)}\n# {len(cyc)} in circles\n{_as_literal(cyc, False)}")
