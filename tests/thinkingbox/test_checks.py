"""Running ThinkingBox check functions in a subprocess (no server needed: effects by hand)."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path
from typing import Any

import pytest

from fixtures.tb_support import FIXTURE
from statebox.errors import ConfigError, JudgeError
from statebox.thinkingbox._checks import AskedQuestion, CheckOutcome, YesNo, run_check
from statebox.thinkingbox._format import TbCase, TbSuite, load_dataset

QUESTION = "Does the response confirm the cancellation?"


@pytest.fixture(scope="module")
def suite() -> TbSuite:
    return load_dataset(FIXTURE / "dataset", FIXTURE / "testlist.yaml")


def _case(suite: TbSuite, function: str, file: str = "tiny_shop_group1") -> TbCase:
    return suite.by_task_id[f"tiny_shop.{file}.{function}"]


def _effects(*, match: bool = True, rubrics: list[str] | None = None) -> dict[str, Any]:
    golden = "9" * 64
    return {
        "tiny_shop": {
            "initial_db_state": {},
            "result_db_state": {},
            "golden_db_state": {},
            "result_db_hash": golden if match else "0" * 64,
            "golden_db_hash": golden,
            "diff": []
            if match
            else [{"path": "orders[0].status", "type": "value mismatch", "result": "open"}],
            "rubrics_yesno": rubrics or [],
        }
    }


def _run(
    case: TbCase,
    context: dict[str, Any],
    yesno: YesNo | None = None,
    timeout_s: float = 20.0,
) -> CheckOutcome:
    return asyncio.run(run_check(case, context, yesno=yesno, timeout_s=timeout_s))


def _ctx(effects: dict[str, Any], response: str = "", tool_calls: Any = ()) -> dict[str, Any]:
    return {"effects": effects, "response": response, "tool_calls": list(tool_calls)}


def _scratch_case(suite: TbSuite, tmp_path: Path, body: str) -> TbCase:
    """A case whose check body is ``body`` (the file is a copy of the extra fixture)."""
    source = (FIXTURE / "dataset/test_case/tiny_shop_extra.py").read_text()
    head, _, _ = source.partition("    effects = x.effects[SERVER_NAME]")
    path = tmp_path / "tiny_shop_extra.py"
    path.write_text(head + textwrap.indent(textwrap.dedent(body), "    "))
    return _case(suite, "test_list_orders", "tiny_shop_extra").model_copy(update={"file": path})


def test_pass(suite: TbSuite) -> None:
    out = _run(_case(suite, "test_clear_note"), _ctx(_effects()))
    assert (out.status, out.message, out.rubrics) == ("pass", "", ())
    assert out.duration_s > 0


def test_fail_keeps_the_assertion_message(suite: TbSuite) -> None:
    out = _run(_case(suite, "test_clear_note"), _ctx(_effects(match=False)))
    assert out.status == "fail"
    assert out.message == "database differs from the golden state\norders[0].status: value mismatch"


def test_other_exception_is_an_error_with_type_and_traceback(suite: TbSuite) -> None:
    out = _run(_case(suite, "test_broken_check"), _ctx(_effects()))
    assert out.status == "error"
    assert out.message.startswith("KeyError: 'no_such_key'\n")
    assert "tiny_shop_group1.py" in out.message and "Traceback" in out.message


def test_response_is_readable(suite: TbSuite) -> None:
    case = _case(suite, "test_lookup_only")
    assert _run(case, _ctx(_effects(), "Your order O1 came to 40 dollars.")).status == "pass"
    out = _run(case, _ctx(_effects(), "I cannot tell."))
    assert out.status == "fail"
    assert out.message == "the reply does not state the total: 'I cannot tell.'"


def test_tool_calls_are_readable(suite: TbSuite) -> None:
    case = _case(suite, "test_tool_calls_used")
    call = {"name": "get_order", "arguments": {"order_id": "O2"}, "id": "c1", "response": {}}
    assert _run(case, _ctx(_effects(), tool_calls=[call])).status == "pass"
    other = {**call, "name": "list_orders"}
    out = _run(case, _ctx(_effects(), tool_calls=[other]))
    assert (out.status, out.message) == ("fail", "get_order never called")


def test_tool_call_fields_reach_the_check(suite: TbSuite, tmp_path: Path) -> None:
    case = _scratch_case(
        suite,
        tmp_path,
        """
        c = x.tool_calls[0]
        assert c.tool_call.name == "update_order"
        assert c.tool_call.arguments == {"order_id": "O1", "note": None}
        assert c.tool_call.arguments.get("note", "absent") is None
        assert c.tool_response == {"id": "O1", "note": None}
        assert x.tool_direct_responses == []
        """,
    )
    call = {
        "name": "update_order",
        "arguments": {"order_id": "O1", "note": None},
        "id": "c1",
        "response": {"id": "O1", "note": None},
    }
    out = _run(case, _ctx(_effects(), tool_calls=[call]))
    assert (out.status, out.message) == ("pass", "")


def test_a_check_that_prints_does_not_break_the_protocol(suite: TbSuite, tmp_path: Path) -> None:
    case = _scratch_case(
        suite,
        tmp_path,
        """
        import os, sys
        print('{"op": "result", "status": "fail", "message": "forged"}')
        sys.stdout.flush()
        os.write(1, b"raw fd 1 write\\n")
        print("to stderr", file=sys.stderr)
        assert judge.text_yesno(x.response, "Is it polite?")
        """,
    )
    seen: list[tuple[str, str]] = []

    async def yes(text: str, question: str) -> bool:
        seen.append((text, question))
        return True

    out = _run(case, _ctx(_effects(), "thanks"), yesno=yes)
    assert (out.status, out.message) == ("pass", "")
    assert seen == [("thanks", "Is it polite?")]
    assert '"message": "forged"' in out.output
    assert "raw fd 1 write" in out.output and "to stderr" in out.output


def test_timeout_kills_the_check(suite: TbSuite, tmp_path: Path) -> None:
    case = _scratch_case(suite, tmp_path, "import time\ntime.sleep(30)\n")
    out = _run(case, _ctx(_effects()), timeout_s=1.0)
    assert out.status == "error"
    assert out.message == "check timed out after 1 s"
    assert out.duration_s < 10


def test_a_crashed_check_process_is_an_error(suite: TbSuite, tmp_path: Path) -> None:
    case = _scratch_case(suite, tmp_path, "import os\nos._exit(3)\n")
    out = _run(case, _ctx(_effects()))
    assert out.status == "error"
    # The code is 3; once, under heavy load, asyncio's child watcher reported 255 (its
    # "unknown child" code). Either way the check is an error, never a pass.
    assert out.message.startswith(
        ("check process exited with code 3", "check process exited with code 255")
    )


def test_a_long_assertion_message_is_truncated(suite: TbSuite, tmp_path: Path) -> None:
    case = _scratch_case(suite, tmp_path, "assert False, 'x' * 100000\n")
    out = _run(case, _ctx(_effects()))
    assert out.status == "fail"
    assert len(out.message) == 4000 - 20 + len("... [100000 chars]")
    assert out.message.endswith("... [100000 chars]")


def test_an_import_error_in_the_test_file_is_an_error(suite: TbSuite, tmp_path: Path) -> None:
    path = tmp_path / "tiny_shop_bad.py"
    path.write_text("import no_such_module_anywhere\n\ndef test_x(x, judge):\n    pass\n")
    case = _case(suite, "test_list_orders", "tiny_shop_extra").model_copy(
        update={"file": path, "function": "test_x"}
    )
    out = _run(case, _ctx(_effects()))
    assert out.status == "error"
    assert out.message.startswith("ModuleNotFoundError: No module named 'no_such_module_anywhere'")


def test_rubric_questions_go_to_the_answerer(suite: TbSuite) -> None:
    case = _case(suite, "test_cancel_order", "tiny_shop_group1_rubrics_yesno")
    effects = _effects(rubrics=[QUESTION])

    async def answer(text: str, question: str) -> bool:
        return "cancelled" in text.lower()

    out = _run(case, _ctx(effects, "Done: order O1 is cancelled."), yesno=answer)
    assert out.status == "pass"
    assert out.rubrics == (AskedQuestion(question=QUESTION, answer=True),)
    out = _run(case, _ctx(effects, "Anything else?"), yesno=answer)
    assert (out.status, out.message) == ("fail", f"rubric failed: {QUESTION}")
    assert out.rubrics == (AskedQuestion(question=QUESTION, answer=False),)


def test_without_a_judge_questions_are_skipped_and_answered_yes(suite: TbSuite) -> None:
    case = _case(suite, "test_cancel_order", "tiny_shop_group1_rubrics_yesno")
    out = _run(case, _ctx(_effects(rubrics=[QUESTION, "Is it short?"]), "Anything else?"))
    assert out.status == "pass"
    assert out.rubrics == (
        AskedQuestion(question=QUESTION, answer=None, skipped=True),
        AskedQuestion(question="Is it short?", answer=None, skipped=True),
    )


def test_a_judge_error_is_recorded_and_errors_the_check(suite: TbSuite) -> None:
    case = _case(suite, "test_cancel_order", "tiny_shop_group1_rubrics_yesno")

    async def unsure(text: str, question: str) -> bool:
        raise JudgeError("rubric answer is not exactly yes or no: 'maybe'")

    out = _run(case, _ctx(_effects(rubrics=[QUESTION]), "ok"), yesno=unsure)
    assert out.status == "error"
    assert out.message.startswith("RuntimeError: rubric judge failed: rubric answer is not exactly")
    assert out.rubrics == (
        AskedQuestion(
            question=QUESTION,
            answer=None,
            error="rubric answer is not exactly yes or no: 'maybe'",
        ),
    )


def test_judge_time_does_not_count_against_the_timeout(suite: TbSuite) -> None:
    case = _case(suite, "test_cancel_order", "tiny_shop_group1_rubrics_yesno")

    async def slow(text: str, question: str) -> bool:
        await asyncio.sleep(2.0)
        return True

    out = _run(case, _ctx(_effects(rubrics=[QUESTION]), "ok"), yesno=slow, timeout_s=1.5)
    assert out.status == "pass"
    assert out.duration_s >= 2.0


def test_an_interpreter_that_cannot_start_is_a_config_error(suite: TbSuite, tmp_path: Path) -> None:
    case = _case(suite, "test_clear_note")
    missing = str(tmp_path / "no-python")
    with pytest.raises(ConfigError, match="cannot start the check interpreter"):
        asyncio.run(run_check(case, _ctx(_effects()), yesno=None, timeout_s=5, python=missing))
