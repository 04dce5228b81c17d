"""`TbJudge`: a ThinkingBox check plus statebox's verdict, on hand-built effects objects.

The effects objects have the tiny_shop server's ``__reserved__geteffects`` shape (see
tests/fixtures/thinkingbox/tiny_shop_server.py); no server runs here.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import json
from typing import Any

import pytest

from fixtures.tb_support import FIXTURE
from statebox.episode import Event, TerminationReason
from statebox.errors import JudgeError
from statebox.judge import FailureSignature, RubricAnswer, Verdict
from statebox.thinkingbox._format import TbCase, TbSuite, load_dataset
from statebox.thinkingbox._judge import TbJudge, effects_states, tool_calls_context
from statebox.tools import ToolCall, ToolFailure, ToolResult

QUESTION = "Does the response confirm the cancellation?"
CUSTOMERS = [{"id": "C1", "name": "Ada Lovelace", "email": "ada@example.com"}]
ORDERS = [
    {"id": "O1", "customer_id": "C1", "status": "open", "total": 40, "note": "gift"},
    {"id": "O2", "customer_id": "C1", "status": "shipped", "total": 15, "note": None},
]


def _hash(state: dict[str, Any]) -> str:
    return hashlib.sha256(
        json.dumps(state, sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()


def _cancelled(reason: str = "changed mind") -> dict[str, Any]:
    orders = copy.deepcopy(ORDERS)
    orders[0].update(status="cancelled", cancel_reason=reason)
    return {"customers": CUSTOMERS, "orders": orders}


def _effects(result: dict[str, Any], golden: dict[str, Any] | None = None) -> dict[str, Any]:
    initial = {"customers": CUSTOMERS, "orders": ORDERS}
    golden = golden if golden is not None else _cancelled()
    return {
        "tiny_shop": {
            "initial_db_state": initial,
            "result_db_state": result,
            "result_db_hash": _hash(result),
            "golden_db_state": golden,
            "golden_db_hash": _hash(golden),
            "diff": [],
            "rubrics_yesno": [QUESTION],
        }
    }


def _call(tool: str, args: dict[str, Any], ok: bool = True, output: Any = None) -> Event:
    error = None if ok else ToolFailure(kind="not_found", message="no such order")
    return Event(
        kind="tool_call",
        call=ToolCall(tool=tool, args=args, id=f"call-{tool}"),
        result=ToolResult(tool=tool, call_id=f"call-{tool}", ok=ok, output=output, error=error),
    )


def _transcript(*calls: Event, end: str = "Your order O1 is cancelled.") -> list[Event]:
    return [
        Event(kind="user_message", text="Please cancel O1"),
        *calls,
        Event(kind="end", text=end),
    ]


CANCEL = _call("cancel_order", {"order_id": "O1", "reason": "changed mind"}, output={"id": "O1"})


class KeywordJudge:
    """A real local yes/no answerer: yes when the response holds the keyword."""

    def __init__(self, keyword: str, *, fail: bool = False) -> None:
        self.keyword = keyword
        self.fail = fail
        self.asked: list[tuple[str, str, str]] = []

    async def ask(self, question: str, response: str, conversation: str) -> RubricAnswer:
        self.asked.append((question, response, conversation))
        if self.fail:
            raise JudgeError("rubric answer is not exactly yes or no: 'perhaps'")
        yes = self.keyword in response.lower()
        return RubricAnswer(
            "yes" if yes else "no", f"keyword {self.keyword!r} {'' if yes else 'not '}found"
        )


@pytest.fixture(scope="module")
def suite() -> TbSuite:
    return load_dataset(FIXTURE / "dataset", FIXTURE / "testlist.yaml")


@pytest.fixture
def rubric_case(suite: TbSuite) -> TbCase:
    return suite.by_task_id["tiny_shop.tiny_shop_group1_rubrics_yesno.test_cancel_order"]


def _judge(
    judge: TbJudge,
    case: TbCase,
    effects: dict[str, Any],
    transcript: list[Event],
    termination: TerminationReason = TerminationReason.AGENT_END,
) -> Verdict:
    final = next((e.text or "" for e in reversed(transcript) if e.kind == "end"), "")
    return asyncio.run(judge.judge(case.task, case, effects, transcript, final, termination))


def _by_name(v: Verdict) -> dict[str, tuple[bool, bool, bool]]:
    return {c.name: (c.passed, c.error, c.skipped) for c in v.checks}


def test_pass_with_a_rubric_judge(rubric_case: TbCase) -> None:
    rubric = KeywordJudge("cancelled")
    v = _judge(TbJudge(rubric), rubric_case, _effects(_cancelled()), _transcript(CANCEL))
    assert v.passed and v.signature is None
    assert _by_name(v) == {
        "thinkingbox:test_cancel_order": (True, False, False),
        "termination": (True, False, False),
        "rubric[0]": (True, False, False),
    }
    rubric_check = v.checks[2]
    assert rubric_check.kind == "rubric"
    assert rubric_check.detail == f"{QUESTION} → yes: keyword 'cancelled' found"
    assert rubric.asked[0][:2] == (QUESTION, "Your order O1 is cancelled.")
    assert "user_message: Please cancel O1" in rubric.asked[0][2]
    assert v.comparison.matches
    assert [(e.table, e.key, e.kind, e.after) for e in v.expected_effects] == [
        ("orders", {"id": "O1"}, "update", {"cancel_reason": "changed mind", "status": "cancelled"})
    ]
    assert v.actual_effects == v.expected_effects
    assert v.flags.called_mutating_tool and v.flags.clean_termination and v.flags.last_tool_ok


def test_a_no_from_the_judge_fails_rubric_and_check(rubric_case: TbCase) -> None:
    transcript = _transcript(CANCEL, end="Done, have a nice day.")
    v = _judge(TbJudge(KeywordJudge("cancelled")), rubric_case, _effects(_cancelled()), transcript)
    assert not v.passed
    assert _by_name(v)["rubric[0]"] == (False, False, False)
    check = v.checks[0]
    assert (check.passed, check.error, check.detail) == (False, False, f"rubric failed: {QUESTION}")
    # The server's hash says the state is right: the failure is the reply's.
    assert check.kind == "response"
    assert v.signature == FailureSignature.INCOMPLETE_RESOLUTION


def test_without_a_judge_the_rubric_is_unjudged_and_fails_closed(rubric_case: TbCase) -> None:
    transcript = _transcript(CANCEL, end="Done, have a nice day.")
    v = _judge(TbJudge(None), rubric_case, _effects(_cancelled()), transcript)
    assert not v.passed and v.signature == FailureSignature.UNJUDGED
    assert _by_name(v)["rubric[0]"] == (False, False, True)
    assert "skipped" in v.checks[2].detail


def test_a_judge_error_is_a_system_error(rubric_case: TbCase) -> None:
    rubric = KeywordJudge("cancelled", fail=True)
    v = _judge(TbJudge(rubric), rubric_case, _effects(_cancelled()), _transcript(CANCEL))
    assert _by_name(v)["rubric[0]"] == (False, True, False)
    assert _by_name(v)["thinkingbox:test_cancel_order"] == (False, True, False)
    assert v.signature == FailureSignature.SYSTEM_ERROR


def test_no_change_is_missing_effects(rubric_case: TbCase) -> None:
    initial = {"customers": CUSTOMERS, "orders": ORDERS}
    lookup = _call("get_order", {"order_id": "O1"}, output=ORDERS[0])
    v = _judge(TbJudge(None), rubric_case, _effects(initial), _transcript(lookup))
    assert not v.passed
    check = v.checks[0]
    assert (check.kind, check.passed, check.error) == ("state", False, False)
    assert check.detail.startswith("database differs from the golden state")
    assert [(d.kind, d.op, d.key, d.column) for d in v.comparison.missing] == [
        ("missing", "update", {"id": "O1"}, "cancel_reason"),
        ("missing", "update", {"id": "O1"}, "status"),
    ]
    assert v.comparison.wrong == () and v.comparison.extra == ()
    assert v.actual_effects == ()
    assert not v.flags.called_mutating_tool
    assert v.signature == FailureSignature.NO_STATE_CHANGE


def test_a_wrong_value_is_a_wrong_state_update(rubric_case: TbCase) -> None:
    result = _cancelled(reason="too slow")
    v = _judge(TbJudge(None), rubric_case, _effects(result), _transcript(CANCEL))
    assert [(d.kind, d.column, d.expected, d.actual) for d in v.comparison.wrong] == [
        ("wrong", "cancel_reason", "changed mind", "too slow")
    ]
    assert v.flags.called_mutating_tool
    assert v.signature == FailureSignature.WRONG_STATE_UPDATE
    assert v.tool_grader_fooled


def test_a_failed_call_left_unrecovered_is_tool_usage(rubric_case: TbCase) -> None:
    result = _cancelled(reason="too slow")
    bad = _call("cancel_order", {"order_id": "O9"}, ok=False)
    v = _judge(TbJudge(None), rubric_case, _effects(result), _transcript(CANCEL, bad))
    assert v.signature == FailureSignature.TOOL_USAGE
    # Made good by a later call of the same tool, the wrong state is the agent's update.
    v = _judge(TbJudge(None), rubric_case, _effects(result), _transcript(bad, CANCEL))
    assert v.signature == FailureSignature.WRONG_STATE_UPDATE


def test_an_extra_write_is_extra(rubric_case: TbCase) -> None:
    result = _cancelled()
    result["orders"][1]["note"] = "rush"
    v = _judge(TbJudge(None), rubric_case, _effects(result), _transcript(CANCEL))
    assert [(d.kind, d.key, d.column) for d in v.comparison.extra] == [
        ("extra", {"id": "O2"}, "note")
    ]


def test_equal_hashes_give_an_empty_comparison_despite_unstable_fields(
    rubric_case: TbCase,
) -> None:
    result = _cancelled()
    result["orders"][0]["updated_at"] = "2026-11-30T07:00:00Z"  # a field the hash leaves out
    effects = _effects(result)
    effects["tiny_shop"]["result_db_hash"] = effects["tiny_shop"]["golden_db_hash"]
    v = _judge(TbJudge(None), rubric_case, effects, _transcript(CANCEL))
    assert v.comparison.matches  # only the unjudged rubric keeps it from passing
    assert v.signature == FailureSignature.UNJUDGED
    assert v.actual_effects[0].after == {
        "cancel_reason": "changed mind",
        "status": "cancelled",
        "updated_at": "2026-11-30T07:00:00Z",
    }


def test_a_limit_fails_termination(rubric_case: TbCase) -> None:
    v = _judge(
        TbJudge(None),
        rubric_case,
        _effects(_cancelled()),
        _transcript(CANCEL),
        TerminationReason.MAX_STEPS,
    )
    assert _by_name(v)["termination"] == (False, False, False)
    assert v.checks[1].detail == "episode ended by max_steps"
    assert v.signature == FailureSignature.INCOMPLETE_RESOLUTION


def test_a_broken_check_is_a_system_error(suite: TbSuite) -> None:
    case = suite.by_task_id["tiny_shop.tiny_shop_group1.test_broken_check"]
    v = _judge(TbJudge(None), case, _effects(_cancelled()), _transcript(CANCEL))
    assert _by_name(v)["thinkingbox:test_broken_check"] == (False, True, False)
    assert v.checks[0].detail.startswith("KeyError: 'no_such_key'")
    assert v.signature == FailureSignature.SYSTEM_ERROR


def test_the_check_sees_the_transcript_tool_calls(suite: TbSuite) -> None:
    case = suite.by_task_id["tiny_shop.tiny_shop_group1.test_tool_calls_used"]
    initial = {"customers": CUSTOMERS, "orders": ORDERS}
    effects = _effects(initial, golden=initial)
    lookup = _call("get_order", {"order_id": "O2"}, output=ORDERS[1])
    assert _judge(TbJudge(None), case, effects, _transcript(lookup)).passed
    v = _judge(TbJudge(None), case, effects, _transcript())
    assert v.checks[0].detail == "get_order never called"


def test_verdict_round_trips_through_json(rubric_case: TbCase) -> None:
    v = _judge(TbJudge(None), rubric_case, _effects(_cancelled("x")), _transcript(CANCEL))
    again = Verdict.model_validate_json(v.model_dump_json())
    assert again == v and again.signature == FailureSignature.WRONG_STATE_UPDATE


def test_tool_calls_context_shapes_calls_and_errors() -> None:
    bad = _call("cancel_order", {"order_id": "O9", "reason": None}, ok=False)
    assert tool_calls_context(_transcript(CANCEL, bad)) == [
        {
            "name": "cancel_order",
            "arguments": {"order_id": "O1", "reason": "changed mind"},
            "id": "call-cancel_order",
            "response": {"id": "O1"},
        },
        {
            "name": "cancel_order",
            "arguments": {"order_id": "O9", "reason": None},
            "id": "call-cancel_order",
            "response": {"error": "not_found", "message": "no such order"},
        },
    ]


def test_effects_states_keys_and_canonical_values() -> None:
    fx = {
        "initial_db_state": {
            "orders": [{"id": "O1", "tags": ["b", "a"], "meta": {"z": 1, "a": 2}, "vip": True}],
            "log": [{"msg": "x", "n": 1.0}, {"msg": "y", "n": 2}],
            "dup": [{"id": 1, "v": "a"}, {"id": 1, "v": "b"}],
        },
        "result_db_state": {"orders": [{"id": "O1", "total": 2.5}]},
    }
    initial, golden, result = effects_states(fx, prefix="shop/")
    assert initial.primary_keys == {
        "shop/orders": ("id",),
        "shop/log": ("_row",),
        "shop/dup": ("_row",),
    }
    assert initial.rows["shop/orders"][("O1",)] == {
        "id": "O1",
        "tags": '["b","a"]',
        "meta": '{"a":2,"z":1}',
        "vip": 1,
    }
    assert list(initial.rows["shop/log"].values()) == [{"msg": "x", "n": 1}, {"msg": "y", "n": 2}]
    assert ('{"msg":"x","n":1.0}',) in initial.rows["shop/log"]
    assert len(initial.rows["shop/dup"]) == 2
    assert golden.rows == {}
    assert result.rows["shop/orders"][("O1",)] == {"id": "O1", "total": 2.5}
