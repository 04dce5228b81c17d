"""The campaign card: a short Markdown summary a paper or leaderboard can cite.

It pins what a reader needs to check a figure: statebox version and git revision, the
task source with its bundle hash and the environment hash (and each part's), the agents
and their settings, the simulated user and judge models, trials and seed, the named
figures with their bootstrap intervals, the floors, the system-error count, and the
``statebox verify`` command that replays the campaign.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from statebox.errors import DomainError
from statebox.records import Manifest, TrialStatus
from statebox.report._summary import CampaignRows
from statebox.runner import external_source
from statebox.tasks import BENCH_NAME, parse_suite, pin_legacy

__all__ = ["CARD_METRICS", "render_campaign_card"]

CARD_METRICS = (
    ("pass_at_1", "pass@1"),
    ("pass_at_k", "pass@k"),
    ("pass_hat_k_unbiased", "pass^k (unbiased estimator, tau-bench)"),
    ("pass_hat_k_plugin", "pass^k (plug-in estimator, ThinkingBox)"),
    ("observed_k_of_k", "observed k/k"),
)
"""Figure key and its full name, in card order."""


def _fmt(x: object) -> str:
    return "n/a" if not isinstance(x, int | float) else f"{x:.3f}"


def _interval(ci: Mapping[str, Any], key: str) -> str:
    pair = (ci.get("overall") or {}).get(key)
    if not isinstance(pair, list | tuple) or len(pair) != 2:
        return "n/a"
    return f"[{_fmt(pair[0])}, {_fmt(pair[1])}]"


def _bench(source: str, own: Collection[str] = ()) -> str:
    """`` (statebox-bench 2.0)`` for a built-in suite (an old unversioned name: 1.0).

    A suite of a domain the campaign named with ``--domain`` (``own``, from its manifest)
    is that domain's own tasks, never labelled as the benchmark.
    """
    if not source.startswith("suite:"):
        return ""
    try:
        refs = [
            parse_suite(pin_legacy(n.strip())) for n in source.removeprefix("suite:").split(",")
        ]
    except DomainError:
        return ""
    if any(r.scope in own for r in refs):
        return f" ({', '.join(sorted({r.scope for r in refs}))}: own tasks, not {BENCH_NAME})"
    return f" ({refs[0].label})"


def _own_domains(m: Manifest) -> set[str]:
    """The domains the campaign named with ``--domain``, less statebox's own.

    From its recorded provenance; ``--domain retail`` names the built-in domain.
    """
    rows = m.settings.get("domain_provenance") or []
    return {
        str(r["domain"])
        for r in rows
        if isinstance(r, dict) and "domain" in r and r.get("distribution") != "statebox"
    }


def _manifest_lines(m: Manifest | None) -> list[str]:
    if m is None:
        return ["- No manifest.json: the environment is unknown; this card pins nothing."]
    v = m.verdict_settings
    bench = _bench(m.task_source, _own_domains(m))
    lines = [
        f"- Campaign id: `{m.campaign_id}`, created {m.created_at.isoformat()}",
        f"- statebox {m.statebox_version}, git revision `{m.git_revision or 'unknown'}`",
        f"- Tasks: {len(m.task_ids)} from `{m.task_source}`{bench}; task "
        f"bundle hash `{m.task_bundle_hash}`",
        f"- Environment hash: `{m.environment_hash or 'not recorded'}`",
    ]
    if m.environment:
        parts = ", ".join(f"{k} `{val[:12]}`" for k, val in sorted(m.environment.items()))
        lines.append(f"- Environment parts: {parts}")
    lines += [
        f"- Trials per task and agent: {m.trials}; seed {m.seed}; policy mode "
        f"{m.settings.get('policy_mode', 'task')}",
        f"- Simulated user: {v.get('user_model') or 'rule'}, behaviour "
        f"{v.get('user_behaviour') or m.settings.get('user_behaviour', 'cooperative')}; "
        "rubric judge: "
        f"{v.get('judge_model') or 'none (rubric questions unjudged, fail-closed)'}",
        f"- Limits: {v.get('max_steps', m.settings.get('max_steps'))} steps, "
        f"{v.get('max_turns', m.settings.get('max_turns'))} turns, "
        f"{v.get('trial_timeout_s', m.settings.get('trial_timeout_s'))} s per trial",
    ]
    lines.append("- Agents:")
    ablation = m.settings.get("ablation")
    named = (
        {str(c.get("agent_id")): str(c.get("name")) for c in ablation if isinstance(c, dict)}
        if isinstance(ablation, list)
        else {}
    )
    for a in m.agents:
        config = json.dumps(a.config, sort_keys=True, default=str)
        as_named = f", ablation configuration `{named[a.agent_id]}`" if a.agent_id in named else ""
        lines.append(f"  - `{a.agent_id}` ({a.name}{as_named}): `{config}`")
    rejudged = m.settings.get("rejudged_from")
    if isinstance(rejudged, dict):
        lines.append(f"- Re-judged from campaign `{rejudged.get('campaign_id')}` (no model calls)")
    return lines


def _figures(summary: Mapping[str, Any], entries: Sequence[str]) -> list[str]:
    agents = summary.get("agents", {})
    lines = []
    for entry in entries:
        a = agents.get(entry)
        if a is None:
            continue
        overall, ci = a.get("overall", {}), a.get("ci", {})
        lines += [
            "",
            f"### {a.get('agent_id', entry)}",
            "",
            f"{a.get('tasks')} tasks, {a.get('trials')} trials, k = {a.get('k')}; "
            f"intervals: {ci.get('method', 'none')}.",
            "",
            "| Figure | Value | 95% interval |",
            "|---|---|---|",
        ]
        lines += [
            f"| {name} | {_fmt(overall.get(key))} | {_interval(ci, key)} |"
            for key, name in CARD_METRICS
        ]
        lines.append(f"\nSystem errors: {a.get('system_errors', 0)} (counted as failed trials).")
        floors = a.get("floors") or {}
        if floors:
            shown = ", ".join(
                f"{name} passes {f.get('passed')} of {f.get('tasks')} tasks"
                for name, f in sorted(floors.items())
            )
            lines.append(f"Floors: {shown}.")
    return lines


def render_campaign_card(summary: Mapping[str, Any], campaigns: Sequence[CampaignRows]) -> str:
    """The Markdown card of each campaign in ``summary`` (one section each).

    Args:
        summary: `summarize_campaigns` output over ``campaigns``.
        campaigns: The campaigns, with their rows and manifests.
    """
    by_label = {c["label"]: c.get("entries", []) for c in summary.get("campaigns", [])}
    out: list[str] = []
    for c in campaigns:
        counts = {s: sum(1 for r in c.rows if r.status == s) for s in TrialStatus}
        m = c.manifest
        planned = len(m.task_ids) * len(m.agents) * m.trials if m is not None else None
        out += [
            f"## Campaign card: {c.label}",
            "",
            *_manifest_lines(m),
            f"- Trials: {len(c.rows)} recorded"
            + (f" of {planned} planned" if planned is not None else "")
            + f"; {counts[TrialStatus.PASSED]} passed, {counts[TrialStatus.FAILED]} failed, "
            f"{counts[TrialStatus.SYSTEM_ERROR]} system errors",
            *_figures(summary, by_label.get(c.label, [])),
            "",
            *_check_it(c, m),
        ]
    return "\n".join(out)


def _check_it(c: CampaignRows, m: Manifest | None) -> list[str]:
    """How to check the campaign: its verify command, or why it cannot be replayed."""
    held = external_source(m) if m is not None else ""
    if held:
        return [
            f"Its trials cannot be replayed offline: it ran on {held}, whose servers held "
            "the state (`statebox verify` and `rejudge` refuse such a campaign).",
            "",
        ]
    return [
        "Check it: replay every trial against the installed statebox and suite with",
        "",
        "```text",
        f"statebox verify {shlex.quote(str(c.directory))}",
        "```",
        "",
    ]
