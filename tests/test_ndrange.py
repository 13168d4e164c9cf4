"""The NDRange's pure model (query values, shapes, the quick test) and the same values measured on the
device by the query_work_space solution; the work-group order demo."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import ndrange
from helpers.device import course_context
from helpers.kernels import kernel_path


def test_query_values_follow_the_definitions():
    g = ndrange.query_values((12, 8), (4, 2), "get_global_id(0)")
    assert g.shape == (8, 12) and (g[3] == np.arange(12)).all()
    grp = ndrange.query_values((12, 8), (4, 2), "get_group_id(1)")
    assert (grp[:, 0] == np.arange(8) // 2).all()
    loc = ndrange.query_values((12, 8), (4, 2), 6)
    assert (loc[0] == np.arange(12) % 4).all()
    assert (ndrange.query_values((12, 8), (4, 2), "get_num_groups(0)") == 3).all()
    assert (ndrange.query_values((12,), (4,), "get_work_dim()") == 1).all()
    assert (ndrange.query_values((12, 8), (4, 2), "get_work_dim()") == 2).all()


def test_quick_test_marks_right_wrong_and_unanswered():
    answers = ndrange.work_item_values((12, 8), (4, 4), (6, 5))
    assert answers["get_group_id(0)"] == 1 and answers["get_local_id(1)"] == 1
    assert answers["get_num_groups(1)"] == 2
    guesses = dict.fromkeys(ndrange.QUERIES)
    guesses.update({"get_global_id(0)": 6, "get_local_id(0)": 6})
    result = ndrange.quick_test(guesses, (12, 8), (4, 4), (6, 5))
    assert result.right == ("get_global_id(0)",) and result.wrong == ("get_local_id(0)",)
    assert len(result.unanswered) == 11
    table = result.table()
    assert "✘ you said 6, it is 2" in table and "? (not answered yet)" in table
    assert "? 12" in result.table(reveal=True)  # get_global_size(0) revealed
    with pytest.raises(KeyError, match="get_global_id"):
        ndrange.quick_test({"global_id(0)": 1}, (12, 8), (4, 4), (6, 5))


@pytest.mark.parametrize("glob, loc, fragment", [
    ((8192,), (8192,), "larger than this device's maximum of 1024 work-items per group"),
    ((64, 64), (64, 2), "wide in dimension 0, more than this device's maximum of 32"),
    ((10, 8), (4, 4), "global size 10 of dimension 0 is not a multiple of the work-group size 4"),
    ((16,), (4, 4), "same number"),
    ((16, 8), (4, 2), None),
])
def test_shape_problems_are_sentences(glob, loc, fragment):
    problem = ndrange.shape_problem(glob, loc, 1024, (32, 1024, 64))
    if fragment is None:
        assert problem is None
    else:
        assert fragment in problem


@pytest.mark.parametrize("limits", [(1024, (1024, 1024, 64)), (256, (32, 8, 1)), (1, (1, 1, 1))])
def test_the_local_sizes_offered_are_exactly_those_that_run(limits):
    """What the explorer's sliders offer: every local size that makes a range this device runs,
    and no other (3 of 4 positions of a slider from 1 to 64 were refused at a global size of 16)."""
    for glob in [(16, 8), (12, 30), (64, 1), (7, 5), (60, 32), (24,)]:
        for loc in [(1,) * len(glob), (4, 2)[:len(glob)], (2, 8)[:len(glob)]]:
            for dim in range(len(glob)):
                offered = ndrange.local_choices(glob, loc, dim, *limits)
                for x in range(1, 2 * glob[dim] + 2):
                    tried = tuple(x if d == dim else v for d, v in enumerate(loc))
                    runs = ndrange.shape_problem(glob, tried, *limits) is None
                    others_run = ndrange.shape_problem(
                        glob, tuple(1 if d == dim else v for d, v in enumerate(loc)), *limits) \
                        is None
                    if others_run:   # the other dimensions' sizes run: offered == runs
                        assert (x in offered) == runs, (glob, loc, dim, x, offered)
                    else:
                        assert x not in offered or not runs


def test_counts_are_written_in_the_singular_for_one():
    from helpers.wording import plural
    assert plural(1, "work-item") == "1 work-item" and plural(2, "work-item") == "2 work-items"
    assert plural(0, "element") == "0 elements" and plural(1.0, "cycle", fmt="g") == "1 cycle"
    assert plural(3, "matrix") == "3 matrices" and plural(2, "entry") == "2 entries"
    assert plural(1024, "byte", fmt=",") == "1,024 bytes"
    problem = ndrange.shape_problem((4,), (2,), 1, (1, 1, 1))
    assert "maximum of 1 work-item per group" in problem and "2 work-items" in problem


@pytest.fixture(scope="module")
def cq():
    return course_context(quiet=True)


@pytest.mark.parametrize("glob, loc", [((16, 8), (4, 2)), ((12,), (3,)), ((7, 3), (7, 1))])
def test_the_device_returns_what_the_model_says(cq, glob, loc):
    ctx, queue = cq
    for q in range(len(ndrange.QUERIES)):
        run = ndrange.run_query(ctx, queue, glob, loc, q,
                                kernel_path("query_work_space", solutions=True))
        assert run.problem is None
        expected = ndrange.query_values(glob, loc, q)
        assert (run.values == expected).all(), (ndrange.QUERIES[q], run.values, expected)


def test_an_impossible_range_is_a_sentence_not_an_exception(cq):
    ctx, queue = cq
    too_big = queue.device.max_work_group_size * 2
    run = ndrange.run_query(ctx, queue, (too_big,), (too_big,), 0)
    assert run.values is None and "larger than this device's maximum" in run.problem


def test_every_work_group_takes_exactly_one_ticket(cq):
    ctx, queue = cq
    tickets = ndrange.group_order(ctx, queue, 300, 32)
    assert sorted(tickets.tolist()) == list(range(300))
