"""The judge: strict golden replay, checks, failure signatures, weak-evaluator flags."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from fixtures.support import INVALID_TASKS, ScriptAgent, call, play, task_from
from statebox.agents import OracleFactory, TrialContext
from statebox.domains import Domain
from statebox.episode import Event, TerminationReason
from statebox.errors import GoldenReplayError, JudgeError
from statebox.judge import (
    CheckResult,
    Comparison,
    FailureSignature,
    Judge,
    RubricAnswer,
    Verdict,
    WeakEvaluatorFlags,
    failure_signature,
    parse_yes_no,
    weak_evaluator_flags,
)
from statebox.tasks import Task, load_tasks
from statebox.tools import ToolCall, ToolFailure, ToolResult
from statebox.world import RowEffect

GOOD = [call("get_account", account_id="A1"), call("transfer", src="A1", dst="A2", amount=40)]


class FakeRubric:
    """A judge model with a canned answer (parsed strictly, as a real one must be)."""

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.asked: list[tuple[str, str, str]] = []

    async def ask(self, question: str, response: str, conversation: str) -> RubricAnswer:
        self.asked.append((question, response, conversation))
        return RubricAnswer(parse_yes_no(self.answer), "canned")


def run(
    domain: Domain, task: Task, actions: list, final: str = "Done: moved 40 dollars.", **kw: Any
):  # type: ignore[no-untyped-def]
    return asyncio.run(play(domain, task, ScriptAgent(actions, final), **kw))


def with_response(task: Task, **response: Any) -> Task:
    return task_from(
        task,
        id="toy.transfer.reply.001",
        checks={**task.checks.model_dump(mode="json"), "response": response},
    )


def with_reply(task: Task, **reply: Any) -> Task:
    return task_from(
        task,
        id="toy.transfer.reply.001",
        checks={**task.checks.model_dump(mode="json"), "reply": reply},
    )


# --- golden replay (invariant 6) -------------------------------------------------------


def test_golden_states_are_cached(toy_domain: Domain, task: Task) -> None:
    judge = Judge(toy_domain)
    first = judge.golden_states(task)
    assert judge.golden_states(task) is first
    assert len(first) == 1
    assert first[0].rows["accounts"][("A1",)]["balance"] == 60
    assert first[0].rows["transfers"][("T-0001",)]["amount"] == 40


def test_failing_golden_call_raises_with_step_and_tool(toy_domain: Domain) -> None:
    (bad,) = load_tasks(INVALID_TASKS)
    with pytest.raises(GoldenReplayError) as info:
        Judge(toy_domain).golden_states(bad)
    err = info.value
    assert err.task_id == "toy.transfer.overdraw.001"
    assert err.step == 1
    assert err.tool == "transfer"
    assert err.reason == "invalid_state: insufficient funds"
    assert "golden call 1 (transfer) failed" in str(err)


def test_failing_alternative_is_also_invalid(toy_domain: Domain, task: Task) -> None:
    alt = task_from(
        task,
        checks={
            "alternatives": [
                [{"tool": "transfer", "args": {"src": "A3", "dst": "A1", "amount": 5}}]
            ]
        },
    )
    with pytest.raises(GoldenReplayError) as info:
        Judge(toy_domain).golden_states(alt)
    assert (info.value.step, info.value.tool) == (0, "transfer")


def test_non_strict_replay_skips_failed_calls(toy_domain: Domain, task: Task) -> None:
    (bad,) = load_tasks(INVALID_TASKS)
    world = Judge(toy_domain).replay(bad, bad.golden, strict=False)
    assert world.state().rows["accounts"][("A2",)]["balance"] == 25
    world.close()


# --- signatures ------------------------------------------------------------------------


def test_oracle_passes(toy_domain: Domain, task: Task) -> None:
    agent = OracleFactory()(TrialContext(task, 0, 0))
    played = asyncio.run(play(toy_domain, task, agent))
    v = played.verdict
    assert v.passed and v.signature is None
    assert [c.name for c in v.checks] == ["state", "invariant[0]", "termination"]
    assert v.checks[-1].detail == "episode ended by agent_end"
    assert v.comparison.matches
    assert [(e.table, e.kind) for e in v.expected_effects] == [
        ("accounts", "update"),
        ("accounts", "update"),
        ("transfers", "insert"),
    ]
    assert v.actual_effects == v.expected_effects
    assert not v.tool_grader_fooled


def test_do_nothing_is_no_state_change(toy_domain: Domain, task: Task) -> None:
    v = run(toy_domain, task, [], final="All done!").verdict
    assert not v.passed
    assert v.signature == FailureSignature.NO_STATE_CHANGE
    assert [(m.op, m.table) for m in v.comparison.missing] == [
        ("update", "accounts"),
        ("update", "accounts"),
        ("insert", "transfers"),
    ]
    assert v.actual_effects == ()
    assert v.flags.clean_termination and v.flags.last_tool_ok
    assert not v.flags.called_mutating_tool
    assert not v.tool_grader_fooled
    assert v.checks[1].detail == "Bo got the money: 25 != 65"


def test_only_reads_is_still_no_state_change(toy_domain: Domain, task: Task) -> None:
    v = run(toy_domain, task, GOOD[:1]).verdict
    assert v.signature == FailureSignature.NO_STATE_CHANGE


def test_wrong_write_is_wrong_state_update_and_fools_a_tool_grader(
    toy_domain: Domain, task: Task
) -> None:
    v = run(toy_domain, task, [GOOD[0], call("transfer", src="A1", dst="A2", amount=30)]).verdict
    assert not v.passed
    assert v.signature == FailureSignature.WRONG_STATE_UPDATE
    assert [(w.table, w.column, w.expected, w.actual) for w in v.comparison.wrong] == [
        ("accounts", "balance", 60, 70),
        ("accounts", "balance", 65, 55),
        ("transfers", "amount", 40, 30),
    ]
    assert v.comparison.missing == () and v.comparison.extra == ()
    assert v.flags.clean_termination and v.flags.called_mutating_tool and v.flags.last_tool_ok
    assert v.tool_grader_fooled


def test_a_refusal_made_good_then_wrong_state_is_wrong_state_update(
    toy_domain: Domain, task: Task
) -> None:
    # The refused transfer is made good by a later transfer; the state is wrong for
    # another reason (the amount), so the tool error is not what failed the trial.
    actions = [
        call("transfer", src="A1", dst="A2", amount=-40),  # refused: not_permitted
        call("transfer", src="A1", dst="A2", amount=30),
    ]
    v = run(toy_domain, task, actions).verdict
    assert v.signature == FailureSignature.WRONG_STATE_UPDATE
    assert v.unrecovered_error is None
    assert [(w.table, w.column) for w in v.comparison.wrong][:1] == [("accounts", "balance")]


def test_a_refusal_never_made_good_then_wrong_state_is_tool_usage(
    toy_domain: Domain, task: Task
) -> None:
    # The refused transfer is never retried; another tool's success does not make it good.
    actions = [
        call("transfer", src="A1", dst="A2", amount=-40),  # refused: not_permitted
        call("set_status", account_id="A1", status="closed"),
    ]
    v = run(toy_domain, task, actions).verdict
    assert v.signature == FailureSignature.TOOL_USAGE
    assert v.unrecovered_error is not None
    v = run(
        toy_domain,
        task,
        [call("wire", to="A2"), call("set_status", account_id="A1", status="closed")],
    ).verdict
    assert v.signature == FailureSignature.TOOL_USAGE
    assert [e.kind for e in v.comparison.missing] == ["missing"] * 3
    assert [(x.table, x.column) for x in v.comparison.extra] == [("accounts", "status")]


def test_failed_call_then_right_state_passes(toy_domain: Domain, task: Task) -> None:
    actions = [call("transfer", src="A1", dst="A2", amount="forty"), *GOOD]
    v = run(toy_domain, task, actions).verdict
    assert v.passed and v.signature is None


def test_right_state_failed_response_is_incomplete_resolution(
    toy_domain: Domain, task: Task
) -> None:
    t = with_reply(task, must_contain=["40 dollars"], must_not_contain=["sorry"])
    v = run(toy_domain, t, GOOD, final="All done.").verdict
    assert [(c.name, c.passed) for c in v.checks] == [
        ("state", True),
        ("invariant[0]", True),
        ("termination", True),
        ("reply.must_contain[0]", False),
        ("reply.must_not_contain[0]", True),
    ]
    assert v.signature == FailureSignature.INCOMPLETE_RESOLUTION
    assert run(toy_domain, t, GOOD, final="Moved 40 DOLLARS.").verdict.passed
    v = run(toy_domain, t, GOOD, final="Sorry, moved 40 dollars.").verdict
    assert v.signature == FailureSignature.INCOMPLETE_RESOLUTION


def test_rubric_without_a_judge_is_a_system_error_never_a_pass(
    toy_domain: Domain, task: Task
) -> None:
    t = with_response(task, rubric=["Does the reply confirm the amount? (yes/no)"])
    v = run(toy_domain, t, GOOD).verdict
    rubric = v.checks[-1]
    assert rubric.name == "rubric[0]" and rubric.kind == "rubric"
    assert rubric.error and not rubric.passed
    assert "no rubric judge configured" in rubric.detail
    assert not v.passed
    assert v.signature == FailureSignature.SYSTEM_ERROR


@pytest.mark.parametrize(
    ("answer", "passed", "signature"),
    [
        ("Yes.", True, None),
        ("no", False, FailureSignature.INCOMPLETE_RESOLUTION),
        ("No ... yes", False, FailureSignature.SYSTEM_ERROR),
        ("yes, but", False, FailureSignature.SYSTEM_ERROR),
    ],
)
def test_rubric_with_a_judge(
    toy_domain: Domain, task: Task, answer: str, passed: bool, signature: FailureSignature | None
) -> None:
    t = with_response(task, rubric=["Does the reply confirm the amount? (yes/no)"])
    rubric = FakeRubric(answer)
    v = run(toy_domain, t, GOOD, judge=Judge(toy_domain, rubric=rubric)).verdict
    assert v.passed is passed
    assert v.signature == signature
    assert v.checks[-1].error is (signature == FailureSignature.SYSTEM_ERROR)
    question, response, conversation = rubric.asked[0]
    assert question == "Does the reply confirm the amount? (yes/no)"
    assert response == "Done: moved 40 dollars."
    assert "user_message: Please move 40 dollars" in conversation


def test_every_declared_check_gates_the_verdict(toy_domain: Domain, task: Task) -> None:
    t = with_response(task, rubric=["Polite? (yes/no)"])
    t = task_from(
        t,
        checks={
            **t.checks.model_dump(mode="json"),
            "reply": {"must_contain": ["40"], "must_not_contain": ["sorry"]},
            "invariants": [
                {"sql": "select balance from accounts where id = 'A2'", "equals": 65.0},
                {"sql": "select count(*) from transfers", "equals": 1},
            ],
        },
    )
    judge = Judge(toy_domain, rubric=FakeRubric("yes"))
    v = run(toy_domain, t, GOOD, judge=judge).verdict
    assert [c.name for c in v.checks] == [
        "state",
        "invariant[0]",
        "invariant[1]",
        "termination",
        "reply.must_contain[0]",
        "reply.must_not_contain[0]",
        "rubric[0]",
    ]
    assert v.passed  # 65.0 equals 65 under the canonical form
    # Each check alone can fail the trial.
    judge_no = Judge(toy_domain, rubric=FakeRubric("no"))
    assert not run(toy_domain, t, GOOD, judge=judge_no).verdict.passed
    assert not run(toy_domain, t, GOOD, final="sorry, 40", judge=judge).verdict.passed
    assert not run(toy_domain, t, GOOD, final="done", judge=judge).verdict.passed


def test_invariant_that_cannot_run_is_a_system_error(toy_domain: Domain, task: Task) -> None:
    t = task_from(task, checks={"invariants": [{"sql": "select nope from nowhere", "equals": 1}]})
    v = run(toy_domain, t, GOOD).verdict
    inv = v.checks[1]
    assert inv.error and not inv.passed and "query failed" in inv.detail
    assert v.signature == FailureSignature.SYSTEM_ERROR


def test_invariant_must_return_one_value(toy_domain: Domain, task: Task) -> None:
    t = task_from(
        task, checks={"invariants": [{"sql": "select id, balance from accounts", "equals": 1}]}
    )
    v = run(toy_domain, t, GOOD).verdict
    inv = v.checks[1]
    assert not inv.passed and not inv.error
    assert "expected one row of one column" in inv.detail
    assert v.signature == FailureSignature.WRONG_STATE_UPDATE


def test_invariant_cannot_write(toy_domain: Domain, task: Task) -> None:
    t = task_from(task, checks={"invariants": [{"sql": "delete from transfers", "equals": 0}]})
    played = run(toy_domain, t, GOOD)
    assert played.verdict.checks[1].error
    assert ("T-0001",) in played.final.rows["transfers"]


def test_state_none_drops_the_state_check(toy_domain: Domain, task: Task) -> None:
    t = task_from(
        task,
        checks={
            "state": "none",
            "invariants": [{"sql": "select balance from accounts where id = 'A2'", "equals": 65}],
        },
    )
    v = run(
        toy_domain,
        t,
        [
            call("transfer", src="A1", dst="A2", amount=40),
            call("set_status", account_id="A3", status="closed"),
        ],
    ).verdict
    assert [c.name for c in v.checks] == ["invariant[0]", "termination"]
    assert v.passed
    assert not v.comparison.matches  # still computed and recorded, just not a check


def test_accepted_alternative_passes(toy_domain: Domain, task: Task) -> None:
    alt_calls = [
        {"tool": "transfer", "args": {"src": "A1", "dst": "A2", "amount": 40}},
        {"tool": "add_note", "args": {"account_id": "A1", "body": "sent 40 to Bo"}},
    ]
    t = task_from(task, checks={**task.checks.model_dump(mode="json"), "alternatives": [alt_calls]})
    judge = Judge(toy_domain)
    assert len(judge.golden_states(t)) == 2
    alt = [
        call("transfer", src="A1", dst="A2", amount=40),
        call("add_note", account_id="A1", body="hi"),
    ]
    v = run(toy_domain, t, alt, judge=judge).verdict
    assert v.passed and v.comparison.matches
    assert run(toy_domain, t, GOOD, judge=judge).verdict.passed
    # The expected effects stay those of the main golden trajectory.
    assert len(v.expected_effects) == 3 and len(v.actual_effects) == 4


def test_read_only_task(toy_domain: Domain, toy_tasks: list[Task]) -> None:
    refuse = toy_tasks[2]
    assert run(toy_domain, refuse, [], final="Sorry, Cy's account is frozen.").verdict.passed
    v = run(toy_domain, refuse, [call("set_status", account_id="A3", status="active")]).verdict
    assert v.signature == FailureSignature.WRONG_STATE_UPDATE
    assert v.expected_effects == ()
    assert [(x.kind, x.column, x.expected, x.actual) for x in v.comparison.extra] == [
        ("extra", "status", "frozen", "active")
    ]


def test_excluded_field_differences_pass(toy_domain: Domain, toy_tasks: list[Task]) -> None:
    freeze = toy_tasks[1]
    actions = [
        call("set_status", account_id="A2", status="frozen"),
        call("add_note", account_id="A2", body="Customer says the card was LOST yesterday."),
        call("delete_note", note_id="N-001"),
    ]
    v = run(toy_domain, freeze, actions).verdict
    assert v.passed  # other wording, same fact: the text check reads facts, not words
    assert all("body" not in (e.after or {}) for e in v.actual_effects)
    actions[1] = call("add_note", account_id="A2", body="customer says the card is gone")
    v = run(toy_domain, freeze, actions).verdict
    assert [c.name for c in v.checks if not c.passed] == ["text[0]"]
    assert v.signature == FailureSignature.WRONG_STATE_UPDATE


def test_running_out_of_turns_is_incomplete_resolution(toy_domain: Domain, task: Task) -> None:
    from statebox.episode import Episode, Limits, MessageUser
    from statebox.users import RuleUser

    async def go() -> Verdict:
        judge = Judge(toy_domain)
        ep = Episode(
            toy_domain, task, RuleUser(task), worlds=judge.worlds, limits=Limits(max_turns=1)
        )
        await ep.reset()
        for action in GOOD:
            await ep.step(action)
        obs = await ep.step(MessageUser(text="Anything else I can do?"))
        assert obs.termination == TerminationReason.MAX_TURNS
        try:
            return await judge.judge(task, ep.outcome())
        finally:
            ep.close()

    v = asyncio.run(go())
    assert not v.passed
    assert v.signature == FailureSignature.INCOMPLETE_RESOLUTION


# --- unit: signatures and flags --------------------------------------------------------

FX = [RowEffect(table="t", key={"id": 1}, kind="update", before={"a": 1}, after={"a": 2})]


def res(ok: bool = True, mutating: bool = True) -> ToolResult:
    err = None if ok else ToolFailure(kind="not_found", message="x")
    return ToolResult(tool="t", ok=ok, error=err, mutating=mutating, wrote=ok and mutating)


def chk(kind: str, passed: bool, error: bool = False) -> CheckResult:
    return CheckResult(name=kind, kind=kind, passed=passed, error=error)  # type: ignore[arg-type]


def test_failure_signature_precedence() -> None:
    end = TerminationReason.AGENT_END
    state_fail = [chk("state", False)]
    assert failure_signature([chk("state", True)], FX, [], end) is None
    assert (
        failure_signature(state_fail, FX, [res()], TerminationReason.SYSTEM_ERROR) == "system_error"
    )
    assert (
        failure_signature([*state_fail, chk("rubric", False, error=True)], FX, [res()], end)
        == "system_error"
    )
    assert failure_signature(state_fail, FX, [res(ok=False)], end) == "no_state_change"
    assert failure_signature(state_fail, FX, [res(mutating=False)], end) == "no_state_change"
    # A refusal made good by a later call of the same tool is no tool_usage.
    assert failure_signature(state_fail, FX, [res(ok=False), res()], end) == ("wrong_state_update")
    assert failure_signature(state_fail, FX, [res(), res(ok=False)], end) == "tool_usage"
    other = ToolResult(tool="u", ok=True, mutating=True, wrote=True)
    assert failure_signature(state_fail, FX, [res(ok=False), other], end) == "tool_usage"
    assert failure_signature(state_fail, FX, [res()], end) == "wrong_state_update"
    # No effects required (read-only task): doing nothing wrong is not no_state_change.
    assert failure_signature(state_fail, [], [], end) == "wrong_state_update"
    assert failure_signature([chk("invariant", False)], FX, [res()], end) == "wrong_state_update"
    assert failure_signature(
        [chk("state", True), chk("response", False)], FX, [res(ok=False)], end
    ) == ("incomplete_resolution")


def test_an_unjudged_rubric_fails_closed_and_signs_unjudged() -> None:
    # A trial whose rubric no judge model answered is not a pass (fail-closed); when
    # everything judged passed, its signature says why: unjudged.
    end = TerminationReason.AGENT_END
    skipped = CheckResult(name="rubric[0]", kind="rubric", passed=False, skipped=True)
    assert failure_signature([chk("state", True), skipped], FX, [res()], end) == "unjudged"
    assert failure_signature([chk("state", False), skipped], FX, [res()], end) == (
        "wrong_state_update"
    )
    v = Verdict(
        checks=(chk("state", True), skipped),
        comparison=Comparison(),
        expected_effects=(),
        actual_effects=(),
        signature=FailureSignature.UNJUDGED,
        flags=WeakEvaluatorFlags(
            clean_termination=True, called_mutating_tool=True, last_tool_ok=True
        ),
    )
    assert not v.passed


def ev(result: ToolResult) -> Event:
    return Event(kind="tool_call", call=ToolCall(tool=result.tool), result=result)


@pytest.mark.parametrize(
    ("events", "final", "termination", "expected"),
    [
        ([ev(res())], "Done.", TerminationReason.AGENT_END, (True, True, True)),
        ([ev(res())], "Shall I go ahead?", TerminationReason.AGENT_END, (False, True, True)),
        ([ev(res())], "   ", TerminationReason.AGENT_END, (False, True, True)),
        ([ev(res())], "Done.", TerminationReason.MAX_TURNS, (False, True, True)),
        # The paper's definition reads the agent's last message, however the episode
        # ended: a customer's "Thanks, that's all" closing it does not undo it (finding 7).
        ([ev(res())], "Done.", TerminationReason.USER_END, (True, True, True)),
        ([ev(res()), ev(res(ok=False))], "Done.", TerminationReason.AGENT_END, (True, True, False)),
        ([ev(res(ok=False))], "Done.", TerminationReason.AGENT_END, (True, False, False)),
        ([ev(res(mutating=False))], "Done.", TerminationReason.AGENT_END, (True, False, True)),
        ([], "Done.", TerminationReason.AGENT_END, (True, False, True)),
    ],
)
def test_weak_evaluator_flags(
    events: list[Event], final: str, termination: TerminationReason, expected: tuple
) -> None:
    f = weak_evaluator_flags(events, final, termination)
    assert (f.clean_termination, f.called_mutating_tool, f.last_tool_ok) == expected


def test_tool_grader_fooled_needs_all_three_flags_and_a_failure(
    toy_domain: Domain, task: Task
) -> None:
    wrong = [GOOD[0], call("transfer", src="A1", dst="A2", amount=30)]
    assert run(toy_domain, task, wrong).verdict.tool_grader_fooled
    assert not run(toy_domain, task, wrong, final="Is that right?").verdict.tool_grader_fooled
    failing_last = [*wrong, call("get_account", account_id="ZZ")]
    assert not run(toy_domain, task, failing_last).verdict.tool_grader_fooled
    assert not run(toy_domain, task, GOOD).verdict.tool_grader_fooled  # passed


# --- the verdict as data ---------------------------------------------------------------


def test_verdict_round_trips_through_json(toy_domain: Domain, task: Task) -> None:
    for actions in ([], GOOD, [call("transfer", src="A1", dst="A2", amount=12.5)]):
        v = run(toy_domain, task, actions).verdict
        text = v.model_dump_json()
        data = json.loads(text)
        assert data["passed"] is v.passed
        assert data["tool_grader_fooled"] is v.tool_grader_fooled
        again = Verdict.model_validate_json(text)
        assert again == v
        assert again.passed is v.passed
        assert again.signature == v.signature


def test_a_stored_passed_flag_cannot_override_the_checks(toy_domain: Domain, task: Task) -> None:
    v = run(toy_domain, task, []).verdict
    data = json.loads(v.model_dump_json())
    data["passed"] = True
    assert Verdict.model_validate(data).passed is False


def test_parse_yes_no_is_exported_strict() -> None:
    with pytest.raises(JudgeError):
        parse_yes_no("maybe")


@pytest.mark.parametrize(
    ("reason", "signature"),
    [
        (TerminationReason.USER_END, None),
        (TerminationReason.MAX_STEPS, FailureSignature.INCOMPLETE_RESOLUTION),
        (TerminationReason.MAX_TURNS, FailureSignature.INCOMPLETE_RESOLUTION),
        (TerminationReason.TIMEOUT, FailureSignature.INCOMPLETE_RESOLUTION),
        (TerminationReason.SYSTEM_ERROR, FailureSignature.SYSTEM_ERROR),
    ],
)
def test_termination_reason_gates_a_right_state(
    toy_domain: Domain, task: Task, reason: TerminationReason, signature: FailureSignature | None
) -> None:
    from statebox.episode import Episode
    from statebox.users import RuleUser

    async def go() -> Verdict:
        judge = Judge(toy_domain)
        ep = Episode(toy_domain, task, RuleUser(task), worlds=judge.worlds)
        await ep.reset()
        for action in GOOD:
            await ep.step(action)
        ep.stop(reason)
        try:
            return await judge.judge(task, ep.outcome())
        finally:
            ep.close()

    v = asyncio.run(go())
    assert v.comparison.matches
    assert v.signature == signature
    assert v.passed is (signature is None)
    check = next(c for c in v.checks if c.name == "termination")
    assert check.passed is (reason == TerminationReason.USER_END)
    assert check.detail == f"episode ended by {reason.value}"


def test_a_trial_the_customer_closes_counts_as_ended_cleanly(
    toy_domain: Domain, task: Task
) -> None:
    # Finding 7: clean termination needed the agent to end the episode, so a trial the
    # customer closed ("Thanks.") never counted as what a tool-call grader calls done.
    from statebox.episode import MessageUser

    def closed_by_user(last: str) -> Verdict:
        actions = [
            call("transfer", src="A1", dst="A2", amount=30),  # wrong amount: a failed trial
            MessageUser(text=last),  # the rule user thanks a report of work done, and ends
        ]
        verdict = run(toy_domain, task, actions).verdict
        (term,) = [c for c in verdict.checks if c.name == "termination"]
        assert term.detail == "episode ended by user_end"
        return verdict  # type: ignore[no-any-return]

    v = closed_by_user("Done: I've moved the money to Bo.")
    assert not v.passed
    assert v.flags.clean_termination and v.tool_grader_fooled
    asked = closed_by_user("I've moved the money to Bo. Is there anything else?")
    assert not asked.flags.clean_termination
    silent = run(toy_domain, task, [call("transfer", src="A1", dst="A2", amount=30)], final="")
    assert not silent.verdict.flags.clean_termination


# --- expected refusals in a golden trajectory ------------------------------------------


def _recovering(bad: Task, fails: str | None) -> Task:
    """The overdraw task, its refused transfer declared (or not), then a smaller one."""
    golden = [
        {"tool": "get_account", "args": {"account_id": "A2"}},
        {"tool": "transfer", "args": {"src": "A2", "dst": "A1", "amount": 500}, "fails": fails},
        {"tool": "transfer", "args": {"src": "A2", "dst": "A1", "amount": 20}},
    ]
    return task_from(bad, golden=golden)


def test_a_golden_call_declared_refused_replays_and_writes_nothing(toy_domain: Domain) -> None:
    (bad,) = load_tasks(INVALID_TASKS)
    state = Judge(toy_domain).golden_states(_recovering(bad, "invalid_state"))[0]
    assert state.rows["accounts"][("A2",)]["balance"] == 5


@pytest.mark.parametrize(
    ("fails", "reason"),
    [
        ("not_found", "expected to be refused with not_found; refused with invalid_state"),
        (None, "invalid_state: insufficient funds"),
    ],
)
def test_a_refusal_must_match_its_declaration(
    toy_domain: Domain, fails: str | None, reason: str
) -> None:
    (bad,) = load_tasks(INVALID_TASKS)
    with pytest.raises(GoldenReplayError) as info:
        Judge(toy_domain).golden_states(_recovering(bad, fails))
    assert (info.value.step, info.value.reason) == (1, reason)


def test_a_call_declared_refused_that_succeeds_is_invalid(toy_domain: Domain, task: Task) -> None:
    golden = [{**c.model_dump(), "fails": "invalid_state"} for c in task.golden]
    with pytest.raises(GoldenReplayError) as info:
        Judge(toy_domain).golden_states(task_from(task, golden=golden))
    assert info.value.reason == "expected to be refused with invalid_state; succeeded"
