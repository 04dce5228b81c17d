"""Re-judging an old campaign's transcripts against fixed or changed tasks.

No model plays the agent or the user: each trial's recorded calls and messages are
replayed (`replay_trial`) on a fresh world of the task as it is now, reply checks run
again on the recorded messages, and rubric questions are asked only of a judge model
given here (otherwise they come back unjudged and the verdict fails closed). The
result is a new campaign directory whose manifest names the old one; the old one is
never touched.

A trial whose recorded calls no longer apply — a call that reached its tool then and
is now an unknown or disallowed tool (renamed, removed, dropped from the allowlist) —
is listed in `Rejudged.inapplicable` and left out of the new campaign, as is a trial
whose task is gone; nothing is dropped without being named.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

from statebox.domains import Domain
from statebox.errors import ConfigError
from statebox.judge import Judge, RubricJudge, environment_hash, environment_parts
from statebox.records import (
    MANIFEST_FILE,
    Manifest,
    ResultsWriter,
    Timings,
    TrialRecord,
    TrialStatus,
    write_manifest,
)
from statebox.registry import Registry
from statebox.runner._mitigations import trial_mitigations
from statebox.runner._replay import Replayed, replay_trial
from statebox.runner._verify import campaign_limits, campaign_policy_mode
from statebox.tasks import Task, WorldCache, bundle_hash

__all__ = ["Flip", "Rejudged", "rejudge_campaign"]

_GONE = frozenset({"unknown_tool", "not_allowed"})


class Flip(NamedTuple):
    """A trial whose verdict changed."""

    trial_id: str
    """The trial."""
    was: TrialStatus
    """Its recorded status."""
    now: TrialStatus
    """Its status re-judged."""
    why: str
    """The checks that changed, with the new detail of each that now fails."""


class Rejudged(NamedTuple):
    """What `rejudge_campaign` did."""

    directory: Path
    """The new campaign directory."""
    rejudged: int
    """Trials re-judged and written."""
    flips: list[Flip]
    """Trials whose status changed, in file order."""
    inapplicable: list[tuple[str, str]]
    """(trial id, why) of trials left out: a recorded call no longer applies, or the
    task is gone."""
    not_judged: list[str]
    """System-error trials of the old campaign (nothing was judged; not re-judged)."""


def _inapplicable(record: TrialRecord, replayed: Replayed) -> str | None:
    old = [e for e in record.transcript if e.kind == "tool_call" and e.result is not None]
    new = [e for e in replayed.transcript if e.kind == "tool_call"]
    for n, (a, b) in enumerate(zip(old, new, strict=False), start=1):
        assert a.result is not None and a.call is not None  # filtered above
        was = a.result.error.kind if a.result.error else None
        now = b.result.error.kind if b.result and b.result.error else None
        if now in _GONE and was not in _GONE:
            return f"call {n} ({a.call.tool}) no longer applies: {now}"
    return None


def _why(record: TrialRecord, replayed: Replayed) -> str:
    old = {c.name: c for c in (record.verdict.checks if record.verdict else ())}
    new = {c.name: c for c in replayed.verdict.checks}
    parts = []
    for name in sorted(set(old) | set(new)):
        a, b = old.get(name), new.get(name)
        ok_a = a is not None and a.passed and not a.skipped
        ok_b = b is not None and b.passed and not b.skipped
        if a is None and b is not None:
            # A check the task did not have: it explains a flip only when it fails, but
            # it is named either way (an added check is no "same checks").
            if ok_b:
                parts.append(f"{name} added, passes")
            else:
                state = "unjudged" if b.skipped else "fails"
                parts.append(f"{name} added, {state}" + (f": {b.detail}" if b.detail else ""))
        elif ok_a == ok_b:
            continue
        elif b is None:
            parts.append(f"{name} removed")
        elif ok_b:
            parts.append(f"{name} now passes")
        else:
            state = "unjudged" if b.skipped else "fails"
            parts.append(f"{name} now {state}" + (f": {b.detail}" if b.detail else ""))
    return "; ".join(parts) or "the checks are the same; the status differed"


async def rejudge_campaign(
    manifest: Manifest,
    records: Sequence[TrialRecord],
    tasks: Sequence[Task],
    registry: Registry,
    out: Path,
    *,
    source: str,
    rubric: RubricJudge | None = None,
    judge_label: str | None = None,
) -> Rejudged:
    """Re-judge ``records`` against ``tasks`` and write a new campaign to ``out``.

    Args:
        manifest: The old campaign's manifest.
        records: Its trial records (the latest of each trial id).
        tasks: The tasks to judge against (the campaign's task ids are picked).
        registry: Installed domains.
        out: The new campaign directory (must not hold a campaign).
        source: Where the tasks came from (the new manifest's ``task_source``).
        rubric: Judge model for rubric questions (None: they are unjudged).
        judge_label: The judge model's label, for the manifest.

    Returns:
        Counts, flipped verdicts and the trials left out.

    Raises:
        ConfigError: ``out`` already holds a campaign.
    """
    if (out / MANIFEST_FILE).exists():
        raise ConfigError(f"--out {out} already holds a campaign; name a new directory")
    by_id = {t.id: t for t in tasks}
    mine = [by_id[i] for i in manifest.task_ids if i in by_id]
    domains: dict[str, Domain] = {n: registry.domain(n) for n in sorted({t.domain for t in mine})}
    worlds = WorldCache()
    judges = {n: Judge(d, worlds, rubric, skip_rubric=rubric is None) for n, d in domains.items()}
    limits, mode = campaign_limits(manifest), campaign_policy_mode(manifest)
    parts = environment_parts(mine, domains)
    new_manifest = manifest.model_copy(
        update={
            "campaign_id": uuid.uuid4().hex[:12],
            "created_at": datetime.now(UTC),
            "task_source": source,
            "task_bundle_hash": bundle_hash(mine),
            "environment_hash": environment_hash(parts),
            "environment": parts,
            "task_ids": tuple(t.id for t in mine),
            # The old floors were measured on the old tasks: none is claimed for these.
            "baselines": {},
            "settings": {
                **manifest.settings,
                "rejudged_from": {
                    "campaign_id": manifest.campaign_id,
                    "task_source": manifest.task_source,
                    "environment_hash": manifest.environment_hash,
                },
            },
            "verdict_settings": {**manifest.verdict_settings, "judge_model": judge_label},
        }
    )
    flips: list[Flip] = []
    left_out: list[tuple[str, str]] = []
    not_judged: list[str] = []
    written = 0
    write_manifest(out, new_manifest)
    with ResultsWriter(out) as writer:
        for r in records:
            if r.status == TrialStatus.SYSTEM_ERROR or r.verdict is None:
                not_judged.append(r.trial_id)
                continue
            task = by_id.get(r.task_id)
            if task is None:
                left_out.append((r.trial_id, f"task {r.task_id} is not in the tasks given"))
                continue
            t0 = time.perf_counter()
            replayed = await replay_trial(
                r, task, domains[task.domain], judges[task.domain],
                worlds=worlds, limits=limits, policy_mode=mode,
                mitigations=trial_mitigations(manifest, r.agent_id),
            )  # fmt: skip
            gone = _inapplicable(r, replayed)
            if gone is not None:
                left_out.append((r.trial_id, gone))
                continue
            took = time.perf_counter() - t0
            writer.write(
                r.model_copy(
                    update={
                        "campaign_id": new_manifest.campaign_id,
                        "family": task.family,
                        "split": task.split,
                        "status": replayed.status,
                        "verdict": replayed.verdict,
                        "termination": replayed.termination,
                        "transcript": replayed.transcript,
                        "timings": Timings(episode_s=0.0, judge_s=took, total_s=took),
                    }
                )
            )
            written += 1
            if replayed.status != r.status:
                flips.append(Flip(r.trial_id, r.status, replayed.status, _why(r, replayed)))
    return Rejudged(out, written, flips, left_out, not_judged)
