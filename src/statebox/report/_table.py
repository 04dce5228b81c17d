"""Terminal tables of a campaign summary (rich). Every metric carries its full name.

Each figure is printed as ``value [low, high]``: the seeded bootstrap interval over
tasks named under the table.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

__all__ = ["METRIC_LABELS", "fmt_usd", "fmt_value", "metric_label", "print_summary"]

METRIC_LABELS = {
    "pass_at_1": "pass@1",
    "pass_at_k": "pass@{k} (unbiased, Chen et al.)",
    "pass_hat_k_unbiased": "pass^{k} (unbiased, tau-bench)",
    "pass_hat_k_plugin": "pass^{k} (plug-in, ThinkingBox)",
    "observed_k_of_k": "observed {n}/{n} (tasks passed in every trial)",
    "retention": "retention (observed {n}/{n} ÷ pass@1)",
}
"""Figure key → display name; ``{k}`` and ``{n}`` (trials per task) are filled in."""


def metric_label(key: str, summary: dict[str, Any]) -> str:
    """The display name of a figure of one summary entry, with k and n filled in."""
    k = summary["k"]
    # With unequal trial counts each task's own n is the bar; say so instead of a number.
    n = "n" if summary["overall"]["unequal_trials"] else str(k)
    return METRIC_LABELS[key].format(k=k, n=n)


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


def _agent_tables(console: Console, name: str, s: dict[str, Any]) -> None:
    table = Table(title=f"{name}: {s['tasks']} tasks, {s['trials']} trials, k = {s['k']}")
    table.add_column("metric")
    table.add_column("overall", justify="right")
    domains = sorted(s["by_domain"])
    for d in domains:
        table.add_column(d, justify="right")
    ci = s.get("ci", {})
    for key in METRIC_LABELS:
        row = [metric_label(key, s), fmt_value(s["overall"][key], ci.get("overall", {}).get(key))]
        row += [
            fmt_value(s["by_domain"][d][key], ci.get("by_domain", {}).get(d, {}).get(key))
            for d in domains
        ]
        table.add_row(*row)
    if s["system_errors"]:
        ex = s["excluding_system_errors"]
        ex_ci = ex.get("ci", {}) if ex else {}
        table.add_row(
            "pass@1 excluding system errors",
            fmt_value(ex["overall"]["pass_at_1"], ex_ci.get("overall", {}).get("pass_at_1"))
            if ex
            else "—",
            *(
                fmt_value(
                    ex["by_domain"].get(d, {}).get("pass_at_1"),
                    ex_ci.get("by_domain", {}).get(d, {}).get("pass_at_1"),
                )
                if ex
                else "—"
                for d in domains
            ),
        )
    if "method" in ci:
        table.caption = f"in brackets: {ci['method']}"
    console.print(table)
    cost = s.get("cost")
    if cost:
        console.print(
            f"cost: campaign {fmt_usd(cost['campaign_cost_usd'])}; per success "
            f"{fmt_usd(cost['cost_per_success_usd'])} ({cost['passing_trials']} passing trials); "
            f"per dependable task {fmt_usd(cost['cost_per_dependable_task_usd'])} "
            f"({cost['dependable_tasks']} tasks passed in every trial)",
            highlight=False,
        )
    f = s["failures"]
    if f["failed_trials"]:
        console.print(
            f"failed trials with missing / wrong / extra effects (overlapping: a trial can "
            f"have several): {fmt_value(f['with_missing'])} / {fmt_value(f['with_wrong'])} / "
            f"{fmt_value(f['with_extra'])} of {f['judged_failed_trials']} judged failed trials",
            highlight=False,
        )
    if s.get("trials_with_skipped_checks"):
        console.print(
            f"note: {s['trials_with_skipped_checks']} trials had rubric checks "
            "that were not evaluated (no judge model configured); they did not gate the verdict"
        )
    for w in s.get("warnings", []):
        console.print(f"warning: {w}", style="yellow")


def _signatures(console: Console, summary: dict[str, Any]) -> None:
    agents = summary["agents"]
    pooled = summary.get("signatures_pooled") or {}
    if not pooled:
        return
    table = Table(title="failure signatures (failed trials)")
    table.add_column("signature")
    for name in agents:
        table.add_column(name, justify="right")
    if len(agents) > 1:
        table.add_column("pooled", justify="right")
    for sig in pooled:
        row = [sig] + [str(a["failures"]["signatures"].get(sig, 0)) for a in agents.values()]
        if len(agents) > 1:
            row.append(str(pooled[sig]))
        table.add_row(*row)
    console.print(table)


def _weak_evaluator(console: Console, summary: dict[str, Any]) -> None:
    table = Table(title="weak-evaluator table: would a tool-call grader have said done?")
    table.add_column("entry")
    table.add_column("judged failed trials", justify="right")
    table.add_column("ended cleanly + called a mutating tool", justify="right")
    table.add_column("… and last tool result without error", justify="right")
    for name, s in summary["agents"].items():
        w = s["failures"]["weak_evaluator"]
        table.add_row(
            name,
            str(w["judged_failed_trials"]),
            fmt_value(w["clean_and_mutating"]),
            fmt_value(w["clean_mutating_last_tool_ok"]),
        )
    console.print(table)


def _share_text(count: int, share: float | None) -> str:
    return f"{count} ({fmt_value(share)})" if share is not None else f"{count} (—)"


def _users(console: Console, summary: dict[str, Any]) -> None:
    """The grounding audit per entry and domain, then pass@1 and k/k per user behaviour."""
    entries = {n: s["users"] for n, s in summary["agents"].items() if "users" in s}
    if not entries:
        return
    table = Table(title="simulated user: grounding audit of follow-up user turns")
    for name in (
        "entry",
        "domain",
        "behaviour",
        "user turns",
        "ungrounded turns (share)",
        "volunteered turns (share)",
        "trials with an ungrounded turn (share)",
    ):
        table.add_column(
            name, justify="left" if name in ("entry", "domain", "behaviour") else "right"
        )
    for name, u in entries.items():
        groups = [("all", u), *u["by_domain"].items()]
        for domain, g in groups:
            table.add_row(
                name if domain == "all" else "",
                domain,
                ", ".join(u["behaviours"]) if domain == "all" else "",
                str(g["user_turns"]),
                _share_text(g["ungrounded_turns"], g["ungrounded_turn_share"]),
                _share_text(g["volunteered_turns"], g["volunteered_turn_share"]),
                _share_text(g["trials_with_ungrounded"], g["trials_with_ungrounded_share"]),
            )
    table.caption = next(iter(entries.values()))["note"]
    console.print(table)
    rows = summary.get("by_behaviour") or []
    if rows:
        by = Table(title="by user behaviour")
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
    table = Table(title="cost Pareto frontier (cost per success against pass@1)")
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
    if any(s["failures"]["failed_trials"] for s in summary["agents"].values()):
        _weak_evaluator(console, summary)
    _users(console, summary)
    if "pareto" in summary and len(summary["agents"]) > 1:
        _pareto(console, summary)
    if summary.get("field_policy"):
        excluded = ", ".join(
            f"{e['table']}.{e['column']} ({e['reason']})" for e in summary["field_policy"]
        )
        console.print(f"fields left out of state comparison: {excluded}")
