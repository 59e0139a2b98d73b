"""Part III's training step, staged: its program, and what the program computes about itself."""

import re
from pathlib import Path

import numpy as np

from ad_core import stage
from bookkit import checked, collapsible, load_snippet_module, md_table, observed, text, yes_no

helpers = load_snippet_module(Path(__file__).with_name("_staged_mlp.py"))
backward_by_hand = load_snippet_module("snippets/network_by_hand/_backward.py").backward_by_hand
forward, sample_batch = helpers.forward, helpers.sample_batch
params, Xb, Yb = helpers.params, helpers.Xb, helpers.Yb
loss_of_params = helpers.loss

# --8<-- [start:stage]
staged_step = helpers.staged_step  # stage(value_and_grad(loss)), the loss of a parameter dict
loss, grads = staged_step(params, Xb, Yb)
program = staged_step.program(params, Xb, Yb)
# --8<-- [end:stage]

# An independent reference: Part III's hand-written backward pass.
hand = backward_by_hand(params, forward(params, Xb, Yb), Xb, Yb)
worst = max(float(np.max(np.abs(grads[name] - hand[name]))) for name in params)
assert worst < 1e-12

# A new minibatch: the token ids are inputs, so the same program serves it.
Xn, Yn = sample_batch(seed=1)
eager_loss, eager_grads = helpers.eager_step(params, Xn, Yn)
new_loss, new_grads = staged_step(params, Xn, Yn)
bitwise = bool(np.array_equal(new_loss, eager_loss)) and all(
    np.array_equal(new_grads[name], eager_grads[name]) for name in params)

print(collapsible("The program of one training step (forward and backward)",
                  observed(program.listing(deaths=True, width=52)), kind="example"))
print()
print(text(
    "The program has {calls} primitive calls, {dots} of them matrix products; the trace made "
    "{traced}. Its gradients agree with Part III's hand-written ones (largest difference {worst:.1e}), and "
    "on a second minibatch it equals the eager engine to the last bit: {bitwise}. With each value "
    "freed after its last use and dead buffers reused, at most {peak} bytes of intermediate "
    "values are alive at once, against {hoard} if nothing were freed before the end.",
    calls=checked(program.n_calls, against=helpers.count_calls(program.listing())),
    dots=checked(program.counts()["dot"], against=program.source.count(" = dot(")),
    traced=checked(helpers.raw.n_calls, against=helpers.count_calls(str(helpers.raw))),
    worst=checked(worst, against=0.0, atol=1e-12),
    bitwise=checked(bitwise, against=True, shown_as=yes_no),
    peak=checked(program.peak_bytes, against=helpers.brute_force_peak(program)),
    hoard=checked(program.peak_bytes_without_freeing,
                  against=helpers.bytes_if_never_freed(
                      program, *helpers.program_inputs(program, params, Xb, Yb))),
))

# Part III's hand-written step, measured the same way: its gradient lines, and what it keeps.
by_hand = load_snippet_module("snippets/network_by_hand/_backward.py")
cache = forward(params, Xb, Yb)
hand_lines = helpers.executed_gradient_lines(
    lambda: by_hand.backward_by_hand(params, cache, Xb, Yb),
    [by_hand.backward_loss_to_hpreact, by_hand.backward_hpreact_to_input])
regions = ["loss_backward", "loss_backward_rest", "accumulate", "max_path", "output_layer",
           "batchnorm_backward", "input_layer", "embedding"]  # the default path's regions
kept_by_hand = [value for value in (*cache.values(), *hand.values()) if isinstance(value, np.ndarray)]
hand_bytes = helpers.distinct_bytes(kept_by_hand)
loss_only = stage(loss_of_params).program(params, Xb, Yb)
print()
print(text(
    "Part III's hand-written backward computes its gradients in {hand_lines} lines, and it keeps every "
    "intermediate of the forward pass and every gradient until it returns, {hand_bytes} bytes, "
    "because its chapters print them. The staged program makes {backward} calls beyond the "
    "{forward} that the loss alone needs, and holds at most {peak} bytes at once.",
    hand_lines=checked(hand_lines, against=helpers.lines_in_regions(
        "snippets/network_by_hand/_backward.py", regions)),
    hand_bytes=checked(hand_bytes, against=sum(
        value.nbytes for value in kept_by_hand if value.base is None)),
    backward=checked(program.n_calls - loss_only.n_calls,
                     against=helpers.count_calls(program.listing()) - helpers.count_calls(str(loss_only))),
    forward=checked(loss_only.n_calls, against=helpers.count_calls(loss_only.listing())),
    peak=checked(program.peak_bytes, against=helpers.brute_force_peak(program)),
))

# The two backward passes side by side: every array the hand-written pass names, found among the
# program's values (the program's calls run one by one on this minibatch, no buffer reused).
values = helpers.program_values(program, params, Xb, Yb)
found = {name: helpers.first_equal(values, hand[name]) for name in hand}
assert all(var is not None for var in found.values())
position = {op.out: index for index, op in enumerate(program.ops)}


def calls_between(previous: str | None, this: str) -> list[str]:
    """The program's lines after the one that computes hand[previous] up to the one that computes
    hand[this]: the calls the program makes for that step of the hand-written pass."""
    start = -1 if previous is None else position[found[previous]]
    return [f"`{program.var_name(op.out)} = {program.call_text(op)}`"
            for op in program.ops[start + 1 : position[found[this]] + 1]
            if previous is not None or op.out == found[this]]


steps = [  # (step, its region of Part III's file and the lines there, the gradients around it)
    ("the loss picks one entry per row", "loss_backward", [r"zeros_like", r"\] = "], None, "logprobs"),
    ("the row maximum's second path", "max_path", [r"argmax", r"\] \+= "], "logit_maxes", "logits"),
    ("the square in the variance", "batchnorm_backward", [r"dbndiff \+= "], "bndiff2", "bndiff"),
    ("the embedding's rows", "embedding", [r"zeros_like", r"add\.at"], "emb", "C"),
]
hand_file = "snippets/network_by_hand/_backward.py"
rows = [[step, "<br>".join(f"`{helpers.hand_line(hand_file, region, pattern)}`" for pattern in patterns),
         "<br>".join(calls_between(previous, this))] for step, region, patterns, previous, this in steps]
print()
print(text(
    "Part III's hand-written backward pass is atomic too: each of the {named} arrays it names, "
    "from `dlogprobs` to `dC`, is a value of this program on this minibatch, bit for bit: {all_found}. The "
    "program's calls come from the engine's rules, written for any input, so at these steps it "
    "computes the same values by other calls:",
    named=checked(len(hand), against=len(re.findall(r'^ +"\w+": d\w+,$', Path(
        "snippets/network_by_hand/_backward.py").read_text(encoding="utf-8"), flags=re.M))),
    all_found=checked(all(np.array_equal(values[found[name]], hand[name]) for name in hand)
                      and len(found) == len(set(hand)), against=True, shown_as=yes_no),
))
print()
print(md_table(["step", "Part III, by hand", "the staged program"], rows))
