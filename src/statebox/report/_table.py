"""Terminal tables of a campaign summary (rich), readable at 80 columns.

The reliability table has one row per scope (overall, then each domain) and one short
column per figure; a legend under it gives each short name its full name (estimator
and source). Each cell holds the figure and, below it, its seeded bootstrap interval
(``.59–.78``), whose resampling unit (tasks, or task branches) is named under the
table. Failure signatures carry a one-line meaning, the field policy is grouped by
reason, and every line wraps within the console's width.
"""

from __future__ import annotations

import textwrap
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from statebox.tools import ERROR_HINTS

_HINTS: dict[str, str] = {str(k): v for k, v in ERROR_HINTS.items()}

__all__ = [
    "METRIC_LABELS",
    "SHORT_LABELS",
    "SIGNATURE_MEANINGS",
    "fmt_usd",
    "fmt_value",
    "metric_label",
    "print_summary",
]

METRIC_LABELS = {
    "pass_at_1": "pass@1",
    "pass_at_k": "pass@{k} (unbiased, Chen et al.)",
    "pass_hat_k_unbiased": "pass^{k} (unbiased, tau-bench)",
    "pass_hat_k_plugin": "pass^{k} (plug-in, ThinkingBox)",
    "observed_k_of_k": "observed {n}/{n} (tasks passed in every trial)",
    "retention": "retention (observed {n}/{n} ÷ pass@1)",
}
"""Figure key → display name; ``{k}`` and ``{n}`` (trials per task) are filled in."""

SHORT_LABELS = {
    "pass_at_1": "pass@1",
    "pass_at_k": "pass@{k}",
    "pass_hat_k_unbiased": "pass^{k} u",
    "pass_hat_k_plugin": "pass^{k} p",
    "observed_k_of_k": "{n}/{n}",
    "retention": "retain",
}
"""Figure key → column name in the terminal table (the legend gives the full name)."""

SIGNATURE_MEANINGS = {
    "system_error": "statebox, an endpoint or a check failed: not the agent's doing "
    "(re-run them with --resume --retry-errors)",
    "agent_error": "the agent answered outside its protocol (malformed or oversized)",
    "no_state_change": "changes were required, but no write succeeded",
    "tool_usage": "a tool call failed and the agent did not recover from it (unknown "
    "tool, bad arguments, refused; no later call of the same tool succeeded); the end "
    "state is wrong",
    "wrong_state_update": "the end state, or an invariant, is wrong",
    "incomplete_resolution": "the state is right, but the reply or the conversation "
    "fell short (reply or rubric checks, turn limits)",
    "unjudged": "every judged check passed, but a rubric question had no judge model "
    "to answer it: not a pass (fail-closed; run with a --judge)",
    "unlabelled": "failed without a signature",
}
"""Failure signature → what it means, one line each."""


def metric_label(key: str, summary: dict[str, Any]) -> str:
    """The display name of a figure of one summary entry, with k and n filled in."""
    return _label(METRIC_LABELS, key, summary)


def _label(labels: dict[str, str], key: str, summary: dict[str, Any]) -> str:
    k = summary["k"]
    # With unequal trial counts each task's own n is the bar; say so instead of a number.
    n = "n" if summary["overall"]["unequal_trials"] else str(k)
    return labels[key].format(k=k, n=n)


def fmt_value(v: Any, ci: list[float] | None = None) -> str:
    """A figure as text, with its interval when given; ``—`` for undefined."""
    if v is None:
        return "— (undefined)"
    text = f"{v:.3f}" if isinstance(v, float) else str(v)
    if ci is not None:
        text += f" [{ci[0]:.3f}, {ci[1]:.3f}]"
    return text


def fmt_usd(v: float | None) -> str:
    """Dollars, or ``undefined`` for None."""
    return "undefined" if v is None else f"${v:.4f}"


def _short(x: float) -> str:
    text = f"{x:.2f}"
    return text[1:] if text.startswith("0.") else ("1" if text == "1.00" else text)


def _cell(v: Any, ci: list[float] | None) -> str:
    if v is None:
        return "—"
    text = f"{v:.3f}" if isinstance(v, float) else str(v)
    return text if ci is None else f"{text}\n{_short(ci[0])}–{_short(ci[1])}"


def _wrapped(console: Console, text: str, indent: str = "", style: str | None = None) -> None:
    width = max(40, min(console.width, 80))
    for line in textwrap.wrap(text, width, initial_indent=indent, subsequent_indent=indent + "  "):
        console.print(line, style=style, highlight=False, soft_wrap=True)


def _agent_tables(console: Console, name: str, s: dict[str, Any]) -> None:
    table = Table(
        title=f"{name}: {s['tasks']} tasks, {s['trials']} trials, k = {s['k']}",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    table.add_column("")
    for key in METRIC_LABELS:
        table.add_column(_label(SHORT_LABELS, key, s), justify="right")
    ci = s.get("ci", {})
    scopes = [("overall", s["overall"], ci.get("overall", {}))] + [
        (d, s["by_domain"][d], ci.get("by_domain", {}).get(d, {})) for d in sorted(s["by_domain"])
    ]
    if len(scopes) == 2:  # one domain: its row would repeat the overall one
        scopes = [(f"overall ({scopes[1][0]})", scopes[0][1], scopes[0][2])]
    for label, figures, intervals in scopes:
        table.add_row(label, *(_cell(figures[k], intervals.get(k)) for k in METRIC_LABELS))
    console.print(table)
    width = max(len(_label(SHORT_LABELS, k, s)) for k in METRIC_LABELS)
    for key in METRIC_LABELS:
        short, full = _label(SHORT_LABELS, key, s), metric_label(key, s)
        if short != full:
            console.print(f"  {short:<{width}}  {full}", highlight=False, soft_wrap=True)
    if "method" in ci:
        _wrapped(console, f"under each figure: its {ci['method']}", indent="  ")
    if s["system_errors"]:
        ex = s["excluding_system_errors"]
        value = "—" if not ex else fmt_value(ex["overall"]["pass_at_1"])
        _wrapped(
            console,
            f"pass@1 excluding system errors: {value} ({s['system_errors']} system-error "
            "trials left out; above they count as failed)",
        )
    if s.get("trials_with_skipped_checks"):
        so = s.get("state_only_tasks")
        value = fmt_value(so["overall"]["pass_at_1"]) if so else "— (none)"
        _wrapped(
            console,
            f"pass@1 over state-only tasks (trials with no unjudged rubric question): {value}",
        )
    cost = s.get("cost")
    if cost:
        _wrapped(
            console,
            f"cost: campaign {fmt_usd(cost['campaign_cost_usd'])}; per success "
            f"{fmt_usd(cost['cost_per_success_usd'])} ({cost['passing_trials']} passing "
            f"trials); per dependable task {fmt_usd(cost['cost_per_dependable_task_usd'])} "
            f"({cost['dependable_tasks']} tasks passed in every trial)",
        )
    f = s["failures"]
    if f["failed_trials"]:
        _wrapped(
            console,
            f"failed trials with missing / wrong / extra effects (a trial can have several): "
            f"{fmt_value(f['with_missing'])} / {fmt_value(f['with_wrong'])} / "
            f"{fmt_value(f['with_extra'])} of {f['judged_failed_trials']} judged failed trials",
        )
    if s.get("trials_with_skipped_checks"):
        _wrapped(
            console,
            f"note: {s['trials_with_skipped_checks']} trials had rubric questions no judge "
            "model answered (unjudged): they count as not passed above (fail-closed); the "
            "state-only line gives the figure over the other trials",
        )
    floors = s.get("floors") or {}
    if floors:
        text = "; ".join(
            f"{name} passed {f['passed']}/{f['tasks']} tasks ({f['passed_test']}/"
            f"{f['test_tasks']} test tasks)"
            for name, f in sorted(floors.items())
        )
        _wrapped(console, f"floors (baseline agents, measured before the first trial): {text}")
    for w in s.get("warnings", []):
        _wrapped(console, f"warning: {w}", style="yellow")


def _signatures(console: Console, summary: dict[str, Any]) -> None:
    agents = summary["agents"]
    pooled = summary.get("signatures_pooled") or {}
    if not pooled:
        return
    table = Table(
        title="failure signatures (failed trials)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    table.add_column("signature", no_wrap=True)
    several = len(agents) > 1
    names = list(agents) if several else ["trials"]
    for name in names:
        table.add_column(name, justify="right")
    if several:
        table.add_column("pooled", justify="right")
    table.add_column("what it means", max_width=56)
    for sig in pooled:
        row = [sig] + [str(a["failures"]["signatures"].get(sig, 0)) for a in agents.values()]
        if several:
            row.append(str(pooled[sig]))
        row.append(SIGNATURE_MEANINGS.get(sig, ""))
        table.add_row(*row)
    console.print(table)


def _error_classes(console: Console, summary: dict[str, Any]) -> None:
    """Tool-usage failures by the class of the error the agent did not recover from."""
    agents = summary["agents"]
    per = {n: a["failures"].get("tool_usage_by_error_class") or {} for n, a in agents.items()}
    classes = sorted({c for counts in per.values() for c in counts})
    gates = {n: a["failures"].get("approvals") for n, a in agents.items()}
    if classes:
        table = Table(
            title="tool_usage failures by the error class the agent did not recover from",
            title_justify="left",
            box=box.SIMPLE_HEAD,
            pad_edge=False,
        )
        table.add_column("error class", no_wrap=True)
        for name in agents:
            table.add_column(name, justify="right")
        table.add_column("what the agent could have done", max_width=56)
        for c in classes:
            table.add_row(c, *[str(per[n].get(c, 0)) for n in agents], _HINTS.get(c, ""))
        console.print(table)
    if any(g is not None for g in gates.values()):
        table = Table(
            title="approval gate: irreversible calls held for an approver",
            title_justify="left",
            box=box.SIMPLE_HEAD,
            pad_edge=False,
        )
        for col in ("entry", "held", "approved", "refused"):
            table.add_column(col, justify="left" if col == "entry" else "right")
        for n, g in gates.items():
            if g is not None:
                table.add_row(n, str(g["held"]), str(g["approved"]), str(g["refused"]))
        console.print(table)


def _weak_evaluator(console: Console, summary: dict[str, Any]) -> None:
    table = Table(
        title="weak evaluator: failed trials a tool-call grader would pass",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    table.add_column("entry")
    table.add_column("judged failed", justify="right")
    table.add_column("clean + wrote", justify="right")
    table.add_column("+ last call ok", justify="right")
    for name, s in summary["agents"].items():
        w = s["failures"]["weak_evaluator"]
        table.add_row(
            name,
            str(w["judged_failed_trials"]),
            fmt_value(w["clean_and_mutating"]),
            fmt_value(w["clean_mutating_last_tool_ok"]),
        )
    console.print(table)
    _wrapped(
        console,
        "clean + wrote: share of judged failed trials that ended cleanly after a successful "
        "mutating call; + last call ok: and whose last tool result had no error (a tool-call "
        "grader would have said done)",
        indent="  ",
    )


def _share_text(count: int, share: float | None) -> str:
    return f"{count} ({fmt_value(share)})" if share is not None else f"{count} (—)"


def _users(console: Console, summary: dict[str, Any]) -> None:
    """The grounding audit per entry and domain, then pass@1 and k/k per user behaviour."""
    entries = {n: s["users"] for n, s in summary["agents"].items() if "users" in s}
    if not entries:
        return
    if not any(u["audited_trials"] for u in entries.values()):
        _wrapped(console, "simulated user: no trial records its user, so no grounding audit")
    else:
        table = Table(
            title="simulated user: grounding audit of follow-up user turns",
            title_justify="left",
            box=box.SIMPLE_HEAD,
            pad_edge=False,
        )
        table.add_column("entry")
        table.add_column("domain")
        for name in ("turns", "ungrounded", "volunteered", "trials ungr."):
            table.add_column(name, justify="right")
        for name, u in entries.items():
            for domain, g in [("all", u), *u["by_domain"].items()]:
                table.add_row(
                    name if domain == "all" else "",
                    domain,
                    str(g["user_turns"]),
                    _share_text(g["ungrounded_turns"], g["ungrounded_turn_share"]),
                    _share_text(g["volunteered_turns"], g["volunteered_turn_share"]),
                    _share_text(g["trials_with_ungrounded"], g["trials_with_ungrounded_share"]),
                )
        console.print(table)
        _wrapped(
            console,
            "ungrounded / volunteered: follow-up user turns (their share) with an id, email, "
            "date, amount or name the user was never given nor told / with a fact stated "
            "before it was asked for; trials ungr.: trials with an ungrounded turn (share of "
            "audited trials)",
            indent="  ",
        )
    rows = summary.get("by_behaviour") or []
    if rows:
        by = Table(
            title="by user behaviour", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False
        )
        for name in ("behaviour", "entry", "tasks", "trials", "pass@1", "observed k/k"):
            by.add_column(name, justify="left" if name in ("behaviour", "entry") else "right")
        for r in rows:
            by.add_row(
                r["behaviour"],
                r["entry"],
                str(r["tasks"]),
                str(r["trials"]),
                fmt_value(r["pass_at_1"]),
                fmt_value(r["observed_k_of_k"]) + f" (k = {r['k']})",
            )
        console.print(by)


def _pareto(console: Console, summary: dict[str, Any]) -> None:
    p = summary["pareto"]
    table = Table(
        title="cost Pareto frontier (cost per success against pass@1)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    table.add_column("entry")
    table.add_column("cost per success", justify="right")
    table.add_column("pass@1", justify="right")
    table.add_column("on frontier")
    for pt in p["points"]:
        table.add_row(
            pt["entry"],
            fmt_usd(pt["cost_per_success_usd"]),
            fmt_value(pt["pass_at_1"]),
            "yes" if pt["on_frontier"] else "",
        )
    for name in p["left_out"]:
        table.add_row(name, "undefined (no success)", "", "")
    console.print(table)


def _field_policy(console: Console, entries: list[dict[str, Any]]) -> None:
    by_reason: dict[str, list[str]] = {}
    for e in entries:
        where = f"{e['table']}.{e['column']}"
        fields = by_reason.setdefault(e["reason"], [])
        if where not in fields:
            fields.append(where)
    total = sum(len(v) for v in by_reason.values())
    console.print(f"fields left out of state comparison ({total}), by reason:", highlight=False)
    for reason, fields in by_reason.items():
        _wrapped(console, f"{reason}:", indent="  ")
        _wrapped(console, ", ".join(sorted(fields)), indent="    ")


def print_summary(summary: dict[str, Any], console: Console | None = None) -> None:
    """Print every entry's reliability table, then the failure analysis and cost tables.

    Args:
        summary: A summary from `summarize` or `summarize_campaigns`.
        console: Where to print (default: a new stdout console).
    """
    console = console or Console(markup=False, emoji=False, highlight=False)
    for name, s in summary["agents"].items():
        _agent_tables(console, name, s)
    _signatures(console, summary)
    _error_classes(console, summary)
    if any(s["failures"]["failed_trials"] for s in summary["agents"].values()):
        _weak_evaluator(console, summary)
    _users(console, summary)
    if "pareto" in summary and len(summary["agents"]) > 1:
        _pareto(console, summary)
    if summary.get("field_policy"):
        _field_policy(console, summary["field_policy"])
