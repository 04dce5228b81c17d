"""The HTML report: one self-contained, offline file (no server, no CDN).

The page holds the summary (the same data as ``--format json``), a selection of trial
records for the trial browser, plotly.js (inlined from the ``plotly`` package), and a
small script (``_assets/report.js``) that draws the charts and the browser from that
data. Nothing is fetched when the page opens.

Trade-offs:

* plotly.js is about 4.8 MB; inlining it once keeps the report one file that opens
  anywhere without a network, at the price of its size.
* A campaign of 200,000 trials cannot carry every transcript in one page. The trial
  browser embeds at most ``max_trials`` records — failed trials first, then passing
  ones whose user turns the grounding audit flagged, then one passing trial per task
  and entry, then the rest — and the page says how many it holds. Every figure is
  computed from all trials regardless; the browser's user filter counts all trials too.
* Text from records (transcripts, tool output) is inserted with ``textContent`` only,
  so a record cannot inject markup; the JSON blob escapes ``</`` for the same reason.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

from statebox.records import TrialRow, TrialStatus, read_result_dicts
from statebox.report._summary import CampaignRows
from statebox.report._table import METRIC_LABELS

__all__ = ["DEFAULT_MAX_TRIALS", "render_html_report", "write_html_report"]

DEFAULT_MAX_TRIALS = 2000
"""Trial records embedded in the trial browser at most."""

_DETAIL_KEYS = (
    "trial_id",
    "task_id",
    "domain",
    "agent_id",
    "trial",
    "status",
    "termination",
    "verdict",
    "transcript",
    "timings",
    "error",
    "cost_usd",
    "thoughts",
    "thought_steps",
    "user",
)


def _entry_names(summary: dict[str, Any]) -> dict[tuple[str, str], str]:
    """(campaign label, agent id) → entry name."""
    names: dict[tuple[str, str], str] = {}
    for c in summary["campaigns"]:
        for entry in c["entries"]:
            names[(c["label"], summary["agents"][entry]["agent_id"])] = entry
    return names


def _flagged(r: TrialRow) -> bool:
    return bool(r.ungrounded_turns or r.volunteered_turns)


def _select(rows: Sequence[TrialRow], limit: int) -> list[TrialRow]:
    """Failed trials, then flagged passing ones, then one passing per task and entry.

    Flagged: the grounding audit found an ungrounded value or a volunteered fact. The
    rest follow.
    """
    failed = [r for r in rows if r.status != TrialStatus.PASSED]
    flagged = [r for r in rows if r.status == TrialStatus.PASSED and _flagged(r)]
    seen: set[tuple[str, str]] = set()
    first_pass: list[TrialRow] = []
    rest: list[TrialRow] = []
    for r in rows:
        if r.status != TrialStatus.PASSED or _flagged(r):
            continue
        key = (r.task_id, r.agent_id)
        (rest if key in seen else first_pass).append(r)
        seen.add(key)
    return (failed + flagged + first_pass + rest)[:limit]


def _trial_data(
    summary: dict[str, Any], campaigns: Sequence[CampaignRows], max_trials: int
) -> dict[str, Any]:
    names = _entry_names(summary)
    total = sum(len(c.rows) for c in campaigns)
    per_campaign = max(1, max_trials // max(1, len(campaigns)))
    tasks: dict[str, dict[str, Any]] = {}
    details: dict[str, Any] = {}
    for c in campaigns:
        for r in c.rows:
            task = tasks.setdefault(r.task_id, {"task_id": r.task_id, "domain": r.domain})
            counts = task.setdefault("counts", {}).setdefault(names[(c.label, r.agent_id)], [0, 0])
            counts[0] += r.status == TrialStatus.PASSED
            counts[1] += 1
            flags = task.setdefault("user_flags", {"ungrounded": 0, "volunteered": 0})
            flags["ungrounded"] += r.ungrounded_turns > 0
            flags["volunteered"] += r.volunteered_turns > 0
        chosen = _select(c.rows, per_campaign)
        records = read_result_dicts(c.directory, [r.trial_id for r in chosen])
        for r in chosen:
            data = records.get(r.trial_id)
            if data is None:
                continue
            key = f"{c.label}|{r.trial_id}"
            details[key] = {k: data.get(k) for k in _DETAIL_KEYS}
            details[key]["entry"] = names[(c.label, r.agent_id)]
            tasks[r.task_id].setdefault("trials", []).append(key)
    for task in tasks.values():
        task.setdefault("trials", []).sort(key=lambda k: (details[k]["entry"], details[k]["trial"]))
    return {
        "tasks": [tasks[t] for t in sorted(tasks)],
        "details": details,
        "embedded": len(details),
        "total": total,
    }


def _asset(name: str) -> str:
    return resources.files("statebox.report").joinpath("_assets", name).read_text("utf-8")


def render_html_report(
    summary: dict[str, Any],
    campaigns: Sequence[CampaignRows],
    *,
    max_trials: int = DEFAULT_MAX_TRIALS,
    title: str = "statebox report",
    ablation: dict[str, Any] | None = None,
) -> str:
    """Build the report page.

    Args:
        summary: From `summarize_campaigns` over ``campaigns``.
        campaigns: The campaigns summarised, with their trial rows (their directories
            are read again for the embedded trials' transcripts).
        max_trials: Most trial records embedded in the trial browser.
        title: Page title.
        ablation: `analyze_ablation` figures (an ablation campaign's table and
            pass^k-against-k chart per configuration), or None.

    Returns:
        The whole HTML document as a string.
    """
    from plotly.offline import get_plotlyjs  # type: ignore[import-untyped]

    payload = {
        "title": title,
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "summary": {
            k: summary[k]
            for k in (
                "agents",
                "campaigns",
                "signatures_pooled",
                "by_behaviour",
                "pareto",
                "bootstrap",
                "field_policy",
            )
        },
        "labels": METRIC_LABELS,
        "trials": _trial_data(summary, campaigns, max_trials),
        **({"ablation": ablation} if ablation is not None else {}),
    }
    blob = json.dumps(payload, separators=(",", ":"), default=str).replace("</", "<\\/")
    plotly_js = str(get_plotlyjs()).replace("</script", "<\\/script")
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>{_escape(title)}</title>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<style>{_asset('report.css')}</style>"
        "<script>" + _asset("errors.js") + "</script>"
        f"<script>{plotly_js}</script></head><body>"
        f"<script type='application/json' id='report-data'>{blob}</script>"
        f"{_asset('body.html')}"
        f"<script>{_asset('report.js')}</script></body></html>\n"
    )


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def write_html_report(
    summary: dict[str, Any],
    campaigns: Sequence[CampaignRows],
    out: Path,
    *,
    max_trials: int = DEFAULT_MAX_TRIALS,
    ablation: dict[str, Any] | None = None,
) -> Path:
    """Write the report page atomically (temp file, rename).

    Args:
        summary: From `summarize_campaigns` over ``campaigns``.
        campaigns: The campaigns summarised.
        out: File to write; its folder is created.
        max_trials: Most trial records embedded in the trial browser.
        ablation: `analyze_ablation` figures to show, or None.

    Returns:
        ``out``.
    """
    html = render_html_report(summary, campaigns, max_trials=max_trials, ablation=ablation)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=".report.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(html)
        # mkstemp makes the file private; a report is meant to be shared.
        os.chmod(tmp, 0o644)
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return out
