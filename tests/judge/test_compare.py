"""compare(): missing / wrong / extra, for inserts, updates and deletes (docs/design.md §6.3)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from statebox.judge import Comparison, Discrepancy, compare
from statebox.world import ExcludedField, FieldPolicy, State

PK = {"t": ("id",), "u": ("id",)}


def state(t: dict[int, dict[str, Any]], u: dict[str, dict[str, Any]] | None = None) -> State:
    rows = {"t": {(k,): {"id": k, **v} for k, v in t.items()}}
    rows["u"] = {
        (k,): {"id": k, **v} for k, v in ({"x": {"s": "keep"}} if u is None else u).items()
    }
    return State(rows, PK)


# Initial: rows 1, 2, 3. Golden: update 1.a → "A", delete 2, insert 4.
INIT = state({1: {"a": "a", "b": 1}, 2: {"a": "b", "b": 2}, 3: {"a": "c", "b": 3}})
GOLD = state({1: {"a": "A", "b": 1}, 3: {"a": "c", "b": 3}, 4: {"a": "d", "b": 4}})


def d(kind: str, op: str, key: int, column: str | None = None, **kw: Any) -> Discrepancy:
    return Discrepancy(kind=kind, op=op, table="t", key={"id": key}, column=column, **kw)  # type: ignore[arg-type]


def test_golden_final_matches() -> None:
    c = compare(INIT, GOLD, GOLD, None)
    assert c == Comparison()
    assert c.matches and c.size == 0


def test_doing_nothing_misses_every_effect() -> None:
    c = compare(INIT, GOLD, INIT, None)
    assert c.missing == (
        d("missing", "update", 1, "a", expected="A", actual="a"),
        d("missing", "delete", 2, actual={"id": 2, "a": "b", "b": 2}),
        d("missing", "insert", 4, expected={"id": 4, "a": "d", "b": 4}),
    )
    assert c.wrong == () and c.extra == ()
    assert not c.matches and c.size == 3


def test_wrong_values_in_update_and_insert() -> None:
    final = state({1: {"a": "Z", "b": 1}, 3: {"a": "c", "b": 3}, 4: {"a": "d", "b": 40}})
    c = compare(INIT, GOLD, final, None)
    assert c.missing == () and c.extra == ()
    assert c.wrong == (
        d("wrong", "update", 1, "a", expected="A", actual="Z"),
        d("wrong", "insert", 4, "b", expected=4, actual=40),
    )


def test_extra_insert_update_and_delete() -> None:
    final = state(
        {
            1: {"a": "A", "b": 1},
            3: {"a": "c", "b": 30},  # extra update
            4: {"a": "d", "b": 4},
            5: {"a": "e", "b": 5},  # extra insert
        },
        u={},  # extra delete of u.x
    )
    c = compare(INIT, GOLD, final, None)
    assert c.missing == () and c.wrong == ()
    assert c.extra == (
        d("extra", "update", 3, "b", expected=3, actual=30),
        d("extra", "insert", 5, actual={"id": 5, "a": "e", "b": 5}),
        Discrepancy(
            kind="extra", op="delete", table="u", key={"id": "x"}, expected={"id": "x", "s": "keep"}
        ),
    )


def test_deleting_a_row_the_golden_updates_is_extra() -> None:
    final = state({3: {"a": "c", "b": 3}, 4: {"a": "d", "b": 4}})
    c = compare(INIT, GOLD, final, None)
    assert c.extra == (d("extra", "delete", 1, expected={"id": 1, "a": "A", "b": 1}),)
    assert c.missing == () and c.wrong == ()


def test_one_row_can_be_missing_and_extra_on_different_columns() -> None:
    final = state({1: {"a": "a", "b": 100}, 3: {"a": "c", "b": 3}, 4: {"a": "d", "b": 4}})
    c = compare(INIT, GOLD, final, None)
    assert c.missing == (d("missing", "update", 1, "a", expected="A", actual="a"),)
    assert c.extra == (d("extra", "update", 1, "b", expected=1, actual=100),)


def test_field_policy_hides_excluded_columns_only() -> None:
    policy = FieldPolicy(excluded=(ExcludedField(table="t", column="b", reason="volatile"),))
    final = state({1: {"a": "A", "b": 99}, 3: {"a": "c", "b": 98}, 4: {"a": "d", "b": 97}})
    assert compare(INIT, GOLD, final, policy).matches
    assert compare(INIT, GOLD, final, None).size == 3
    worse = state({1: {"a": "Q", "b": 99}, 3: {"a": "c", "b": 98}, 4: {"a": "d", "b": 97}})
    assert compare(INIT, GOLD, worse, policy).wrong == (
        d("wrong", "update", 1, "a", expected="A", actual="Q"),
    )


def test_25_and_25_0_do_not_differ_once_canonical() -> None:
    from statebox.world import canonical_value

    final = state(
        {
            1: {"a": "A", "b": canonical_value(1.0)},
            3: {"a": "c", "b": 3},
            4: {"a": "d", "b": canonical_value(4.0)},
        }
    )
    assert compare(INIT, GOLD, final, None).matches


def test_lists_are_sorted_by_table_key_column() -> None:
    init = state({i: {"a": "a", "b": 0} for i in range(1, 13)})
    golden = state({i: {"a": "GOLD", "b": 1} for i in range(1, 13)})
    c = compare(init, golden, init, None)
    keys = [(m.key["id"], m.column) for m in c.missing]
    assert keys == [(i, col) for i in range(1, 13) for col in ("a", "b")]


_VALUES = st.sampled_from(["a", "b", "c"])


@st.composite
def _derived(draw: st.DrawFn, initial: State) -> State:
    """A state derived from ``initial``: unchanged tables shared by identity."""
    rows: dict[str, dict] = {}
    for table, trows in initial.rows.items():
        if draw(st.booleans()):
            rows[table] = trows  # untouched: shared with the base
            continue
        new = {k: dict(r) for k, r in trows.items()}
        for k in list(new):
            op = draw(st.sampled_from(["keep", "update", "delete"]))
            if op == "update":
                new[k]["a"] = draw(_VALUES)
            elif op == "delete":
                del new[k]
        for k in draw(st.lists(st.sampled_from(["p", "q"]), unique=True)):
            if (k,) not in new:
                new[(k,)] = {"id": k, "a": draw(_VALUES), "b": 0}
        rows[table] = new
    return State(rows, initial.primary_keys, base=initial)


@st.composite
def _triples(draw: st.DrawFn) -> tuple[State, State, State]:
    keys = draw(st.lists(st.sampled_from(["k", "m", "n"]), unique=True))
    init = State(
        {
            "t": {(k,): {"id": k, "a": draw(_VALUES), "b": 0} for k in keys},
            "u": {("x",): {"id": "x", "a": "a", "b": 0}},
        },
        PK,
    )
    return init, draw(_derived(init)), draw(_derived(init))


def _copy(s: State) -> State:
    return State({t: {k: dict(r) for k, r in rows.items()} for t, rows in s.rows.items()}, PK)


@settings(max_examples=150)
@given(_triples())
def test_compare_properties(triple: tuple[State, State, State]) -> None:
    init, gold, final = triple
    c = compare(init, gold, final, None)
    assert c.matches == (gold == final)
    assert c == compare(_copy(init), _copy(gold), _copy(final), None)  # sharing changes nothing
    for m in c.missing:  # the golden changed it, the trial left it as it was
        assert m.expected != m.actual
        row = init.rows[m.table].get(tuple(m.key.values()))
        if m.op == "update":
            assert row is not None and row[m.column] == m.actual  # type: ignore[index]
    for x in c.extra:
        row = init.rows[x.table].get(tuple(x.key.values()))
        if x.op == "insert":
            assert row is None
        if x.op == "update":
            assert row is not None and row[x.column] == x.expected  # type: ignore[index]
    for w in c.wrong:
        row = init.rows[w.table].get(tuple(w.key.values()))
        assert w.expected != w.actual
        if row is not None:
            assert w.expected != row[w.column] and w.actual != row[w.column]  # type: ignore[index]
