"""Terminal tables of a campaign summary (rich). Every metric carries its full name."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

__all__ = ["METRIC_LABELS", "print_summary"]

METRIC_LABELS = {
    "pass_at_1": "pass@1",
    "pass_at_k": "pass@{k} (unbiased, Chen et al.)",
    "pass_hat_k_unbiased": "pass^{k} (unbiased, tau-bench)",
    "pass_hat_k_plugin": "pass^{k} (plug-in, ThinkingBox)",
    "observed_k_of_k": "observed {n}/{n} (tasks passed in every trial)",
}
"""Figure key → display name; ``{k}`` and ``{n}`` (trials per task) are filled in."""


def _fmt(v: Any) -> str:
    return "—" if v is None else f"{v:.3f}" if isinstance(v, float) else str(v)


def _agent_tables(console: Console, agent_id: str, s: dict[str, Any]) -> None:
    k = s["k"]
    table = Table(title=f"{agent_id}: {s['tasks']} tasks, {s['trials']} trials, k = {k}")
    table.add_column("metric")
    table.add_column("overall", justify="right")
    domains = sorted(s["by_domain"])
    for d in domains:
        table.add_column(d, justify="right")
    # With unequal trial counts each task's own n is the bar; say so instead of a number.
    n = "n" if s["overall"]["unequal_trials"] else str(k)
    for key, label in METRIC_LABELS.items():
        row = [label.format(k=k, n=n), _fmt(s["overall"][key])]
        row += [_fmt(s["by_domain"][d][key]) for d in domains]
        table.add_row(*row)
    if s["system_errors"]:
        ex = s["excluding_system_errors"]
        table.add_row(
            "pass@1 excluding system errors",
            _fmt(ex["overall"]["pass_at_1"]) if ex else "—",
            *(_fmt(ex["by_domain"].get(d, {}).get("pass_at_1")) if ex else "—" for d in domains),
        )
    console.print(table)
    f = s["failures"]
    if f["failed_trials"]:
        sig = Table(title=f"{agent_id}: failure signatures ({f['failed_trials']} failed trials)")
        sig.add_column("signature")
        sig.add_column("trials", justify="right")
        for name, count in f["signatures"].items():
            sig.add_row(name, str(count))
        console.print(sig)
        console.print(
            f"failed trials with missing / wrong / extra effects (overlapping): "
            f"{_fmt(f['with_missing'])} / {_fmt(f['with_wrong'])} / {_fmt(f['with_extra'])}; "
            f"a tool-call grader would have called {_fmt(f['tool_grader_fooled'])} of them done"
        )
    if s.get("trials_with_skipped_checks"):
        console.print(
            f"[yellow]note:[/yellow] {s['trials_with_skipped_checks']} trials had rubric checks "
            "that were not evaluated (no judge model configured); they did not gate the verdict"
        )
    for w in s.get("warnings", []):
        console.print(f"[yellow]warning:[/yellow] {w}")


def print_summary(summary: dict[str, Any], console: Console | None = None) -> None:
    """Print the reliability table and failure analysis of each agent."""
    console = console or Console()
    for agent_id, s in summary["agents"].items():
        _agent_tables(console, agent_id, s)
    if summary.get("field_policy"):
        excluded = ", ".join(
            f"{e['table']}.{e['column']} ({e['reason']})" for e in summary["field_policy"]
        )
        console.print(f"fields left out of state comparison: {excluded}")
