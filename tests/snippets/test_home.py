"""The home page and the README: what they say about the checks, the engine and HIPS/autograd
holds for the code that runs (HIPS/autograd 1.9.1 is run here, as the README compares with it)."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import warnings

import numpy as np

from bookkit.claims import claims_in
from bookkit.testing import REPO_ROOT, run_python

HOME = REPO_ROOT / "docs" / "index.md"
README = REPO_ROOT / "README.md"


def _pinned(distribution: str) -> str:
    pins = re.findall(rf'"{distribution}==([^"]+)"', (REPO_ROOT / "pyproject.toml").read_text("utf-8"))
    assert pins and len(set(pins)) == 1, pins
    return pins[0]


def _prose(markdown: str) -> str:
    """The page's own words: without fenced blocks, HTML comments and cited titles."""
    markdown = re.sub(r"^(`{3,}).*?^\1", " ", markdown, flags=re.MULTILINE | re.DOTALL)
    markdown = re.sub(r"<!--.*?-->", " ", markdown, flags=re.DOTALL)
    return re.sub(r'\["[^"\]]+"\]\([^)]+\)', " ", markdown)  # ["A lecture's title"](link)


def test_home_page_types_no_number_but_the_autograd_version_it_names() -> None:
    """Numbers on the home page come from snippets and the build stamp; the page's own prose
    names only the HIPS/autograd version, which must be the one the tests pin and run."""
    version = _pinned("autograd")
    assert importlib.metadata.version("autograd") == version
    claims = claims_in(_prose(HOME.read_text("utf-8")))
    assert claims and set(claims) == {version}, claims


def test_readme_names_the_versions_the_project_pins() -> None:
    readme = README.read_text("utf-8")
    for name, distribution in (("HIPS/autograd", "autograd"), ("PyTorch", "torch")):
        named = set(re.findall(rf"{re.escape(name)} (\d+(?:\.\d+)+)", readme))
        assert named, f"the README names no version of {name}"
        assert all(_pinned(distribution).startswith(version) for version in named), named


def test_home_page_names_the_check_it_describes(text: str) -> None:
    assert "checked(value, against=...)" in text


def test_readme_counts_the_ported_autograd_examples() -> None:
    claimed = re.search(r"port (\d+) of autograd's examples", README.read_text("utf-8"))
    assert claimed, "the README no longer says how many examples are ported"
    ported = 0
    for path in sorted((REPO_ROOT / "tests" / "engine").glob("test_autograd_examples*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        ported += sum(
            isinstance(node, ast.FunctionDef) and node.name.startswith("test_") for node in tree.body
        )
    assert int(claimed.group(1)) == ported


def test_ad_core_imports_with_numpy_alone() -> None:
    """`pip install -e .` needs only NumPy: importing the engine loads no other third-party
    package (SciPy only for `ad_core.scipy`)."""
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "import ad_core, ad_core.numpy, ad_core.numpy.linalg, ad_core.numpy.fft, ad_core.numpy.random\n"
        "import ad_core.extend, ad_core.misc, ad_core.builtins, ad_core.recorder, ad_core.test_util\n"
        "loaded = {name: sys.modules[name] for name in set(sys.modules) - before}\n"
        "third = {name.split('.')[0] for name, module in loaded.items()\n"
        "         if 'site-packages' in (getattr(module, '__file__', None) or '')}\n"
        "print(sorted(third - {'numpy'}))\n"
    )
    result = run_python(["-c", code], {}, 60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]", result.stdout


def test_readme_differences_from_autograd_hold() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import autograd
        import autograd.extend
        import autograd.numpy as ag_np
        from autograd.scipy.integrate import odeint as ag_odeint

    import ad_core
    import ad_core.extend
    import ad_core.numpy as anp
    from ad_core.scipy.integrate import odeint

    assert importlib.metadata.version("autograd") == _pinned("autograd")
    from autograd import differential_operators as ag_operators

    operators = {
        name for name in dir(autograd) if getattr(autograd, name) is getattr(ag_operators, name, None)
    }
    assert operators and all(hasattr(ad_core, name) for name in operators), operators
    public_extend = {name for name in dir(autograd.extend) if not name.startswith("_")}
    missing_extend = public_extend - set(dir(ad_core.extend))
    assert missing_extend == {"SparseObject", "register_notrace"}, missing_extend
    assert hasattr(autograd, "primitive") and not hasattr(ad_core, "primitive")
    import inspect

    import autograd.test_util

    import ad_core.test_util

    assert inspect.signature(autograd.test_util.check_grads).parameters["argnum"].default == 0
    assert inspect.signature(ad_core.test_util.check_grads).parameters["argnum"].default is None
    assert hasattr(ag_np, "custom_where") and not hasattr(anp, "custom_where")
    # The deprecated aliases hang off functions made with autograd's top-level `primitive`.
    theirs, ours = autograd.primitive(lambda x: x), ad_core.extend.primitive(lambda x: x)
    for alias in ("defgrad", "defvjp_is_zero"):
        assert hasattr(theirs, alias) and not hasattr(ours, alias)

    matrix = np.array([[2.0, 1.0], [1.0, 3.0]])
    direction = np.ones((2, 2))

    def has_jvp(make_jvp, fun, x, v) -> bool:
        try:
            make_jvp(fun)(x)(v)
        except NotImplementedError:
            return False
        return True

    only_ad_core = ["inv", "det", "eigh", "cholesky", "svd"]
    for name in only_ad_core:
        assert has_jvp(ad_core.make_jvp, getattr(anp.linalg, name), matrix, direction), name
        assert not has_jvp(autograd.make_jvp, getattr(ag_np.linalg, name), matrix, direction), name
    assert has_jvp(ad_core.make_jvp, lambda a: anp.linalg.solve(a, np.ones(2)), matrix, direction)
    assert not has_jvp(autograd.make_jvp, lambda a: ag_np.linalg.solve(a, np.ones(2)), matrix, direction)
    for make_jvp, linalg in ((ad_core.make_jvp, anp.linalg), (autograd.make_jvp, ag_np.linalg)):
        assert has_jvp(make_jvp, linalg.norm, matrix, direction)
        assert not has_jvp(make_jvp, linalg.eig, matrix, direction)
        complex_matrix = matrix + 1j * np.array([[0.0, 1.0], [2.0, 0.0]])
        assert not has_jvp(make_jvp, linalg.svd, complex_matrix, direction + 0j)
    times = np.array([0.0, 1.0])
    for make_jvp, solve in ((ad_core.make_jvp, odeint), (autograd.make_jvp, ag_odeint)):
        decay = lambda y0, s=solve: s(lambda y, t: -y, y0, times)  # noqa: E731
        assert not has_jvp(make_jvp, decay, np.ones(1), np.ones(1))
