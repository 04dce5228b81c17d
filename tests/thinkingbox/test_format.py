"""Loading ThinkingBox test-case datasets (tests/fixtures/thinkingbox/dataset)."""

from __future__ import annotations

import shutil
import textwrap
from datetime import UTC, datetime
from pathlib import Path

import pytest

from fixtures.tb_support import FIXTURE
from statebox.errors import TaskSpecError
from statebox.tasks import GoldenCall
from statebox.thinkingbox._format import load_dataset, merge_config

DATASET = FIXTURE / "dataset"
TESTLIST = FIXTURE / "testlist.yaml"

ORDERS = [
    {"id": "O1", "customer_id": "C1", "status": "open", "total": 40, "note": "gift"},
    {"id": "O2", "customer_id": "C1", "status": "shipped", "total": 15, "note": None},
]
C1 = {"id": "C1", "name": "Ada Lovelace", "email": "ada@example.com"}
SOURCES = [
    {"name": "faq.md", "snippets": ["Refunds take 5 days."]},
    {
        "name": "shipping.md",
        "snippets": [
            "Orders ship within 2 days. Express shipping costs 9 euros and arrives next day."
        ],
    },
]


def _dataset(tmp_path: Path, files: dict[str, str]) -> Path:
    """A copy of the fixture's scenario plus the given test files (path → source)."""
    root = tmp_path / "dataset"
    shutil.copytree(DATASET / "scenario", root / "scenario")
    (root / "test_case").mkdir()
    for rel, text in files.items():
        path = root / "test_case" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def _test_file(*functions: str, scenario: str = "tiny_shop") -> str:
    head = f'from thinkingbox.common import Judge, TestContext\n\n"""!\nscenario: {scenario}\n"""\n'
    return head + "\n".join(functions)


def _function(name: str, spec: str) -> str:
    body = textwrap.indent(textwrap.dedent(spec).strip("\n"), "    ")
    return f'\ndef {name}(x, judge):\n    """!\n{body}\n    """\n'


SIMPLE = _function(
    "test_one",
    """
    query: hi
    init:
      tiny_shop:
        golden_test_case:
          tool_interactions:
            - {tool: get_order, parameters: {order_id: O1}}
    """,
)


def _list(tmp_path: Path, *entries: object) -> Path:
    path = tmp_path / "list.yaml"
    path.write_text(
        "".join(f"- {e!r}\n" if not isinstance(e, str) else f"- {e}\n" for e in entries)
    )
    return path


# --- the fixture dataset ---------------------------------------------------------------


def test_fixture_loads_in_list_order_with_tasks() -> None:
    suite = load_dataset(DATASET, TESTLIST)
    assert [c.ref for c in suite.cases] == [
        "tiny_shop_group1_rubrics_yesno.py:test_cancel_order",
        "tiny_shop_group1.py:test_clear_note",
        "tiny_shop_group1.py:test_lookup_only",
        "tiny_shop_group1.py:test_tool_calls_used",
        "tiny_shop_group1.py:test_broken_check",
        "tiny_shop_extra.py:test_list_orders",
    ]
    first = suite.cases[0]
    assert first.file == DATASET / "test_case/tiny_shop/tiny_shop_group1_rubrics_yesno.py"
    assert first.function == "test_cancel_order"
    assert first.scenario == "tiny_shop"
    assert first.servers == ("tiny_shop",)
    assert first.tools == (
        "get_order",
        "cancel_order",
        "update_order",
        "list_orders",
        "fail_hard",
        "search_policy",
    )
    assert first.policy.startswith("You are Tiny Shop's support agent.")
    assert first.query == "Please cancel my order O1, I changed my mind."
    assert first.rubrics_yesno == ("Does the response confirm the cancellation?",)
    assert first.golden == (
        GoldenCall(tool="get_order", args={"order_id": "O1"}),
        GoldenCall(tool="cancel_order", args={"order_id": "O1", "reason": "changed mind"}),
    )
    task = first.task
    assert task.id == "tiny_shop.tiny_shop_group1_rubrics_yesno.test_cancel_order"
    assert task.domain == "tiny_shop"
    assert task.family == "tiny_shop_group1_rubrics_yesno"
    assert task.now == datetime(2025, 10, 1, 13, 0, tzinfo=UTC)
    assert task.user.opening == first.query
    assert task.user.persona.startswith("You are Ada Lovelace")
    assert task.tools == first.tools
    assert task.golden == first.golden
    assert not task.read_only
    assert task.tags[0] == "thinkingbox"
    assert task.tags[1].startswith("source:") and len(task.tags[1]) == len("source:") + 16
    assert suite.by_task_id[task.id] is first
    assert set(suite.scenarios) == {"tiny_shop"}
    assert suite.scenarios["tiny_shop"].tools == first.tools
    assert suite.warnings == ()


def test_init_is_the_merge_of_scenario_and_test_with_nulls_kept() -> None:
    suite = load_dataset(DATASET, TESTLIST)
    init = suite.cases[0].init["tiny_shop"]
    assert init["sources"] == SOURCES
    assert init["data_patch"] == {"customers": [C1], "orders": ORDERS}
    assert init["data_patch"]["orders"][1]["note"] is None
    assert init["rubrics_yesno"] == ["Does the response confirm the cancellation?"]
    clear = suite.by_task_id["tiny_shop.tiny_shop_group1.test_clear_note"]
    assert clear.golden == (GoldenCall(tool="update_order", args={"order_id": "O1", "note": None}),)
    assert "note" in clear.golden[0].args
    assert clear.init["tiny_shop"]["golden_test_case"]["tool_interactions"] == [
        {"tool": "update_order", "parameters": {"order_id": "O1", "note": None}}
    ]


def test_a_case_without_golden_calls_is_read_only() -> None:
    suite = load_dataset(DATASET, TESTLIST)
    lookup = suite.by_task_id["tiny_shop.tiny_shop_group1.test_lookup_only"]
    assert lookup.golden == ()
    assert lookup.task.read_only


def test_drop_sources_removes_them_and_warns() -> None:
    suite = load_dataset(DATASET, TESTLIST, drop_sources=True)
    assert all("sources" not in c.init["tiny_shop"] for c in suite.cases)
    assert suite.cases[0].init["tiny_shop"]["data_patch"]["customers"] == [C1]
    assert len(suite.warnings) == 1
    assert "sources" in suite.warnings[0] and "server tiny_shop" in suite.warnings[0]


def test_names_add_entries_and_no_list_loads_every_test() -> None:
    only = load_dataset(DATASET, names=["tiny_shop_extra.py:test_list_orders"])
    assert [c.ref for c in only.cases] == ["tiny_shop_extra.py:test_list_orders"]
    everything = load_dataset(DATASET)
    assert len(everything.cases) == 8  # group1 (5) + rubric variant (1) + weak (1) + extra (1)
    assert "tiny_shop_group1.py:test_cancel_order" in {c.ref for c in everything.cases}


def test_source_tag_changes_when_the_function_yaml_changes(tmp_path: Path) -> None:
    root = _dataset(tmp_path, {"tiny_shop/tiny_shop_a.py": _test_file(SIMPLE)})
    before = load_dataset(root, names=["tiny_shop_a.py:test_one"]).cases[0].task.tags
    edited = _test_file(SIMPLE.replace("query: hi", "query: hello"))
    (root / "test_case/tiny_shop/tiny_shop_a.py").write_text(edited)
    after = load_dataset(root, names=["tiny_shop_a.py:test_one"]).cases[0].task.tags
    assert before[1] != after[1]


# --- resolution and merging ------------------------------------------------------------


def test_top_level_file_wins_over_a_prefix_folder(tmp_path: Path) -> None:
    top = _test_file(SIMPLE.replace("query: hi", "query: top"))
    nested = _test_file(SIMPLE.replace("query: hi", "query: nested"))
    root = _dataset(tmp_path, {"shop_a_b.py": top, "shop_a/shop_a_b.py": nested})
    assert load_dataset(root, names=["shop_a_b.py:test_one"]).cases[0].query == "top"


def test_longest_prefix_folder_wins(tmp_path: Path) -> None:
    files = {
        f"{folder}/shop_a_b_c.py": _test_file(SIMPLE.replace("query: hi", f"query: {folder}"))
        for folder in ("shop", "shop_a", "shop_a_b")
    }
    root = _dataset(tmp_path, files)
    assert load_dataset(root, names=["shop_a_b_c.py:test_one"]).cases[0].query == "shop_a_b"
    (root / "test_case/shop_a_b/shop_a_b_c.py").unlink()
    assert load_dataset(root, names=["shop_a_b_c.py:test_one"]).cases[0].query == "shop_a"


def test_merge_config_rules() -> None:
    base = {"a": {"x": 1, "l": [1, 2]}, "keep": "base", "gone": "base", "n": None}
    over = {"a": {"y": 2, "l": [3]}, "gone": None, "n": {"k": 1}, "new": [0]}
    merged = merge_config(base, over)
    assert merged == {
        "a": {"x": 1, "l": [1, 2, 3], "y": 2},
        "keep": "base",
        "gone": None,
        "n": {"k": 1},
        "new": [0],
    }
    assert base["a"] == {"x": 1, "l": [1, 2]}  # inputs untouched
    assert merge_config([1], {"a": 1}) == {"a": 1}
    assert merge_config({"a": 1}, 5) == 5


def test_lists_concatenate_and_none_strings_stay_strings(tmp_path: Path) -> None:
    spec = """
    query: hi
    init:
      tiny_shop:
        sources: [{name: extra.md, snippets: []}]
        data_patch:
          orders: [{id: O9, note: None, total: null}]
        golden_test_case:
          tool_interactions:
            - {tool: update_order, parameters: {order_id: O9, note: None}}
    """
    root = _dataset(tmp_path, {"tiny_shop/tiny_shop_n.py": _test_file(_function("test_n", spec))})
    case = load_dataset(root, names=["tiny_shop_n.py:test_n"]).cases[0]
    config = case.init["tiny_shop"]
    assert config["sources"] == [*SOURCES, {"name": "extra.md", "snippets": []}]
    assert config["data_patch"]["orders"] == [{"id": "O9", "note": "None", "total": None}]
    assert case.golden[0].args == {"order_id": "O9", "note": "None"}


# --- errors name file, entry and field -------------------------------------------------


def test_missing_file(tmp_path: Path) -> None:
    listing = _list(tmp_path, "tiny_shop_nope.py:test_one")
    with pytest.raises(TaskSpecError) as err:
        load_dataset(DATASET, listing)
    assert (err.value.file, err.value.task_id, err.value.field) == (
        str(listing),
        "tiny_shop_nope.py:test_one",
        "file",
    )


def test_missing_function() -> None:
    with pytest.raises(TaskSpecError) as err:
        load_dataset(DATASET, names=["tiny_shop_extra.py:test_nope"])
    assert err.value.file == str(DATASET / "test_case/tiny_shop_extra.py")
    assert (err.value.task_id, err.value.field) == ("tiny_shop_extra.py:test_nope", "function")


def test_function_without_a_bang_string(tmp_path: Path) -> None:
    source = _test_file('\ndef test_plain(x, judge):\n    """Just a docstring."""\n')
    root = _dataset(tmp_path, {"tiny_shop/tiny_shop_p.py": source})
    with pytest.raises(TaskSpecError) as err:
        load_dataset(root, names=["tiny_shop_p.py:test_plain"])
    assert err.value.file == str(root / "test_case/tiny_shop/tiny_shop_p.py")
    assert (err.value.task_id, err.value.field) == ("tiny_shop_p.py:test_plain", "docstring")
    assert "'!'" in err.value.reason


def test_bad_yaml_in_a_function(tmp_path: Path) -> None:
    source = _test_file(_function("test_bad", "query: [unclosed\ninit: {}"))
    root = _dataset(tmp_path, {"tiny_shop/tiny_shop_y.py": source})
    with pytest.raises(TaskSpecError) as err:
        load_dataset(root, names=["tiny_shop_y.py:test_bad"])
    assert err.value.file == str(root / "test_case/tiny_shop/tiny_shop_y.py")
    assert (err.value.task_id, err.value.field) == ("tiny_shop_y.py:test_bad", "docstring")
    assert "bad YAML" in err.value.reason


def test_bad_yaml_in_the_module_string(tmp_path: Path) -> None:
    source = '"""!\nscenario: [tiny_shop\n"""\n' + SIMPLE
    root = _dataset(tmp_path, {"tiny_shop/tiny_shop_m.py": source})
    with pytest.raises(TaskSpecError) as err:
        load_dataset(root, names=["tiny_shop_m.py:test_one"])
    assert err.value.file == str(root / "test_case/tiny_shop/tiny_shop_m.py")
    assert err.value.field == "scenario"


def test_unknown_scenario(tmp_path: Path) -> None:
    root = _dataset(tmp_path, {"tiny_shop/tiny_shop_u.py": _test_file(SIMPLE, scenario="nowhere")})
    with pytest.raises(TaskSpecError) as err:
        load_dataset(root, names=["tiny_shop_u.py:test_one"])
    assert err.value.file == str(root / "test_case/tiny_shop/tiny_shop_u.py")
    assert (err.value.task_id, err.value.field) == ("tiny_shop_u.py:test_one", "scenario")
    assert "nowhere" in err.value.reason


@pytest.mark.parametrize(
    ("entry", "shown"),
    [("no_colon.py", "no_colon.py"), ("file.txt:test_x", "file.txt:test_x"), (5, "5")],
)
def test_malformed_test_list_entry(tmp_path: Path, entry: object, shown: str) -> None:
    listing = _list(tmp_path, "tiny_shop_extra.py:test_list_orders", entry)
    with pytest.raises(TaskSpecError) as err:
        load_dataset(DATASET, listing)
    assert (err.value.file, err.value.task_id, err.value.field) == (str(listing), shown, "[1]")


def test_a_test_list_that_is_not_a_list(tmp_path: Path) -> None:
    listing = tmp_path / "list.yaml"
    listing.write_text("tiny_shop_extra.py: test_list_orders\n")
    with pytest.raises(TaskSpecError, match="not a YAML list") as err:
        load_dataset(DATASET, listing)
    assert err.value.file == str(listing)


def test_duplicate_entry(tmp_path: Path) -> None:
    listing = _list(
        tmp_path, "tiny_shop_extra.py:test_list_orders", "tiny_shop_extra.py:test_list_orders"
    )
    with pytest.raises(TaskSpecError, match="duplicate") as err:
        load_dataset(DATASET, listing)
    assert err.value.task_id == "tiny_shop_extra.py:test_list_orders"


def test_golden_tool_outside_the_allowlist_is_a_task_error(tmp_path: Path) -> None:
    spec = """
    query: delete me
    init:
      tiny_shop:
        golden_test_case:
          tool_interactions:
            - {tool: delete_customer, parameters: {customer_id: C1}}
    """
    root = _dataset(tmp_path, {"tiny_shop/tiny_shop_d.py": _test_file(_function("test_d", spec))})
    with pytest.raises(TaskSpecError, match="allowlist") as err:
        load_dataset(root, names=["tiny_shop_d.py:test_d"])
    assert (err.value.task_id, err.value.field) == ("tiny_shop_d.py:test_d", "golden")
