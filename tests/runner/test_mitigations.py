"""The mitigations (docs/mitigations.md): error classes, tool surfaces, approval gates, ablate."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fixtures.protocol_server import Script, config_for, hub, serve
from fixtures.support import ScriptAgent, call, task_from
from statebox.agents import TrialContext
from statebox.cli import app
from statebox.domains import Domain
from statebox.episode import (
    ApprovalDecision,
    Episode,
    HumanApprover,
    LLMApprover,
    SimulatedApprover,
    surface_tools,
)
from statebox.judge import unrecovered_error
from statebox.llm import Reply
from statebox.records import ApprovalCounts, read_results, read_trial_rows
from statebox.registry import default_registry
from statebox.report import print_ablation, summarize
from statebox.runner import Campaign, MitigatedFactory, Mitigations, run_campaign
from statebox.tasks import Task, WorldCache
from statebox.tools import ToolFailure, ToolResult
from statebox.users import RuleUser
from statebox.world import World, effects


@pytest.fixture(scope="module")
def retail() -> Domain:
    return default_registry().domain("retail")


@pytest.fixture(scope="module")
def refund_task(retail: Domain) -> Task:
    """A retail task whose golden trajectory issues a refund (an irreversible tool)."""
    suite = default_registry().suite("retail@1.0")
    return next(t for t in suite if any(c.tool == "issue_refund" for c in t.golden))


def _wrong_refund(task: Task) -> dict[str, Any]:
    golden = next(c for c in task.golden if c.tool == "issue_refund")
    # Half the golden amount: a call the tool accepts, but not the one the policy allows.
    return {**golden.args, "amount": round(float(golden.args["amount"]) / 2, 2)}


# ---- error classes -----------------------------------------------------------------


def test_tool_errors_carry_a_class_and_hint_and_old_records_derive_one(
    toy_domain: Domain, world: World
) -> None:
    from statebox.tools import Dispatcher, ToolCall

    d = Dispatcher(world, toy_domain.tools)
    missing = d.call(ToolCall(tool="get_account", args={"account_id": "ZZ"}))
    bad = d.call(ToolCall(tool="get_account", args={"account_id": 5}))
    unknown = d.call(ToolCall(tool="drop_tables"))
    assert missing.error is not None and missing.error.error_class == "not_found"
    assert bad.error is not None and bad.error.error_class == "invalid_arguments"
    assert unknown.error is not None and unknown.error.classified() == "not_found"
    view = missing.error.agent_view()
    assert view["class"] == "not_found" and "look it up" in view["hint"]
    # A record written before classes: the kind alone, the class derived on read.
    old = ToolFailure.model_validate({"kind": "invalid_state", "message": "closed"})
    assert old.error_class is None and old.classified() == "precondition_failed"
    assert old.agent_view()["class"] == "precondition_failed"


def test_kit_marks_a_repeated_hold_as_a_conflict(retail: Domain, refund_task: Task) -> None:
    from statebox.tools import Dispatcher, ToolCall

    world = WorldCache().clone(retail, refund_task)
    try:
        d = Dispatcher(world, retail.tools)
        ticket = world.conn.execute("SELECT id FROM tickets WHERE status = 'open'").fetchone()[0]
        first = d.call(
            ToolCall(tool="hold_ticket", args={"ticket_id": ticket, "reason": "customer"})
        )
        again = d.call(
            ToolCall(tool="hold_ticket", args={"ticket_id": ticket, "reason": "customer"})
        )
    finally:
        world.close()
    if not first.ok:  # the hold reasons are the domain's: take the one it names
        pytest.skip(f"hold refused: {first.error}")
    assert again.error is not None and again.error.error_class == "conflict"
    assert again.error.kind == "invalid_state"  # the kind stays what it always was


def test_a_busy_database_is_transient_and_rolled_back(toy_domain: Domain, world: World) -> None:
    import sqlite3

    from statebox.tools import Dispatcher, ToolCall, make_tool

    def locked(tx: Any) -> None:
        tx.execute("UPDATE accounts SET balance = 0")
        raise sqlite3.OperationalError("database is locked")

    busy = make_tool(
        "busy", "Always finds the database locked.", mutates=True, params=(), fn=locked
    )
    before = world.conn.execute("SELECT sum(balance) FROM accounts").fetchone()[0]
    out = Dispatcher(world, {**toy_domain.tools, "busy": busy}).call(ToolCall(tool="busy"))
    assert out.error is not None and out.error.error_class == "transient"
    assert world.conn.execute("SELECT sum(balance) FROM accounts").fetchone()[0] == before


def test_thinkingbox_errors_get_a_class_from_their_words_and_keep_their_kind() -> None:
    from statebox.thinkingbox._session import _message_class

    assert _message_class("invalid_state", "Order 7 not found") == "not_found"
    assert _message_class("invalid_state", "ticket already closed") == "conflict"
    assert _message_class("invalid_state", "Operation not allowed for this user") == "forbidden"
    assert _message_class("invalid_state", "upstream timed out") == "transient"
    assert _message_class("invalid_state", "balance too low") is None  # the kind's default
    assert _message_class("invalid_arguments", "x not found") is None


def _result(tool: str, ok: bool, kind: str = "not_found") -> ToolResult:
    error = None if ok else ToolFailure.of(kind, "x")  # type: ignore[arg-type]
    return ToolResult(tool=tool, ok=ok, error=error)


def test_unrecovered_error_is_the_last_error_not_made_good() -> None:
    recovered = [_result("a", False, "invalid_arguments"), _result("a", True)]
    assert unrecovered_error(recovered) is None
    mixed = [_result("a", False, "invalid_state"), _result("b", False), _result("b", True)]
    assert unrecovered_error(mixed) == "precondition_failed"
    assert unrecovered_error([_result("a", False, "approval_refused")]) == "forbidden"


# ---- tool surfaces -----------------------------------------------------------------


def test_minimal_surface_is_golden_plus_distractors_fixed_per_task(
    retail: Domain, refund_task: Task
) -> None:
    task_tools = set(surface_tools(retail, refund_task, "task"))
    minimal = set(surface_tools(retail, refund_task, "minimal", distractors=3))
    golden = {c.tool for c in refund_task.golden}
    assert golden <= minimal <= task_tools
    assert len(minimal - golden) == 3
    assert minimal == set(surface_tools(retail, refund_task, "minimal", distractors=3))
    other = task_from(refund_task, id=refund_task.id + ".other")
    assert len(set(surface_tools(retail, other, "minimal")) - golden) == 3
    assert set(surface_tools(retail, refund_task, "minimal", distractors=0)) == golden


def test_full_widens_an_allowlist_only_off_served_surfaces(
    retail: Domain, refund_task: Task
) -> None:
    narrow = task_from(refund_task, tools=sorted({c.tool for c in refund_task.golden}))
    assert set(surface_tools(retail, narrow, "task")) == set(narrow.tools or ())
    assert set(surface_tools(retail, narrow, "full", served=True)) == set(narrow.tools or ())
    assert set(surface_tools(retail, narrow, "full")) == set(retail.offered())


# ---- approval gates ----------------------------------------------------------------


async def _play(
    domain: Domain, task: Task, agent: ScriptAgent, approver: Any
) -> tuple[list[Any], Any, Any]:
    episode = Episode(domain, task, RuleUser(task), approver=approver)
    try:
        obs = await episode.reset()
        while not obs.done:
            obs = await episode.step(await agent.act(obs))
        out = episode.outcome()
        assert out.world is not None and out.initial is not None
        changes = effects(out.initial, out.world.state(out.initial), domain.field_policy)
        return list(changes), out.transcript, episode
    finally:
        episode.close()


def test_a_refused_irreversible_call_leaves_no_effect_and_is_counted(
    retail: Domain, refund_task: Task
) -> None:
    wrong = _wrong_refund(refund_task)
    ungated, _, _ = asyncio.run(
        _play(retail, refund_task, ScriptAgent([call("issue_refund", **wrong)]), None)
    )
    assert any(e.table == "refunds" for e in ungated)  # without a gate the refund happens
    approver = SimulatedApprover(refund_task, retail.tools)
    gated, transcript, _ = asyncio.run(
        _play(retail, refund_task, ScriptAgent([call("issue_refund", **wrong)]), approver)
    )
    assert gated == []
    event = next(e for e in transcript if e.kind == "tool_call")
    assert event.approval is not None and not event.approval.approved
    assert event.result is not None and event.result.error is not None
    assert event.result.error.kind == "approval_refused"
    assert event.result.error.error_class == "forbidden"
    assert ApprovalCounts.of(transcript) == ApprovalCounts(held=1, approved=0, refused=1)


def test_the_simulated_approver_cannot_be_probed_amount_after_amount(
    retail: Domain, refund_task: Task
) -> None:
    """A refused refund is not a free probe: the right amount after a wrong one is refused too."""
    wrong = _wrong_refund(refund_task)
    right = next(c for c in refund_task.golden if c.tool == "issue_refund").args
    approver = SimulatedApprover(refund_task, retail.tools)
    agent = ScriptAgent([call("issue_refund", **wrong), call("issue_refund", **right)])
    changes, transcript, _ = asyncio.run(_play(retail, refund_task, agent, approver))
    assert not any(e.table == "refunds" for e in changes)
    held = [e for e in transcript if e.kind == "tool_call" and e.approval is not None]
    assert [e.approval.approved for e in held if e.approval] == [False, False]
    assert held[1].approval is not None and "no re-tries" in held[1].approval.reason
    assert ApprovalCounts.of(transcript) == ApprovalCounts(held=2, approved=0, refused=2)


def test_the_simulated_approver_approves_each_golden_call_once(
    retail: Domain, refund_task: Task
) -> None:
    golden = next(c for c in refund_task.golden if c.tool == "issue_refund")
    approver = SimulatedApprover(refund_task, retail.tools)
    from statebox.tools import ToolCall

    # The same call with its number written as an integer or a float is one call.
    args = {**golden.args, "amount": float(golden.args["amount"])}
    first = asyncio.run(approver.decide(ToolCall(tool="issue_refund", args=args)))
    second = asyncio.run(approver.decide(ToolCall(tool="issue_refund", args=args)))
    assert first.approved and not second.approved


def test_human_approver_reads_piped_answers(refund_task: Task) -> None:
    from statebox.tools import ToolCall

    prompts = io.StringIO()
    human = HumanApprover(refund_task, read=io.StringIO("y\nno\n"), write=prompts)
    c = ToolCall(tool="issue_refund", args={"order_id": "ORD-1"})
    decisions = [asyncio.run(human.decide(c)) for _ in range(4)]
    assert [d.approved for d in decisions] == [True, False, False, False]
    assert "end of input" in decisions[2].reason and "end of input" in decisions[3].reason
    # The end of the answers is said once on the prompt stream, not once per call.
    assert prompts.getvalue().count("end of input: every remaining held call is refused") == 1
    assert "issue_refund" in prompts.getvalue() and refund_task.id in prompts.getvalue()


def test_llm_approver_asks_the_model_and_fails_closed(refund_task: Task) -> None:
    from statebox.tools import ToolCall

    script = Script(
        [Reply(text="APPROVE: the policy allows it"), Reply(text="REFUSE. not asked for"),
         Reply(text="maybe")]
    )  # fmt: skip
    with serve(script) as server:
        h = hub()
        client = h.client(config_for(server), "judge")
        approver = LLMApprover(client, refund_task, "Refund only late orders.")
        c = ToolCall(tool="issue_refund", args={"order_id": "ORD-1", "amount": 5.0})

        async def go() -> list[ApprovalDecision]:
            try:
                return [await approver.decide(c) for _ in range(3)]
            finally:
                await h.aclose()

        decisions = asyncio.run(go())
    assert [d.approved for d in decisions] == [True, False, False]
    assert decisions[1].reason == "not asked for"
    assert "Refund only late orders." in script.seen[0].system
    assert "issue_refund" in script.seen[0].messages[-1]["text"]


class _WrongRefund:
    """An agent that makes the task's refund with the wrong amount, then ends."""

    name = "wrong-refund"
    agent_id = "wrong-refund"
    config: dict[str, Any] = {}

    def __call__(self, ctx: TrialContext) -> ScriptAgent:
        return ScriptAgent([call("issue_refund", **_wrong_refund(ctx.task))])


def test_gated_campaign_counts_refusals_and_verify_reproduces_them(
    tmp_path: Path, refund_task: Task
) -> None:
    gated = MitigatedFactory(_WrongRefund(), Mitigations(approval_gate="simulated"), "gate")
    out = tmp_path / "c"
    registry = default_registry()
    campaign = Campaign(
        tasks=[refund_task],
        agents=[_WrongRefund(), gated],
        trials=1,
        out=out,
        task_source="suite:retail@1.0",
    )
    asyncio.run(run_campaign(campaign, registry))
    records = {r.agent_id: r for r in read_results(out)}
    assert records["wrong-refund"].approvals is None
    assert records["wrong-refund+simulated-gate"].approvals == ApprovalCounts(
        held=1, approved=0, refused=1
    )
    rows = read_trial_rows(out)
    summary = summarize(rows)
    gate = summary["agents"]["wrong-refund+simulated-gate"]["failures"]["approvals"]
    assert gate == {"held": 1, "approved": 0, "refused": 1}
    assert summary["agents"]["wrong-refund"]["failures"]["approvals"] is None
    result = CliRunner().invoke(app, ["verify", str(out)])
    assert result.exit_code == 0, result.output
    assert "2 of 2 judged trials reproduced exactly" in " ".join(result.output.split())
    report = CliRunner().invoke(app, ["report", str(out)])
    assert "approval gate" in report.output
    shown = CliRunner().invoke(
        app, ["show", str(out), records["wrong-refund+simulated-gate"].trial_id]
    )
    assert "[REFUSED by simulated] ERROR approval_refused [forbidden]" in shown.output
    html = out / "page.html"
    result = CliRunner().invoke(app, ["report", str(out), "--format", "html", "--out", str(html)])
    assert result.exit_code == 0, result.output
    page = html.read_text(encoding="utf-8")
    assert '"approvals":{"held":1,"approved":0,"refused":1}' in page
    assert "tool_usage_by_error_class" in page and "Approval gate: irreversible" in page
    # The same records as a statebox before error classes wrote them still verify.
    results = out / "results.jsonl"
    legacy = []
    for line in results.read_text(encoding="utf-8").splitlines():
        data = json.loads(line)
        data["verdict"].pop("unrecovered_error", None)
        for e in data["transcript"]:
            error = (e.get("result") or {}).get("error")
            if error:
                error.pop("error_class", None)
                error.pop("hint", None)
        legacy.append(json.dumps(data))
    results.write_text("\n".join(legacy) + "\n", encoding="utf-8")
    again = CliRunner().invoke(app, ["verify", str(out)])
    assert again.exit_code == 0, again.output
    text = results.read_text(encoding="utf-8")
    assert '"approval_refused"' in text and '"error_class"' not in text


# ---- ablate ------------------------------------------------------------------------


def test_offline_ablate_prints_the_mitigation_table(tmp_path: Path) -> None:
    """The fault agent on a small slice: the gate refuses its wrong irreversible writes."""
    # The smallest built-in task file with a refund: its tasks (not hand-copied ones).
    tasks_dir = default_registry().domain("retail").tasks_dir
    assert tasks_dir is not None
    files = [f for f in tasks_dir.glob("*.yaml") if "issue_refund" in f.read_text(encoding="utf-8")]
    folder = min(files, key=lambda f: f.stat().st_size)
    out = tmp_path / "abl"
    agent = "fault:wrong_value=1.0,skip_write=0.0,extra_write=0.0,stop_early=0.0"
    args = ["ablate", "--agent", agent, "--config", "mitigations"]
    args += ["--config", "minimal-surface+approval-gate", "--tasks", str(folder)]
    args += ["--trials", "2", "--out", str(out), "--resamples", "100"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "Failure signatures" in text and "observed k/k lift" in text
    assert "changes only the agent's instructions" in text
    figures = json.loads((out / "ablation.json").read_text(encoding="utf-8"))
    names = [c["name"] for c in figures["configurations"]]
    assert names == [
        "baseline",
        "retry-classified",
        "minimal-surface",
        "approval-gate",
        "minimal-surface+approval-gate",
    ]
    assert figures["same_outcomes_as_reference"]["retry-classified"] is True
    # The column names what it compares: pass/fail per trial, not the whole outcome.
    from rich.console import Console

    wide = io.StringIO()
    print_ablation(figures, Console(file=wide, width=400))
    table = wide.getvalue()
    assert "identical to the reference" not in table
    assert "same pass/fail per trial as the reference" in table
    assert figures["trials_differing_from_reference"]["retry-classified"] == 0
    if not figures["same_outcomes_as_reference"]["approval-gate"]:
        n = figures["trials_differing_from_reference"]["approval-gate"]
        assert n > 0 and f"pass/fail differs on {n} trial" in table
    gate = figures["approvals"]["approval-gate"]
    assert gate["refused"] > 0 and gate["held"] == gate["approved"] + gate["refused"]
    assert figures["approvals"]["baseline"] is None
    assert figures["signature_change"]["approval-gate"]  # the refusals changed signatures
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    configs = {a["agent_id"]: a["config"] for a in manifest["agents"]}
    surfaces = {c.get("mitigations", {}).get("tool_surface") for c in configs.values()}
    assert "minimal" in surfaces


def test_ablate_refuses_prompt_configurations_of_an_offline_agent(tmp_path: Path) -> None:
    args = ["ablate", "--agent", "fault", "--config", "baseline", "--config", "think"]
    result = CliRunner().invoke(app, [*args, "--suite", "retail@1.0", "--out", str(tmp_path / "x")])
    assert result.exit_code != 0
    assert "offline agent" in " ".join(result.output.split())


def test_run_with_a_human_gate_reads_piped_answers(tmp_path: Path, refund_task: Task) -> None:
    """``statebox run --approval-gate human``: the first held call refused, the rest approved."""
    tasks_dir = default_registry().domain("retail").tasks_dir
    assert tasks_dir is not None
    folder = next(f for f in tasks_dir.glob("*.yaml") if refund_task.id in f.read_text("utf-8"))
    out = tmp_path / "h"
    args = ["run", "--tasks", str(folder), "--agent", "oracle", "--trials", "1", "--out", str(out)]
    args += ["--tool-surface", "minimal", "--approval-gate", "human", "--concurrency", "1"]
    result = CliRunner().invoke(app, args, input="n\n" + "y\n" * 200)
    assert result.exit_code == 0, result.output
    records = read_results(out)
    counts = [r.approvals for r in records if r.approvals is not None and r.approvals.held]
    assert counts, "no call was held"
    assert sum(c.refused for c in counts) == 1
    refused = next(r for r in records if r.approvals is not None and r.approvals.refused)
    assert refused.status.value == "failed"  # the oracle's refused write left the state short
    assert "[approval] task" in result.output  # the prompt went to the terminal
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["settings"]["tool_surface"] == "minimal"
    assert manifest["settings"]["approval_gate"] == "human"


def test_run_refuses_an_unknown_approver(tmp_path: Path) -> None:
    args = ["run", "--suite", "retail@1.0", "--agent", "oracle", "--approval-gate", "boss"]
    result = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "x")])
    assert result.exit_code != 0 and "simulated, llm, human" in result.output


def test_a_human_gate_refuses_parallel_trials(tmp_path: Path) -> None:
    """One terminal answers the prompts: run and ablate refuse --concurrency above 1."""
    args = ["run", "--suite", "retail@1.0", "--agent", "oracle", "--approval-gate", "human"]
    result = CliRunner().invoke(app, [*args, "--concurrency", "2", "--out", str(tmp_path / "r")])
    assert result.exit_code != 0
    assert "--approval-gate human asks one call at a time; add --concurrency 1" in result.output
    args = ["ablate", "--agent", "fault", "--config", "baseline", "--config", "approval-gate"]
    args += ["--suite", "retail@1.0"]
    result = CliRunner().invoke(app, [*args, "--approver", "human", "--out", str(tmp_path / "a")])
    assert result.exit_code != 0
    assert "--approver human asks one call at a time; add --concurrency 1" in result.output
    assert not (tmp_path / "r").exists() and not (tmp_path / "a").exists()


def test_ablate_names_its_own_approver_flag(tmp_path: Path) -> None:
    args = ["ablate", "--agent", "fault", "--config", "baseline", "--config", "approval-gate"]
    args += ["--suite", "retail@1.0"]
    result = CliRunner().invoke(app, [*args, "--approver", "bogus", "--out", str(tmp_path / "a")])
    assert result.exit_code != 0
    assert "--approver 'bogus': choose simulated, llm, human" in result.output
    assert "--approval-gate" not in result.output
