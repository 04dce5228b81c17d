"""`statebox domain check`: each finding kind on a deliberately broken small domain."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict
from typer.testing import CliRunner

from fixtures.support import TOY_REF
from fixtures.toy import make_domain
from statebox.cli import app
from statebox.domains import Domain
from statebox.scaffold import check_domain
from statebox.tools import ToolError, ToolSpec, tool
from statebox.world import ExcludedField, FieldPolicy, WorldTx

SCHEMA = """
CREATE TABLE items (id TEXT PRIMARY KEY, status TEXT NOT NULL, qty INTEGER NOT NULL);
"""
SEED = {
    "items": [
        {"id": "IT-1", "status": "open", "qty": 2},
        {"id": "IT-2", "status": "shut", "qty": 0},
    ]
}


@tool(mutates=False)
def get_item(tx: WorldTx, item_id: str) -> dict[str, Any]:
    """Look up an item.

    Args:
        item_id: Item id, such as 'IT-1'.
    """
    row = tx.one("SELECT * FROM items WHERE id = ?", [item_id])
    if row is None:
        raise ToolError("not_found", f"no item {item_id}")
    return row


@tool(mutates=True)
def close_item(tx: WorldTx, item_id: str) -> str:
    """Close an open item.

    Args:
        item_id: Item id.
    """
    row = get_item.fn(tx, item_id)
    if row["status"] != "open":
        raise ToolError("invalid_state", f"item {item_id} is {row['status']}")
    tx.update("items", {"id": item_id}, {"status": "shut"})
    return "shut"


def domain(*tools: ToolSpec, **changes: Any) -> Domain:
    parts: dict[str, Any] = {
        "name": "broken",
        "schema_sql": SCHEMA,
        "seed": SEED,
        "tools": [get_item, close_item, *tools],
        "policy": "# Policy\n\nClose open items on request.\n",
    }
    return Domain(**{**parts, **changes})


def lines(d: Domain) -> list[str]:
    return check_domain(d, tasks=[]).lines()


def test_a_sound_domain_has_no_finding_and_its_flags_are_proven() -> None:
    result = check_domain(domain(), tasks=[])
    assert result.findings == () and result.notes == ()
    assert result.probe_calls > 0


@tool(mutates=False)
def touch_item(tx: WorldTx, item_id: str) -> bool:
    """Mark an item as seen (declared read-only, but it writes: the bug).

    Args:
        item_id: Item id.
    """
    return tx.update("items", {"id": item_id}, {"qty": 1}) == 1


def test_a_read_only_tool_that_writes_on_a_seeded_id() -> None:
    found = lines(domain(touch_item))
    assert found == [
        'domain broken: tool touch_item: declared mutates=False but wrote (arguments {"item_id": '
        '"IT-1"})'
    ]


@tool(mutates=False)
def close_if_last(tx: WorldTx, item_id: str, status: Literal["open", "shut"]) -> bool:
    """Writes only for one id and one choice: a probe must draw both from the seed.

    Args:
        item_id: Item id.
        status: Which status to match.
    """
    if item_id == "IT-2" and status == "shut":
        tx.update("items", {"id": item_id}, {"qty": 9})
    return True


def test_the_probe_draws_ids_and_literal_choices_together() -> None:
    assert [line.split(": ")[1] for line in lines(domain(close_if_last))] == ["tool close_if_last"]


@tool(mutates=True)
def archive_item(tx: WorldTx, item_id: str) -> str:
    """Declared mutating, but never writes (a note: not provable).

    Args:
        item_id: Item id.
    """
    get_item.fn(tx, item_id)
    return "archived"


def test_a_mutating_tool_that_never_writes_is_a_note_not_a_finding() -> None:
    result = check_domain(domain(archive_item), tasks=[])
    assert result.findings == ()
    assert len(result.notes) == 1 and result.notes[0].startswith("tool archive_item: declared")


@tool(mutates=False)
def crash_item(tx: WorldTx, item_id: str) -> int:
    """Looks a key up without checking it (a bug an agent's call reaches).

    Args:
        item_id: Item id.
    """
    return {"IT-1": 1}[item_id]


def test_a_tool_that_raises_on_accepted_arguments() -> None:
    (line,) = lines(domain(crash_item))
    assert line.startswith("domain broken: tool crash_item: raised KeyError: 'IT-2' on arguments")


class _Loose(BaseModel):
    model_config = ConfigDict(extra="forbid")
    item_id: Any = None


def test_undocumented_and_untyped_tools() -> None:
    bare = ToolSpec("bare_tool", " ", False, _Loose, lambda tx, item_id=None: None)
    assert lines(domain(bare)) == [
        "domain broken: tool bare_tool: no description",
        "domain broken: tool bare_tool: argument item_id: no type",
        "domain broken: tool bare_tool: argument item_id: not documented (an Args: line)",
    ]


def test_a_table_without_a_primary_key() -> None:
    d = domain(schema_sql=SCHEMA + "CREATE TABLE log (line TEXT);")
    assert lines(d) == ["domain broken: table log: no primary key (statebox compares rows by it)"]


def test_field_policy_names_missing_columns_or_no_reason() -> None:
    policy = FieldPolicy(
        excluded=(
            ExcludedField(table="items", column="colour", reason="free text"),
            ExcludedField(table="orders", column="note", reason="free text"),
            ExcludedField(table="items", column="status", reason=" "),
        )
    )
    assert lines(domain(field_policy=policy)) == [
        "domain broken: field policy: items.colour: table items has no column colour",
        "domain broken: field policy: orders.note: no table orders",
        "domain broken: field policy: items.status: no reason given (say why it is not compared)",
    ]


def test_an_empty_policy() -> None:
    assert lines(domain(policy="  \n")) == ["domain broken: policy: the text is empty"]


def test_golden_calls_prove_a_flag_the_seed_cannot(tasks_dir: Path) -> None:
    # close_item on the seed's IT-1 writes; a domain whose seed has no open item needs
    # the task's own initial state, which only its golden replay reaches.
    d = domain(seed={"items": [{"id": "IT-1", "status": "shut", "qty": 0}]})
    assert check_domain(d, tasks=[]).notes
    from statebox.tasks import load_tasks

    result = check_domain(d, tasks=load_tasks(tasks_dir))
    assert result.notes == () and result.golden_calls == 2


@pytest.fixture
def tasks_dir(tmp_path: Path) -> Path:
    (tmp_path / "t.yaml").write_text(
        """
- id: broken.close.open.001
  domain: broken
  now: '2026-02-02T10:00:00+00:00'
  initial_state: {items: [{id: IT-1, status: open}]}
  user: {opening: Please close item IT-1.}
  golden:
    - {tool: get_item, args: {item_id: IT-1}}
    - {tool: close_item, args: {item_id: IT-1}}
""",
        encoding="utf-8",
    )
    return tmp_path


def test_cli_exits_1_with_one_line_per_finding(tmp_path: Path) -> None:
    module = tmp_path / "broken_domain.py"
    module.write_text(
        "from statebox.domains import Domain\n"
        "DOMAIN = Domain(name='broken', schema_sql='CREATE TABLE t (x TEXT);', seed={}, "
        "tools=[], policy='')\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(app, ["domain", "check", str(module)])
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "domain broken: table t: no primary key (statebox compares rows by it)",
        "domain broken: policy: the text is empty",
    ]


def test_cli_passes_the_toy_domain() -> None:
    result = CliRunner().invoke(app, ["domain", "check", TOY_REF])
    assert result.exit_code == 0, result.output
    assert "domain toy: 0 findings, 0 notes" in result.stderr
    assert make_domain().name == "toy"


@tool(mutates=False)
def find_item(tx: WorldTx, ref: str) -> dict[str, Any]:
    """Look an item up by reference (an argument name the probe cannot map to a table).

    Args:
        ref: Item reference, such as 'IT-1'.
    """
    row = tx.one("SELECT * FROM items WHERE id = ?", [ref])
    if row is None:
        raise ToolError("not_found", f"no item {ref}")
    return row


def test_a_read_only_tool_no_probe_call_ran_is_a_note() -> None:
    result = check_domain(domain(find_item), tasks=[])
    assert result.findings == ()
    assert result.notes == (
        "tool find_item: no probe call succeeded, so its read-only flag is unproven (every "
        "call was refused; a golden trajectory that calls it shows it)",
    )


def test_a_golden_call_that_succeeds_proves_the_read_only_flag(tmp_path: Path) -> None:
    from statebox.tasks import load_tasks

    (tmp_path / "t.yaml").write_text(
        """
- id: broken.find.item.001
  domain: broken
  now: '2026-02-02T10:00:00+00:00'
  initial_state: {items: [{id: IT-1, status: open}]}
  user: {opening: Please close item IT-1.}
  golden:
    - {tool: find_item, args: {ref: IT-1}}
    - {tool: close_item, args: {item_id: IT-1}}
""",
        encoding="utf-8",
    )
    result = check_domain(domain(find_item), tasks=load_tasks(tmp_path))
    assert result.findings == () and result.notes == ()
    assert result.golden_calls == 2


@tool(mutates=False)
def drop_items(tx: WorldTx, item_id: str) -> bool:
    """Declared read-only, but drops a table (DDL: SQLite's change count misses it).

    Args:
        item_id: Item id.
    """
    tx.execute("DROP TABLE IF EXISTS items")
    return True


@tool(mutates=False)
def make_scratch(tx: WorldTx) -> bool:
    """Declared read-only, but creates a table.

    Args:
    """
    tx.execute("CREATE TABLE scratch (id TEXT PRIMARY KEY)")
    return True


def test_a_read_only_tool_that_changes_the_schema() -> None:
    found = lines(domain(drop_items, make_scratch))
    assert found == [
        "domain broken: tool drop_items: declared mutates=False changed the schema (arguments "
        '{"item_id": "IT-1"})',
        "domain broken: tool make_scratch: declared mutates=False changed the schema (arguments "
        "{})",
    ]


@tool(mutates=True)
def widen_items(tx: WorldTx, item_id: str) -> bool:
    """Adds a column: a second call on the same world would fail (the column exists).

    Args:
        item_id: Item id.
    """
    tx.execute("ALTER TABLE items ADD COLUMN note TEXT")
    return True


def test_a_schema_change_does_not_reach_the_next_probe_call() -> None:
    result = check_domain(domain(widen_items), tasks=[])
    # Each probe call after the change runs on a fresh seeded world: no duplicate-column crash.
    assert result.findings == ()
    assert result.probe_calls > 1 + 2 + 2  # get_item, close_item and several widen_items calls


def test_a_keyless_table_does_not_hide_the_field_policy_findings() -> None:
    policy = FieldPolicy(excluded=(ExcludedField(table="items", column="colour", reason="x"),))
    result = check_domain(
        domain(schema_sql=SCHEMA + "CREATE TABLE log (line TEXT);", field_policy=policy),
        tasks=[],
    )
    assert result.lines() == [
        "domain broken: table log: no primary key (statebox compares rows by it)",
        "domain broken: field policy: items.colour: table items has no column colour",
    ]
    assert result.unprobed == "table log has no primary key" and result.probe_calls == 0


def _cli(tmp_path: Path, body: str) -> Any:
    module = tmp_path / "cli_domain.py"
    module.write_text(
        "from statebox.domains import Domain\n"
        "from statebox.world import ExcludedField, FieldPolicy\n" + body,
        encoding="utf-8",
    )
    return CliRunner().invoke(app, ["domain", "check", str(module)])


def test_cli_summary_says_when_and_why_the_tools_were_not_probed(tmp_path: Path) -> None:
    result = _cli(
        tmp_path,
        "DOMAIN = Domain(name='broken', schema_sql='CREATE TABLE t (id TEXT PRIMARY KEY);', "
        "seed={}, tools=[], policy='# P\\n\\nBe kind.\\n', field_policy=FieldPolicy(excluded=("
        "ExcludedField(table='t', column='nope', reason='x'),)))\n",
    )
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "domain broken: field policy: t.nope: table t has no column nope"
    ]
    assert "probed with" not in result.stderr
    assert (
        "domain broken: 1 findings, 0 notes (1 tools not probed: the field policy must name "
        "existing columns first)"
    ) in result.stderr


def test_cli_does_not_claim_every_write_reached_when_one_was_not(tmp_path: Path) -> None:
    result = _cli(
        tmp_path,
        "from tests.scaffold.test_check import archive_item, get_item\n"
        "DOMAIN = Domain(name='broken', schema_sql='CREATE TABLE items (id TEXT PRIMARY KEY, "
        "status TEXT NOT NULL, qty INTEGER NOT NULL);', seed={'items': [{'id': 'IT-1', "
        "'status': 'open', 'qty': 1}]}, tools=[get_item, archive_item], policy='# P\\n\\nX.\\n')\n",
    )
    assert result.exit_code == 0, result.output
    assert "tool archive_item: declared mutates=True" in result.stderr
    assert "the probes made every mutating tool write" not in result.stderr
