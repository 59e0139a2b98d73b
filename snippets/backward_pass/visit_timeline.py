"""The backward pass of the running example as a call timeline, from the recorder."""

import numpy as np

from ad_core import grad
from ad_core.inspect import record
from bookkit import fmt_array_inline, load_snippet_module, md_table

example = load_snippet_module("snippets/backward_pass/_running_example.py")

with record() as recording:
    gradient = grad(example.f)(example.POINT)

names = example.baydin_names(recording.of_kind("forward"))
backward_events = recording.of_kind("visit", "vjp", "accumulate")


def describe(event) -> list[str]:
    node = f"${names[event.node]}$"
    value = f"`{fmt_array_inline(event.value)}`"
    if event.kind == "visit":
        return [str(event.step), "`visit`", node, f"holds its full cotangent {value}"]
    if event.kind == "vjp":
        parent = names[parents_of[event.node][event.argnum]]
        incoming = fmt_array_inline(event.detail["cotangent"])
        return [
            str(event.step),
            "`vjp`",
            node,
            f"`{event.primitive}` rule for argument {event.argnum}: "
            f"`{incoming}` in, {value} out, for ${parent}$",
        ]
    before = event.detail["before"]
    if before is None:
        return [str(event.step), "`accumulate`", node, f"first contribution: total {value}"]
    return [
        str(event.step),
        "`accumulate`",
        node,
        f"`{fmt_array_inline(before)}` + `{fmt_array_inline(event.detail['contribution'])}` = {value}",
    ]


parents_of = {event.node: event.detail["parents"] for event in recording.of_kind("forward")}
print(
    md_table(
        ["step", "event", "node", "what the engine did"],
        [describe(event) for event in backward_events],
    )
)
assert np.allclose(gradient, example.closed_form_gradient(example.POINT), rtol=1e-14)
visits = recording.of_kind("visit")
assert len(visits) == len(recording.of_kind("forward")) + 1
assert len(recording.of_kind("vjp")) == len(recording.of_kind("accumulate"))
print()
print(
    f"{len(visits)} visits, {len(recording.of_kind('vjp'))} VJP calls, "
    f"{len(recording.of_kind('accumulate'))} additions: one visit per node, one VJP call and "
    "one addition per edge."
)
first_backward_step = backward_events[0].step
skipped = [
    event
    for event in recording.events
    if event.step > first_backward_step and event.kind not in ("visit", "vjp", "accumulate")
]
skipped_kinds = sorted({event.kind for event in skipped})
if skipped:
    print()
    print(
        f"The steps missing from the table are {len(skipped)} events of kind "
        + ", ".join(f"`{kind}`" for kind in skipped_kinds)
        + " that the rules emit internally; the chapter "
        "[Broadcasting in reverse](broadcasting-in-reverse.md) reads them."
    )

# Follow the first node that receives two contributions, in the words of the table.
arrivals = {}
for vjp_event, accumulate_event in zip(
    recording.of_kind("vjp"), recording.of_kind("accumulate"), strict=True
):
    arrivals.setdefault(accumulate_event.node, []).append((vjp_event, accumulate_event))
shared_node = next(node for node, pairs in arrivals.items() if len(pairs) > 1)
(first_vjp, _), (second_vjp, second_total) = arrivals[shared_node][:2]
visit = next(e for e in visits if e.node == shared_node)
assert visit.step > second_total.step and np.allclose(visit.value, second_total.value)
print()
print(
    f"Follow ${names[shared_node]}$: it receives `{fmt_array_inline(first_vjp.value)}` from "
    f"${names[first_vjp.node]}$'s `{first_vjp.primitive}` rule (step {first_vjp.step}), then "
    f"`{fmt_array_inline(second_vjp.value)}` from ${names[second_vjp.node]}$'s "
    f"`{second_vjp.primitive}` rule (step {second_vjp.step}), and only at step {visit.step} "
    f"is it visited, holding their sum `{fmt_array_inline(visit.value)}`."
)
