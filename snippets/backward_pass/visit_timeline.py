"""The backward pass of the running example as a call timeline, from the recorder."""

from pathlib import Path

from ad_core import grad
from ad_core.recorder import record
from bookkit import Rendered, checked, fmt_array_inline, given, load_snippet_module, md_table, text

example = load_snippet_module(Path(__file__).with_name("_running_example.py"))

with record() as recording:
    gradient = grad(example.f)(example.POINT)  # the root's visit below is checked against it

names = example.baydin_names(recording.of_kind("forward"))
backward_events = recording.of_kind("visit", "vjp", "accumulate")


parents_of = {event.node: event.detail["parents"] for event in recording.of_kind("forward")}
# The parent each VJP event feeds is named by the accumulate event that follows it.
target = {
    vjp_event.step: accumulate_event.node
    for vjp_event, accumulate_event in zip(
        recording.of_kind("vjp"), recording.of_kind("accumulate"), strict=True
    )
}
expected_total: dict[str, object] = {}


def value(actual, expected) -> Rendered:
    """A recorded value, checked against the closed-form oracle, in a code span."""
    # The oracle rounds other products than the engine: equal to 1e-14.
    return text("`{v}`", v=fmt_array_inline(checked(actual, against=expected, rtol=1e-14, atol=1e-15)))


def describe(event) -> list:
    name = names[event.node]
    node = f"${name}$"
    # A step number labels an event (events_table's `step` column needs no check either).
    step = given(event.step, shown_as=str)
    if event.kind == "visit":
        return [
            step,
            "`visit`",
            node,
            text("holds its full cotangent {v}", v=value(event.value, example.adjoint(name))),
        ]
    if event.kind == "vjp":
        parent = target[event.step]
        argnum = checked(event.argnum, against=parents_of[event.node].index(parent))
        return [
            step,
            "`vjp`",
            node,
            text(
                "`{primitive}` rule for argument {argnum}: {incoming} in, {outgoing} out, for {parent}",
                primitive=event.primitive,
                argnum=argnum,
                incoming=value(event.detail["cotangent"], example.adjoint(name)),
                outgoing=value(event.value, example.contribution(name, event.argnum)),
                parent=f"${names[parent]}$",
            ),
        ]
    before = event.detail["before"]
    contribution = event.detail["contribution"]
    previous = expected_total.get(name)
    expected_total[name] = contribution_oracle[event.step] + (0.0 if previous is None else previous)
    if before is None:
        assert previous is None
        return [
            step,
            "`accumulate`",
            node,
            text("first contribution: total {v}", v=value(event.value, expected_total[name])),
        ]
    return [
        step,
        "`accumulate`",
        node,
        text(
            "{before} + {contribution} = {total}",
            before=value(before, previous),
            contribution=value(contribution, contribution_oracle[event.step]),
            total=value(event.value, expected_total[name]),
        ),
    ]


# What each accumulate event adds, from the oracle: the contribution of the VJP just before it.
contribution_oracle = {
    accumulate_event.step: example.contribution(names[vjp_event.node], vjp_event.argnum)
    for vjp_event, accumulate_event in zip(
        recording.of_kind("vjp"), recording.of_kind("accumulate"), strict=True
    )
}
print(
    md_table(
        ["step", "event", "node", "what the engine did"],
        [describe(event) for event in backward_events],
    )
)
visits = recording.of_kind("visit")
n_nodes = len(recording.of_kind("forward")) + 1
n_edges = sum(len(parents) for parents in parents_of.values())
print()
print(
    text(
        "{visits} visits, {vjps} VJP calls, {additions} additions: one visit per node, one VJP "
        "call and one addition per edge.",
        visits=checked(len(visits), against=n_nodes),
        vjps=checked(len(recording.of_kind("vjp")), against=n_edges),
        additions=checked(len(recording.of_kind("accumulate")), against=n_edges),
    )
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
        text(
            "The steps missing from the table are {count} events of kind {kinds} that the rules "
            "emit internally; [Broadcasting in reverse](broadcasting-in-reverse.md) reads them.",
            count=checked(
                len(skipped), against=len(recording.events) - first_backward_step - len(backward_events)
            ),
            kinds=", ".join(f"`{kind}`" for kind in skipped_kinds),
        )
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
assert visit.step > second_total.step
print()
print(
    text(
        "Follow {shared}: it receives {first} from {first_child}'s `{first_primitive}` rule "
        "(step {first_step}), then {second} from {second_child}'s `{second_primitive}` rule "
        "(step {second_step}), and only at step {visit_step} is it visited, holding their sum "
        "{total}.",
        shared=f"${names[shared_node]}$",
        first=value(first_vjp.value, example.contribution(names[first_vjp.node], first_vjp.argnum)),
        first_child=f"${names[first_vjp.node]}$",
        first_primitive=first_vjp.primitive,
        first_step=given(first_vjp.step),
        second=value(second_vjp.value, example.contribution(names[second_vjp.node], second_vjp.argnum)),
        second_child=f"${names[second_vjp.node]}$",
        second_primitive=second_vjp.primitive,
        second_step=given(second_vjp.step),
        visit_step=given(visit.step),
        total=value(visit.value, example.adjoint(names[shared_node])),
    )
)
