"""Suite shape: figures measured by replaying golden trajectories, not read from labels."""

from __future__ import annotations

from fixtures.support import task_from
from statebox.domains import Domain
from statebox.judge import ShapeTargets, suite_shape
from statebox.tasks import Task


def _transfer(base: Task, task_id: str, amount: int, **changes: object) -> Task:
    golden = [
        {"tool": "get_account", "args": {"account_id": "A1"}},
        {"tool": "transfer", "args": {"src": "A1", "dst": "A2", "amount": amount}},
    ]
    return task_from(base, id=task_id, golden=golden, **changes)


def test_recovery_needs_a_refused_call_before_a_write_that_succeeds(
    toy_domain: Domain, task: Task
) -> None:
    refused = {"tool": "transfer", "args": {"src": "A1", "dst": "A2", "amount": 10**6}}
    recovering = task_from(
        task,
        id="toy.transfer.retry.001",
        golden=[
            {**refused, "fails": "invalid_state"},
            {"tool": "transfer", "args": {"src": "A1", "dst": "A2", "amount": 40}},
        ],
    )
    # A refusal after the only write is no recovery.
    late = task_from(
        task,
        id="toy.transfer.late.001",
        golden=[
            {"tool": "transfer", "args": {"src": "A1", "dst": "A2", "amount": 40}},
            {**refused, "fails": "invalid_state"},
        ],
    )
    shape = suite_shape({"toy": toy_domain}, [recovering, late])
    by_id = {s.task_id: s for s in shape.tasks}
    assert by_id["toy.transfer.retry.001"].recovery
    assert (
        by_id["toy.transfer.retry.001"].refused_calls,
        by_id["toy.transfer.retry.001"].business_writes,
    ) == (1, 1)
    assert not by_id["toy.transfer.late.001"].recovery
    assert shape.overall.recovery == 1


def test_tasks_differing_in_amounts_only_are_reinstances_and_leak_across_splits(
    toy_domain: Domain, task: Task
) -> None:
    a = _transfer(task, "toy.transfer.basic.101", 40)
    b = _transfer(task, "toy.transfer.basic.102", 15)
    # Another behaviour is another task, not a re-instance.
    c = _transfer(
        task,
        "toy.transfer.basic.103",
        15,
        user={**task.user.model_dump(), "behaviour": {"confirm": False}},
    )
    train = _transfer(task, "toy.transfer.basic.104", 5, split="train")
    shape = suite_shape({"toy": toy_domain}, [a, b, c, train])
    o = shape.overall
    assert (o.test_tasks, o.train_tasks, o.reinstances, o.distinct_sequences) == (3, 1, 2, 1)
    assert o.leaked_branches == ("toy:transfer.basic",)
    assert o.test_tasks_with_train_sibling == 3
    misses = suite_shape(
        {"toy": toy_domain}, [a, b, c, train], targets=ShapeTargets(reinstance_share=0.15)
    ).overall.misses
    assert "re-instance share 0.667 > 0.15" in misses
    assert "3 test tasks share a train branch" in misses


def test_intent_tags_name_the_branches_but_no_label_hides_a_template(
    toy_domain: Domain, task: Task
) -> None:
    two = _transfer(task, "toy.transfer.basic.201", 40, tags=["intent:pay.bo", "intent:pay.cy"])
    other = task_from(
        _transfer(task, "toy.transfer.basic.202", 40, split="train", tags=["intent:pay.dee"]),
        golden=[{"tool": "get_account", "args": {"account_id": "A2"}}, *two.model_dump()["golden"]],
    )
    o = suite_shape({"toy": toy_domain}, [two, other]).overall
    assert (o.multi_intent, o.leaked_branches, o.test_tasks_with_train_sibling) == (1, (), 0)
    # Found by a review: other tags (or fact names) on the same golden steps made a
    # re-instance, or a train copy of a test template, look new.
    relabelled = _transfer(task, "toy.transfer.basic.203", 15, split="train", tags=["intent:x.y"])
    o = suite_shape({"toy": toy_domain}, [two, relabelled]).overall
    assert o.test_tasks_with_train_sibling == 1
    twin = _transfer(task, "toy.transfer.basic.204", 15, tags=["intent:x.z"])
    assert suite_shape({"toy": toy_domain}, [two, twin]).overall.reinstances == 2
