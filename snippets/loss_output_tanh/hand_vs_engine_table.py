"""Hand-written gradients of every tensor from logprobs to hpreact against ad_core's."""

from bookkit import load_snippet_module
from bookkit.gradient_comparison import compare, comparison_summary, comparison_table

model = load_snippet_module("snippets/network_by_hand/_model.py")

worked = load_snippet_module("snippets/network_by_hand/_worked_example.py")
LOSS_TO_HPREACT = model.LOSS_TO_HPREACT
predicted_bit_equal, worked_example = worked.predicted_bit_equal, worked.worked_example

SECOND_BATCH = 30          # a batch size whose 1/B is not a power of two

example = worked_example()
# --8<-- [start:compare]
comparisons = [compare(name, example.hand[name], example.engine[name]) for name in LOSS_TO_HPREACT]
# --8<-- [end:compare]
other = worked_example(batch_size=SECOND_BATCH)
other_comparisons = [compare(name, other.hand[name], other.engine[name]) for name in LOSS_TO_HPREACT]

# Independent checks: central differences for closeness, the explanation's prediction for bits.
agree = example.central_differences_agree(LOSS_TO_HPREACT)
second = (SECOND_BATCH, other_comparisons,
          {name: predicted_bit_equal(name, SECOND_BATCH) for name in LOSS_TO_HPREACT})
predicted = {name: predicted_bit_equal(name, example.batch_size) for name in LOSS_TO_HPREACT}
print(comparison_table(comparisons, example.shapes(), agree, predicted, example.batch_size, second))
print()
print(comparison_summary(comparisons, agree, predicted, example.batch_size, engine="ad_core", second=second))
