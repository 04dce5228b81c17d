"""The simulated user in a summary: grounding-audit shares and figures per behaviour.

Every trial record carries its user's behaviour and the grounding audit of its turns
(`statebox.dialogue.audit_user_turns`). Per summary entry this gives the share of
follow-up user turns with an ungrounded value and with a volunteered fact (the unit the
tau-bench user audit counts), the share of trials with at least one, overall and per
domain; and, across entries, pass@1 and observed k/k per user behaviour, so campaigns
run with different ``--user-behaviour`` sit side by side.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from statebox.metrics import metrics_by_domain, outcomes_from_trials
from statebox.records import TrialRow, TrialStatus

__all__ = ["NOT_RECORDED", "behaviour_rows", "user_figures"]

NOT_RECORDED = "(not recorded)"
"""The behaviour shown for trials whose records carry no user information."""


def _share(count: int, total: int) -> float | None:
    return count / total if total else None


def _shares(rows: Sequence[TrialRow]) -> dict[str, Any]:
    audited = [r for r in rows if r.user_behaviour is not None]
    turns = sum(r.user_turns for r in audited)
    ungrounded = sum(r.ungrounded_turns for r in audited)
    volunteered = sum(r.volunteered_turns for r in audited)
    with_u = sum(1 for r in audited if r.ungrounded_turns)
    with_v = sum(1 for r in audited if r.volunteered_turns)
    return {
        "audited_trials": len(audited),
        "user_turns": turns,
        "ungrounded_turns": ungrounded,
        "ungrounded_turn_share": _share(ungrounded, turns),
        "volunteered_turns": volunteered,
        "volunteered_turn_share": _share(volunteered, turns),
        "trials_with_ungrounded": with_u,
        "trials_with_ungrounded_share": _share(with_u, len(audited)),
        "trials_with_volunteered": with_v,
        "trials_with_volunteered_share": _share(with_v, len(audited)),
    }


def user_figures(rows: Sequence[TrialRow]) -> dict[str, Any]:
    """The user side of one summary entry: behaviours and grounding shares.

    Returns:
        ``behaviours`` (sorted; `NOT_RECORDED` for trials without user information),
        the shares of `_shares` overall and under ``by_domain``, and a ``note`` naming
        the unit of each share.
    """
    by_domain: dict[str, list[TrialRow]] = {}
    for r in rows:
        by_domain.setdefault(r.domain, []).append(r)
    return {
        "behaviours": sorted({r.user_behaviour or NOT_RECORDED for r in rows}),
        **_shares(rows),
        "by_domain": {d: _shares(rs) for d, rs in sorted(by_domain.items())},
        "note": "turn shares: of follow-up user turns; trial shares: of trials whose user "
        "was audited. Ungrounded: an id, email, date, amount or name the user was never "
        "given nor told; volunteered: a fact stated before it was asked for",
    }


def behaviour_rows(
    entries: Mapping[str, Sequence[TrialRow]], summaries: Mapping[str, Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """pass@1 and observed k/k per (entry, user behaviour).

    Args:
        entries: Entry name → its trial rows.
        summaries: Entry name → its summary (reused when the entry has one behaviour).

    Returns:
        One row per entry and behaviour, by behaviour then entry: ``entry``,
        ``agent_id``, ``behaviour``, ``tasks``, ``trials``, ``k``, ``pass_at_1`` and
        ``observed_k_of_k``.
    """
    out: list[dict[str, Any]] = []
    for name, rows in entries.items():
        groups: dict[str, list[TrialRow]] = {}
        for r in rows:
            groups.setdefault(r.user_behaviour or NOT_RECORDED, []).append(r)
        for behaviour, group in groups.items():
            if len(groups) == 1:
                s = summaries[name]
                overall, k, tasks, trials = s["overall"], s["k"], s["tasks"], s["trials"]
                p1, kk = overall["pass_at_1"], overall["observed_k_of_k"]
            else:
                outcomes = outcomes_from_trials(
                    (r.task_id, r.domain, r.status == TrialStatus.PASSED) for r in group
                )
                with warnings.catch_warnings():  # the entry's own figures carry the warning
                    warnings.simplefilter("ignore")
                    report = metrics_by_domain(outcomes, None)
                k, tasks, trials = report.overall.k, report.overall.tasks, report.overall.trials
                p1, kk = report.overall.pass_at_1, report.overall.observed_k_of_k
            out.append(
                {
                    "entry": name,
                    "agent_id": group[0].agent_id,
                    "behaviour": behaviour,
                    "tasks": tasks,
                    "trials": trials,
                    "k": k,
                    "pass_at_1": p1,
                    "observed_k_of_k": kk,
                }
            )
    return sorted(out, key=lambda r: (r["behaviour"], r["entry"]))
