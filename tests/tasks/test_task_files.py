"""Task files written back: `task_data` and `dump_tasks` round-trip; placeholders are refused."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from fixtures.support import TOY_DIR, TOY_TASKS
from statebox.errors import TaskSpecError
from statebox.tasks import dump_tasks, load_tasks, parse_tasks, placeholders, task_data

DOMAINS = Path(__file__).resolve().parents[2] / "src" / "statebox" / "domains"
# The toy's files and the first v2 test file of each built-in domain.
SAMPLES = [
    TOY_TASKS,
    TOY_DIR / "tasks_v2",
    *(sorted((d / "test").glob("*.yaml"))[0] for d in sorted(DOMAINS.glob("*/tasks_v2"))),
]
BASE = {
    "id": "toy.draft.new.001",
    "domain": "toy",
    "now": "2025-10-01T13:00:00+00:00",
    "user": {"opening": "hi"},
    "golden": [{"tool": "add_note", "args": {"account_id": "A1", "body": "TODO: call back"}}],
}


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: "/".join(p.parts[-3:]))
def test_a_task_written_back_loads_as_the_same_task(path: Path) -> None:
    tasks = load_tasks(path)[:4]  # a few: dumping YAML is slow, and they share one generator
    assert tasks
    text = dump_tasks([task_data(t) for t in tasks])
    assert parse_tasks(yaml.safe_load(text)) == tasks
    first = yaml.safe_load(text)[0]
    assert list(first)[:4] == ["id", "domain", "split", "now"]  # the generators' order
    assert "family" not in first  # implied by the id


def test_initial_state_is_written_keyed_by_table_with_its_deletes() -> None:
    (task,) = parse_tasks(
        {
            **BASE,
            "initial_state": {
                "accounts": [{"id": "A2", "status": "frozen"}],
                "delete": {"notes": [{"id": "N-001"}]},
            },
        }
    )
    data = task_data(task)
    assert data["initial_state"] == {
        "accounts": [{"id": "A2", "status": "frozen"}],
        "delete": {"notes": [{"id": "N-001"}]},
    }
    assert parse_tasks(data) == [task]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"user": {"opening": "TODO: the user's first message"}}, "user.opening"),
        (
            {
                "user": {
                    "opening": "hi",
                    "facts": {"a": {"value": 1, "ask": ["a"], "label": "TODO:"}},
                }
            },
            "user.facts.a.label",
        ),
        (
            {
                "checks": {
                    "text": [{"table": "notes", "column": "body", "must_contain": ["TODO: x"]}]
                }
            },
            "checks.text[0].must_contain[0]",
        ),
        ({"reference_response": "  TODO: the reply"}, "reference_response"),
    ],
)
def test_a_placeholder_is_refused_naming_file_task_and_field(
    change: dict[str, object], field: str
) -> None:
    with pytest.raises(TaskSpecError) as info:
        parse_tasks({**BASE, **change}, file="draft.yaml")
    err = info.value
    assert (err.file, err.task_id, err.field) == ("draft.yaml", "toy.draft.new.001", field)
    assert str(err).startswith(f"file draft.yaml, task toy.draft.new.001, field {field}: a draft")
    assert "\n" not in str(err)


def test_data_that_starts_with_todo_is_not_a_placeholder() -> None:
    # Golden arguments and world rows are data: a note may well say "TODO: call back".
    assert placeholders(BASE) == []
    assert parse_tasks(BASE)[0].golden[0].args["body"] == "TODO: call back"


@pytest.mark.parametrize("opening", ["", "   ", "\n"])
def test_a_blank_opening_is_refused_naming_file_task_and_field(opening: str) -> None:
    # A draft's TODO: deleted instead of written must not become a task that grades.
    with pytest.raises(TaskSpecError) as info:
        parse_tasks({**BASE, "user": {"opening": opening}}, file="draft.yaml")
    err = info.value
    assert (err.file, err.task_id) == ("draft.yaml", "toy.draft.new.001")
    assert "user.opening" in str(err) and "the user's opening is empty" in str(err)
    assert "\n" not in str(err)
