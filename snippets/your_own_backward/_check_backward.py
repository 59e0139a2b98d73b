"""Check your own backward pass of the Part III network against ``ad_core``, tensor by tensor.

From the repository's root::

    python -m snippets.your_own_backward._check_backward [--rtol RTOL] path/to/your_file.py

``your_file.py`` defines ``backward(params, cache, Xb, Yb)`` returning ``{name: gradient}`` (copy
``_exercise.py`` and fill in its cells). The check runs it on the worked example's minibatch of
"Loss, output layer, tanh" (the initial parameters, batch seed 0) and compares each gradient with
``ad_core``'s through `ad_core.test_util.compare_gradients`, in backward order. If ``backward``
raises, the gradients it had computed so far (its local ``d<name>`` variables) are compared and
the error is reported with its line. ``--rtol`` replaces `compare_gradients`' relative tolerance.
The exit status is 0 when every gradient agrees, 1 otherwise.
"""

from __future__ import annotations

import sys
import traceback
from pathlib import Path
from typing import Any

from ad_core.test_util import COMPARE_RTOL, compare_gradients, gradient_report
from bookkit import load_snippet_module

worked = load_snippet_module("snippets/network_by_hand/_worked_example.py")
model = worked.model
BACKWARD_ORDER = model.LOSS_TO_HPREACT + model.HPREACT_TO_INPUT


def gradients_so_far(error: BaseException, path: Path) -> tuple[dict[str, Any], int | None]:
    """The ``d<name>`` locals of the reader's ``backward`` frame when it raised, and the line."""
    for frame, line in traceback.walk_tb(error.__traceback__):
        if Path(frame.f_code.co_filename).resolve() == path and frame.f_code.co_name == "backward":
            found = {name[1:]: value for name, value in frame.f_locals.items()
                     if name.startswith("d") and name[1:] in BACKWARD_ORDER}
            return found, line
    return {}, None


def check_file(path: Path, rtol: float = COMPARE_RTOL) -> tuple[str, bool]:
    """The report for the file at ``path``, and whether every gradient agrees within ``rtol``."""
    path = path.resolve()
    reader = load_snippet_module(path)
    if not callable(getattr(reader, "backward", None)):
        return f"{path.name} defines no function backward(params, cache, Xb, Yb)", False
    example = worked.worked_example()
    lines = [
        f"backward() of {path.name} against ad_core, on a minibatch of {example.batch_size} "
        f"(batch seed 0, initial parameters)",
    ]
    try:
        mine = reader.backward(example.params, example.cache, example.Xb, example.Yb)
        stopped = None
    except Exception as error:  # the reader's code: report it, compare what exists
        mine, line = gradients_so_far(error, path)
        where = f"line {line}" if line is not None else "outside backward()"
        stopped = f"backward() raised {type(error).__name__} at {where}: {error}"
    if not isinstance(mine, dict):
        return f"backward() returned {type(mine).__name__}, not a dict of gradients", False
    reference = {name: example.engine[name] for name in BACKWARD_ORDER}
    try:
        diffs = compare_gradients(mine, reference, rtol=rtol)
    except (TypeError, ValueError) as error:
        return "\n".join([*lines, str(error)]), False
    lines.append(gradient_report(diffs))
    if stopped:
        lines.append(stopped)
    return "\n".join(lines), stopped is None and all(diff.ok for diff in diffs)


def main(argv: list[str]) -> int:
    """Check each file named in ``argv`` (after an optional ``--rtol RTOL``); 0 if all pass."""
    rtol = COMPARE_RTOL
    if argv[:1] == ["--rtol"] and len(argv) > 1:
        rtol, argv = float(argv[1]), argv[2:]
    if not argv:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print("usage: python -m snippets.your_own_backward._check_backward [--rtol RTOL] FILE.py "
              "[FILE.py ...]",
              file=sys.stderr)
        return 2
    passed = True
    for name in argv:
        report, ok = check_file(Path(name), rtol)
        print(report)
        passed = passed and ok
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
