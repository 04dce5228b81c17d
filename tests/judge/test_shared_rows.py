"""Rows shared by identity (a trial's untouched rows) change no comparison's result.

A trial's state shares every row it did not write with the initial state (the same
dict objects), and the judge skips such rows by identity. These properties compare
each result with the one for deep copies, where nothing is shared.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from statebox.judge import compare, match_state
from statebox.world import ExcludedField, FieldPolicy, State, effects

PK = {"t": ("id",), "u": ("id",)}
VALUES = st.sampled_from(["a", "b", "c"])
GUARD = FieldPolicy(excluded=(ExcludedField(table="t", column="b", reason="free text"),))


@st.composite
def derived(draw: st.DrawFn, initial: State) -> State:
    """A state from ``initial`` that shares its unchanged tables *and rows* by identity."""
    rows: dict[str, dict] = {}
    for table, trows in initial.rows.items():
        if draw(st.booleans()):
            rows[table] = trows
            continue
        new = dict(trows)  # rows not written below stay the very objects of the base
        for k in list(new):
            op = draw(st.sampled_from(["keep", "update", "touch", "delete"]))
            if op == "update":
                new[k] = {**new[k], draw(st.sampled_from(["a", "b"])): draw(VALUES)}
            elif op == "touch":  # rewritten with the same values: equal, not identical
                new[k] = dict(new[k])
            elif op == "delete":
                del new[k]
        for k in draw(st.lists(st.sampled_from(["p", "q", "r"]), unique=True)):
            if (k,) not in new:
                new[(k,)] = {"id": k, "a": draw(VALUES), "b": draw(VALUES)}
        rows[table] = new
    return State(rows, PK, initial)


@st.composite
def triples(draw: st.DrawFn) -> tuple[State, State, State]:
    keys = draw(st.lists(st.sampled_from(["k", "m", "n", "o"]), unique=True))
    init = State(
        {
            "t": {(k,): {"id": k, "a": draw(VALUES), "b": draw(VALUES)} for k in keys},
            "u": {("x",): {"id": "x", "a": "a", "b": "a"}},
        },
        PK,
    )
    return init, draw(derived(init)), draw(derived(init))


def copied(s: State) -> State:
    return State({t: {k: dict(r) for k, r in rows.items()} for t, rows in s.rows.items()}, PK)


@settings(max_examples=300)
@given(triples())
def test_sharing_changes_no_comparison(triple: tuple[State, State, State]) -> None:
    init, gold, final = triple
    ci, cg, cf = copied(init), copied(gold), copied(final)
    assert compare(init, gold, final, None, GUARD) == compare(ci, cg, cf, None, GUARD)
    assert compare(init, gold, final, GUARD) == compare(ci, cg, cf, GUARD)
    assert effects(init, final) == effects(ci, cf)
    assert effects(init, final, GUARD) == effects(ci, cf, GUARD)
    # The order-free matcher, twice (its accepted state's inserts are kept between calls).
    for _ in range(2):
        shared = match_state(init, (gold,), final, GUARD, guard=GUARD)
        fresh = match_state(ci, (cg,), cf, GUARD, guard=GUARD)
        assert shared.comparison == fresh.comparison
        assert shared.ids == fresh.ids
        assert shared.final == fresh.final


def test_an_accepted_states_inserts_are_kept_per_initial_state() -> None:
    init = State({"t": {("k",): {"id": "k", "a": "a", "b": "a"}}}, {"t": ("id",)})
    gold = State({"t": {**init.rows["t"], ("p",): {"id": "p", "a": "b", "b": "b"}}}, PK, init)
    assert gold.inserted_keys(init, "t") == [("p",)]
    assert gold.inserted_keys(init, "t") is gold.inserted_keys(init, "t")  # kept
    other = State({"t": {}}, {"t": ("id",)})
    assert gold.inserted_keys(other, "t") == [("k",), ("p",)]  # another initial: recomputed
    assert gold.inserted_keys(init, "u") == []
