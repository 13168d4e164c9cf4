"""sum_ints (notebook 01): add two lists of ints, one work-item per element."""

from __future__ import annotations

from .common import PAIR_SUM_ARGS, guarded_extremes, pair_sum, pair_sum_inputs, wide_pair_sum_inputs
from .model import Compare, Exercise, Extremes, Teaching, one_d_cases, register, wrong_index_mistakes

register(Exercise(
    name="sum_ints",
    args=PAIR_SUM_ARGS,
    cases=one_d_cases([(1, 64), (100, 32), (1000, 256), (4096, 64), (777, 128), (5, 1),
                       (1 << 20, 256), ((1 << 20) + 3, 128)]),
    make_inputs=pair_sum_inputs,
    reference=pair_sum,
    contract="`c[i] = a[i] + b[i]` for `i < n`; global size may exceed n",
    teaching=Teaching(
        title="Add two lists of ints: c[i] = a[i] + b[i]",
        notebook="01-parallel-execution",
        hints=(
            "One work-item per element, as in `float_copy`: the element index `i` is "
            "`get_global_id(0)`.",
            "The global size may be rounded up past `n`, so some work-items have no element: store "
            "into `c` only when `i < n`.",
        ),
        mistakes=wrong_index_mistakes("c", pair_sum, hint=1),
        place=(1, 0),
    ),
    compare=Compare(rtol=0.0, atol=0.0),
    extremes=Extremes(cases=guarded_extremes, inputs=wide_pair_sum_inputs),
))
