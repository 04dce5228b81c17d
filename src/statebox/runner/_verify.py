"""Verifying a campaign: rebuild each trial's world, replay its calls, compare exactly.

`campaign_tasks` rebuilds the tasks a manifest names from where it says they came
from (a built-in suite or task files; an extra ``--domain`` it recorded).
`manifest_differences` names what differs between the manifest and what is installed
now (statebox version, git revision, the task bundle, each environment part).
`verify_campaign` replays every judged trial (`replay_trial`) and reports, per trial,
the first call whose result differs, or a verdict that does not come back the same.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import statebox
from statebox.domains import Domain
from statebox.episode import Limits
from statebox.errors import ConfigError, DomainError
from statebox.judge import Judge, environment_diff, environment_parts
from statebox.kit import PolicyMode
from statebox.records import Manifest, TrialRecord, TrialStatus, trial_id
from statebox.registry import Registry, load_domain_ref
from statebox.runner._campaign import _git_revision
from statebox.runner._mitigations import trial_mitigations
from statebox.runner._replay import (
    Replayed,
    comparable_verdict,
    first_difference,
    predates_error_classes,
    replay_trial,
)
from statebox.tasks import Task, WorldCache, bundle_hash, load_tasks, pin_legacy

__all__ = [
    "TrialCheck",
    "VerifyReport",
    "campaign_domains",
    "campaign_limits",
    "campaign_policy_mode",
    "campaign_tasks",
    "external_source",
    "manifest_differences",
    "record_problems",
    "verify_campaign",
]


class TrialCheck(NamedTuple):
    """One trial's verification."""

    trial_id: str
    """The trial."""
    ok: bool
    """Whether the replay reproduced its tool results and verdict exactly."""
    problem: str = ""
    """The first difference (empty when ok)."""


class VerifyReport(NamedTuple):
    """What `verify_campaign` found."""

    differences: list[str]
    """Manifest against what is installed now, one line each (empty: none)."""
    trials: list[TrialCheck]
    """Each judged trial, in file order."""
    skipped: list[str]
    """System-error trials (nothing was judged, nothing to reproduce)."""

    @property
    def mismatches(self) -> list[TrialCheck]:
        """Trials the replay did not reproduce."""
        return [t for t in self.trials if not t.ok]


def external_source(manifest: Manifest) -> str:
    """What outside statebox held the campaign's state ('' when statebox's own worlds did).

    Such a campaign's trials cannot be replayed offline: its servers held the state.
    """
    if "thinkingbox" in manifest.settings:
        return "a ThinkingBox dataset"
    if manifest.task_source.startswith("backend:") or "backends" in manifest.settings:
        return "--backend files"
    return ""


def campaign_domains(manifest: Manifest, registry: Registry) -> Registry:
    """``registry`` with the campaign's own ``--domain`` references registered.

    A domain of that name registered already (a ``--domain`` given now) is kept.

    Raises:
        ConfigError: The campaign ran on an external environment (its servers hold
            the state; statebox cannot rebuild it offline).
        DomainError: A recorded ``--domain`` reference no longer loads.
    """
    kind = external_source(manifest)
    if kind:
        raise ConfigError(
            f"campaign {manifest.campaign_id} ran on {kind}: its servers hold the state, "
            "so its trials cannot be replayed offline"
        )
    given = {s.domain for s in registry.sources}
    recorded = {
        str(row.get("ref")): str(row.get("domain"))
        for row in manifest.settings.get("domain_provenance") or ()
        if isinstance(row, dict)
    }
    for ref in manifest.settings.get("domain_refs") or ():
        if recorded.get(str(ref)) in given:
            continue  # a --domain given now wins, unread: the recorded file may be gone
        try:
            d = load_domain_ref(str(ref))
        except DomainError as exc:
            raise DomainError(
                f"{exc} (the campaign's recorded --domain; give --domain to say where it is now)"
            ) from exc
        if d.name not in registry.domain_names():  # a --domain given now wins
            registry.register_domain(d)
    return registry


def campaign_tasks(
    manifest: Manifest,
    registry: Registry,
    *,
    suite: str | None = None,
    task_paths: Sequence[Path] | None = None,
) -> list[Task]:
    """The tasks of a campaign, rebuilt from its task source (or from the one given).

    Args:
        manifest: The campaign's manifest.
        registry: Domains (with the campaign's ``--domain`` references).
        suite: Take the tasks from this built-in suite instead.
        task_paths: Take the tasks from these files or folders instead.

    Returns:
        Every task found there (the caller picks the campaign's by id).
    """
    if suite is not None:
        return registry.suite(suite)
    if task_paths:
        return load_tasks(list(task_paths))
    source = manifest.task_source
    if source.startswith("suite:"):
        # A name recorded before suites had versions meant 1.0's tasks.
        # Several --domain references' own suites are recorded comma-separated.
        names = source.removeprefix("suite:").split(",")
        return registry.suites(registry.resolve_suites(",".join(pin_legacy(n) for n in names)))
    paths = [Path(p) for p in source.split(", ")]
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise ConfigError(
            f"the campaign's tasks ({', '.join(missing)}) are not here; give --tasks "
            "where they are now"
        )
    return load_tasks(paths)


def campaign_limits(manifest: Manifest) -> Limits:
    """The campaign's episode limits."""
    s = manifest.settings
    return Limits(max_steps=int(s.get("max_steps", 200)), max_turns=int(s.get("max_turns", 30)))


def campaign_policy_mode(manifest: Manifest) -> PolicyMode | None:
    """The campaign's policy mode (None: each task's own)."""
    mode = manifest.settings.get("policy_mode")
    return mode if mode in ("prompt", "search", "both") else None


def manifest_differences(
    manifest: Manifest, tasks: Sequence[Task], domains: Mapping[str, Domain]
) -> list[str]:
    """What differs between ``manifest`` and the installed statebox and suite."""
    out: list[str] = []
    if manifest.statebox_version != statebox.__version__:
        out.append(
            f"statebox version: campaign {manifest.statebox_version}, "
            f"installed {statebox.__version__}"
        )
    now = _git_revision()
    if manifest.git_revision and now and manifest.git_revision != now:
        out.append(f"git revision: campaign {manifest.git_revision[:12]}, installed {now[:12]}")
    by_id = {t.id: t for t in tasks}
    missing = [i for i in manifest.task_ids if i not in by_id]
    if missing:
        shown = ", ".join(missing[:5]) + (
            f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        )
        out.append(f"tasks missing from the suite now: {shown}")
    mine = [by_id[i] for i in manifest.task_ids if i in by_id]
    if not missing and bundle_hash(mine) != manifest.task_bundle_hash:
        out.append(
            f"task bundle hash differs over the campaign's {len(mine)} tasks (one was edited)"
        )
    if manifest.environment:
        parts = environment_parts(mine, domains)
        diff = environment_diff(manifest.environment, parts)
        if diff:
            out.append(f"environment parts differ: {', '.join(diff)}")
    return out


async def verify_campaign(
    manifest: Manifest,
    records: Sequence[TrialRecord],
    registry: Registry,
    *,
    task_paths: Sequence[Path] | None = None,
) -> VerifyReport:
    """Replay every judged trial of a campaign and compare it with its record.

    Args:
        manifest: The campaign's manifest.
        records: Its trial records (the latest of each trial id).
        registry: Installed domains (the campaign's ``--domain`` references added).
        task_paths: Where the campaign's task files are now, if they moved (None: its
            recorded task source).

    Returns:
        Manifest differences and one check per judged trial.
    """
    tasks = campaign_tasks(manifest, registry, task_paths=task_paths)
    names = sorted({t.domain for t in tasks if t.id in set(manifest.task_ids)})
    domains = {n: registry.domain(n) for n in names}
    differences = manifest_differences(manifest, tasks, domains)
    by_id = {t.id: t for t in tasks}
    worlds = WorldCache()
    judges = {n: Judge(d, worlds, None, skip_rubric=True) for n, d in domains.items()}
    limits, mode = campaign_limits(manifest), campaign_policy_mode(manifest)
    checks: list[TrialCheck] = []
    skipped: list[str] = []
    for r in records:
        if r.status == TrialStatus.SYSTEM_ERROR or r.verdict is None:
            skipped.append(r.trial_id)
            continue
        task = by_id.get(r.task_id)
        if task is None or task.domain not in domains:
            checks.append(TrialCheck(r.trial_id, False, f"task {r.task_id} is not in the suite"))
            continue
        replayed = await replay_trial(
            r, task, domains[task.domain], judges[task.domain],
            worlds=worlds, limits=limits, policy_mode=mode,
            mitigations=trial_mitigations(manifest, r.agent_id),
        )  # fmt: skip
        checks.append(_compare(r, replayed))
    return VerifyReport(differences, checks, skipped)


def record_problems(manifest: Manifest, lines: Sequence[TrialRecord]) -> list[TrialCheck]:
    """What the results file holds against what the manifest planned, trial by trial.

    A replay checks each record it is given; this checks that the records are the
    campaign's: none missing (deleted, or the campaign never finished), none unplanned,
    no trial recorded twice with a verdict (only a system error is ever run again), and
    no judged trial disguised as a system error (which reports leave out of the figure
    over judged trials).

    Args:
        manifest: The campaign's manifest.
        lines: Every record line of its results file, in file order.
    """
    planned = {
        trial_id(t, a.agent_id, i)
        for t in manifest.task_ids
        for a in manifest.agents
        for i in range(manifest.trials)
    }
    out: list[TrialCheck] = []
    judged: dict[str, int] = {}
    for r in lines:
        key = r.trial_id
        if key not in planned:
            out.append(TrialCheck(key, False, "a record of a trial the manifest never planned"))
        if key in judged:
            out.append(
                TrialCheck(key, False, "recorded again after a judged record (only a system "
                           "error is ever run again)")
            )  # fmt: skip
        if r.status != TrialStatus.SYSTEM_ERROR:
            judged[key] = judged.get(key, 0) + 1
        elif r.verdict is not None and not any(c.error for c in r.verdict.checks):
            out.append(
                TrialCheck(key, False, "recorded as a system error, but its verdict has no "
                           "check that failed to run")
            )  # fmt: skip
    seen = {r.trial_id for r in lines}
    out.extend(
        TrialCheck(key, False, "planned but has no record (an unfinished campaign: "
                   "statebox run --out DIR --resume)")
        for key in sorted(planned - seen)
    )  # fmt: skip
    return out


def _compare(r: TrialRecord, replayed: Replayed) -> TrialCheck:
    diff = first_difference(r.transcript, replayed.transcript)
    if diff is not None:
        return TrialCheck(r.trial_id, False, diff[1])
    if replayed.termination != r.termination:
        return TrialCheck(
            r.trial_id,
            False,
            f"termination: recorded {r.termination}, replayed {replayed.termination}",
        )
    assert r.verdict is not None  # judged trials only
    asked = any(c.kind == "rubric" and not c.skipped for c in r.verdict.checks)
    old = comparable_verdict(r.verdict, drop_rubric=asked)
    new = comparable_verdict(replayed.verdict, drop_rubric=asked)
    if predates_error_classes(r.transcript):  # recorded before verdicts named the class
        old.pop("unrecovered_error", None)
        new.pop("unrecovered_error", None)
    if old != new:
        names = _differing_checks(old, new)
        return TrialCheck(r.trial_id, False, f"verdict differs: {names}")
    expected = replayed.status
    if asked:  # the rubric's answers are the record's: its status follows them
        expected = TrialStatus.PASSED if r.verdict.passed else TrialStatus.FAILED
    if r.status != expected:
        return TrialCheck(
            r.trial_id, False, f"status: recorded {r.status}, the verdict says {expected}"
        )
    return TrialCheck(r.trial_id, True)


def _differing_checks(old: dict[str, Any], new: dict[str, Any]) -> str:
    a = {c["name"]: c for c in old.get("checks", ())}
    b = {c["name"]: c for c in new.get("checks", ())}
    checks = sorted(n for n in set(a) | set(b) if a.get(n) != b.get(n))
    fields = sorted(k for k in set(old) | set(new) if k != "checks" and old.get(k) != new.get(k))
    parts = [f"check {n}" for n in checks] + fields
    return ", ".join(parts) or "content"
