"""The built page "The package map" lists every module of ad_core with its size, in layers."""

from __future__ import annotations

import pkgutil
from pathlib import Path

import ad_core


def test_package_map_lists_every_module_with_its_size(text: str) -> None:
    package_dir = Path(ad_core.__file__).parent
    files = [package_dir / "__init__.py"] + [
        Path(pkgutil.resolve_name(info.name).__file__)
        for info in pkgutil.walk_packages([str(package_dir)], prefix="ad_core.")
    ]
    for path in files:
        relative = path.relative_to(package_dir).as_posix()
        lines = len(path.read_text(encoding="utf-8").splitlines())
        row = next((line for line in text.splitlines() if line.startswith(f"| {relative} |")), None)
        assert row is not None, relative
        assert f"| {lines} |" in row, (relative, lines, row)


def test_layers_put_tracer_below_core(text: str) -> None:
    layer = {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) == 3 and cells[0].isdigit():
            layer[cells[1]] = int(cells[0])
    assert layer["tracer"] < layer["core"] < layer["differential_operators"]
