"""Hand-written gradients from hpreact down to the embedding table against ad_core's."""

from bookkit import load_snippet_module
from bookkit.gradient_comparison import compare, comparison_summary, comparison_table

model = load_snippet_module("snippets/network_by_hand/_model.py")

worked = load_snippet_module("snippets/network_by_hand/_worked_example.py")
HPREACT_TO_INPUT = model.HPREACT_TO_INPUT
predicted_bit_equal, worked_example = worked.predicted_bit_equal, worked.worked_example

SECOND_BATCH = 30          # as in the previous chapter's table

example = worked_example()
comparisons = [compare(name, example.hand[name], example.engine[name]) for name in HPREACT_TO_INPUT]
other = worked_example(batch_size=SECOND_BATCH)
other_comparisons = [compare(name, other.hand[name], other.engine[name]) for name in HPREACT_TO_INPUT]

agree = example.central_differences_agree(HPREACT_TO_INPUT)
second = (SECOND_BATCH, other_comparisons,
          {name: predicted_bit_equal(name, SECOND_BATCH) for name in HPREACT_TO_INPUT})
predicted = {name: predicted_bit_equal(name, example.batch_size) for name in HPREACT_TO_INPUT}
print(comparison_table(comparisons, example.shapes(), agree, predicted, example.batch_size, second))
print()
print(comparison_summary(comparisons, agree, predicted, example.batch_size, engine="ad_core", second=second))
