"""The layers of `ad_core`, computed from which module imports which at the top level."""

import ast
from pathlib import Path

import ad_core
from bookkit import Rendered, checked, md_table, text

package_dir = Path(ad_core.__file__).parent


def module_name(path: Path) -> str:
    parts = path.relative_to(package_dir).with_suffix("").parts
    return ".".join(("ad_core", *parts)).removesuffix(".__init__")


# From the files, not from imports: the same layers on a machine without SciPy.
names = ["ad_core", *sorted({module_name(path) for path in package_dir.rglob("*.py")} - {"ad_core"})]


def module_path(name: str) -> Path:
    relative = Path(*name.split(".")[1:]) if "." in name else Path()
    folder = package_dir / relative
    return folder / "__init__.py" if folder.is_dir() else folder.with_suffix(".py")


def top_level_imports(name: str) -> set[str]:
    """ad_core modules imported by statements at module level (not inside functions)."""
    path = module_path(name)
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    found = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            submodules = [f"{target}.{alias.name}" for alias in node.names]
            # `from . import wrapper` imports the submodule, not the package around it.
            candidates = [m for m in submodules if m in names] or [target]
        elif isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        else:
            continue
        found |= {c for c in candidates if c in names and c != name}
    return found


imports = {name: top_level_imports(name) for name in names}

# A module's layer is the length of its longest import chain; a cycle would never settle.
layer: dict[str, int] = {}
for _ in range(len(names) + 1):
    changed = False
    for name in names:
        new = 1 + max((layer.get(dep, 0) for dep in imports[name]), default=-1)
        if layer.get(name) != new:
            layer[name], changed = new, True
    if not changed:
        break
else:
    raise AssertionError("the top-level imports of ad_core contain a cycle")
assert max(layer.values()) < len(names)
assert layer["ad_core.tracer"] < layer["ad_core.core"] < layer["ad_core.differential_operators"]


# The SciPy layer is a library for autograd users on top of the engine; the book does not read
# it. It is summed up in one sentence below instead of filling the picture.
scipy_layer = [name for name in names if name.split(".")[:2] == ["ad_core", "scipy"]]
engine = [name for name in names if name not in scipy_layer]
assert not any(dep in scipy_layer for name in engine for dep in imports[name]), (
    "no engine module may import ad_core.scipy: ad_core must work without SciPy"
)


def reachable(start: str) -> set[str]:
    seen, stack = set(), [start]
    while stack:
        for dep in imports[stack.pop()]:
            if dep not in seen:
                seen.add(dep)
                stack.append(dep)
    return seen


# Draw only the edges no longer chain implies (the transitive reduction): containers imports
# core, core imports tracer, so the direct edge containers -> tracer adds nothing to the picture.
drawn = {
    name: {
        dep
        for dep in imports[name]
        if not any(dep in reachable(other) for other in imports[name] if other != dep)
    }
    for name in engine
}
assert all(reachable(name) == {d for e in drawn[name] for d in reachable(e) | {e}} for name in engine), (
    "the reduction must keep every dependency implied"
)


def short(name: str) -> str:
    return name.removeprefix("ad_core.") if name != "ad_core" else "ad_core"


# The layers again, by another algorithm: a memoised depth-first search for the longest chain.
longest: dict[str, int] = {}


def depth(name: str) -> int:
    if name not in longest:
        longest[name] = 1 + max((depth(dep) for dep in imports[name]), default=-1)
    return longest[name]


def diagram_lines():
    yield "```mermaid"
    yield "flowchart BT"
    for level in sorted({layer[name] for name in engine}):
        members = [name for name in engine if layer[name] == level]
        assert len({depth(name) for name in members}) == 1
        yield text('    subgraph L{level}["layer {level}"]', level=checked(level, against=depth(members[0])))
        for name in members:
            yield f'        {short(name).replace(".", "_")}["{short(name)}"]'
        yield "    end"
    for name in engine:
        for dep in sorted(drawn[name]):
            yield f"    {short(name).replace('.', '_')} --> {short(dep).replace('.', '_')}"
    yield "```"


print(Rendered("\n").join(diagram_lines()))
print()
# The first import the diagram leaves out, and the module through which it is implied.
left_out, implied = next((name, dep) for name in engine for dep in sorted(imports[name])
                         if dep not in drawn[name])
via = next(other for other in sorted(drawn[left_out]) if implied in reachable(other))
print(
    text(
        "The diagram leaves out an arrow when a longer chain of arrows already implies it (the "
        "import of {implied} by {left_out}, which imports {via}, which imports {implied}). The "
        "table lists every import.",
        implied=f"`{short(implied)}`", left_out=f"`{short(left_out)}`", via=f"`{short(via)}`",
    )
)
print()
print(
    md_table(
        ["layer", "modules", "imports from ad_core"],
        [
            [
                checked(layer[name], against=depth(name), shown_as=str),
                f"`{short(name)}`",
                ", ".join(f"`{short(dep)}`" for dep in sorted(imports[name])) or "—",
            ]
            for name in sorted(engine, key=lambda n: (layer[n], n))
        ],
    )
)
below_scipy = sorted({dep for name in scipy_layer for dep in imports[name]} - set(scipy_layer))
scipy_files = list((package_dir / "scipy").rglob("*.py"))
print()
print(
    text(
        "Left out of both: `ad_core.scipy`, {count} modules in layers {low} to {high}, SciPy's "
        "functions for HIPS/autograd users. They import {below} and each other; no engine module "
        "imports them, so `ad_core` runs without SciPy.",
        count=checked(len(scipy_layer), against=len(scipy_files)),
        low=checked(min(layer[n] for n in scipy_layer), against=min(depth(n) for n in scipy_layer)),
        high=checked(max(layer[n] for n in scipy_layer), against=max(depth(n) for n in scipy_layer)),
        below=", ".join(f"`{short(dep)}`" for dep in below_scipy),
    )
)
