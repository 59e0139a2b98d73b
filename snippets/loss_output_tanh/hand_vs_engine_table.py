"""Hand-written gradients of every tensor from logprobs to hpreact against ad_core's."""

from bookkit.mlp_by_hand import (
    LOSS_TO_HPREACT,
    compare,
    comparison_summary,
    comparison_table,
    predicted_bit_equal,
    worked_example,
)

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
