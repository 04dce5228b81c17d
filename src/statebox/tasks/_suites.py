"""Built-in suites by name and version: ``all``, ``train``, ``DOMAIN``, ``DOMAIN:train``.

The grammar (docs/suites.md)::

    SUITE   := SCOPE [":" SPLIT] ["@" VERSION]
    SCOPE   := "all" | "train" | DOMAIN        ("train" is "all:train")
    SPLIT   := "test" | "train"
    VERSION := "1.0" | "2.0" | ...

Without a split a suite is its scope's **test** tasks, except in statebox-bench 1.0,
where it keeps the meaning it had before suites had versions: every task, both
splits (``all@1.0`` is the 573 tasks), so old comparisons reproduce. Without a
version it is the *default version*: the newest one that every installed built-in
domain ships (`default_version`; 1.0 until every built-in domain has its 2.0 tasks).

Where a version's folder has ``test/`` and ``train/`` subfolders, a split is its
subfolder (and every task in it must carry that ``split``: a task filed in the wrong
folder would leak); a flat folder (1.0's ``tasks/``) is split by each task's ``split``.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Literal

from statebox._model import Model
from statebox.domains import Domain, version_key
from statebox.errors import DomainError, TaskSpecError
from statebox.tasks._loader import load_tasks
from statebox.tasks._model import Task

__all__ = [
    "BENCH_NAME",
    "LEGACY_VERSION",
    "SuiteName",
    "default_version",
    "parse_suite",
    "pin_legacy",
    "resolve_suite",
    "suite_label",
    "suite_tasks",
    "suite_versions",
]

BENCH_NAME = "statebox-bench"
"""What the built-in suite is called (``statebox-bench 2.0``)."""

LEGACY_VERSION = "1.0"
"""The version whose split-less suites hold both splits (their meaning before versions)."""

Split = Literal["test", "train"]
_NAME = re.compile(r"^(?P<scope>[A-Za-z0-9_.-]+)(?::(?P<split>[a-z]+))?(?:@(?P<version>[0-9.]+))?$")
GRAMMAR = "all, train, DOMAIN or DOMAIN:train, each optionally @VERSION"
"""The suite names, in one line (error messages quote it)."""


class SuiteName(Model):
    """A suite name, parsed (`parse_suite`) or resolved (`resolve_suite`)."""

    scope: str
    """``all`` or a domain name."""
    split: Split | None = None
    """The split; None: the version's default selection (test; both splits in 1.0)."""
    version: str | None = None
    """The suite version; None until resolved (the default version)."""

    @property
    def splits(self) -> tuple[Split, ...]:
        """The splits the suite holds (a resolved name: version known)."""
        if self.split is not None:
            return (self.split,)
        return ("test", "train") if self.version == LEGACY_VERSION else ("test",)

    @property
    def label(self) -> str:
        """``statebox-bench 2.0`` (or ``statebox-bench (default version)``)."""
        return f"{BENCH_NAME} {self.version or '(default version)'}"

    def __str__(self) -> str:
        """The canonical name: ``all@2.0``, ``train@2.0``, ``retail:train@1.0``."""
        if self.scope == "all" and self.split == "train":
            text = "train"
        else:
            text = self.scope + (f":{self.split}" if self.split is not None else "")
        return text + (f"@{self.version}" if self.version else "")


def parse_suite(text: str) -> SuiteName:
    """Parse a suite name (syntax only; `resolve_suite` checks it against the domains).

    Raises:
        DomainError: Not of the grammar's form.
    """
    m = _NAME.match(text.strip())
    if m is None:
        raise DomainError(f"suite {text!r}: not a suite name; use {GRAMMAR}")
    scope, split, version = m.group("scope"), m.group("split"), m.group("version")
    if split is not None and split not in ("test", "train"):
        raise DomainError(f"suite {text!r}: unknown split {split!r}; splits: test, train")
    if scope == "train":
        if split is not None:
            raise DomainError(f"suite {text!r}: 'train' is already a split; use {GRAMMAR}")
        scope, split = "all", "train"
    if version is not None:
        version_key(version)
    return SuiteName(scope=scope, split=split, version=version)


def suite_versions(domains: Mapping[str, Domain]) -> list[str]:
    """Every version some domain ships, oldest first (``["1.0"]`` when none declares any)."""
    shipped = {v for d in domains.values() for v in d.versions()}
    return sorted(shipped or {LEGACY_VERSION}, key=version_key)


def default_version(domains: Mapping[str, Domain], builtin: Collection[str] = ()) -> str:
    """The newest version that every built-in domain ships.

    Args:
        domains: The installed domains by name.
        builtin: The names of the built-in ones (statebox's own); when none of them is
            installed, every domain that declares versions counts instead.

    Returns:
        That version; `LEGACY_VERSION` when no counted domain declares a version or
        they share none.
    """
    counted = [domains[n] for n in builtin if n in domains and domains[n].suites]
    if not counted:
        counted = [d for d in domains.values() if d.suites]
    common: set[str] | None = None
    for d in counted:
        common = set(d.versions()) if common is None else common & set(d.versions())
    return max(common, key=version_key) if common else LEGACY_VERSION


def _known(domains: Mapping[str, Domain]) -> str:
    names = ", ".join(sorted(domains)) or "none"
    return f"use {GRAMMAR}; domains: {names}; versions: {', '.join(suite_versions(domains))}"


def resolve_suite(
    name: str | SuiteName, domains: Mapping[str, Domain], builtin: Collection[str] = ()
) -> SuiteName:
    """A suite name with its version filled in, checked against the installed domains.

    Raises:
        DomainError: Bad syntax, an unknown domain, a version no domain ships (or the
            named domain does not), or a domain that ships no tasks — one line, listing
            what exists.
    """
    ref = parse_suite(name) if isinstance(name, str) else name
    version = ref.version or default_version(domains, builtin)
    if ref.scope != "all":
        d = domains.get(ref.scope)
        if d is None:
            raise DomainError(f"suite {str(ref)!r}: unknown suite; {_known(domains)}")
        if d.suite_folder(version) is None:
            if not d.suites and d.tasks_dir is None:
                raise DomainError(f"domain {d.name!r} ships no tasks")
            raise DomainError(
                f"suite {str(ref)!r}: domain {d.name} does not ship {BENCH_NAME} {version}; "
                f"it ships {', '.join(d.versions()) or 'no version'}"
            )
    elif version not in suite_versions(domains):
        raise DomainError(
            f"suite {str(ref)!r}: no installed domain ships {BENCH_NAME} {version}; "
            f"{_known(domains)}"
        )
    split = ref.split
    if split == "test" and version != LEGACY_VERSION:
        split = None  # the default selection already: one canonical name
    return SuiteName(scope=ref.scope, split=split, version=version)


def _split_tasks(folder: Path, split: Split) -> list[Task]:
    sub = folder / split
    if not sub.is_dir():
        return [t for t in load_tasks(folder) if t.split == split]
    tasks = load_tasks(sub)
    stray = next((t for t in tasks if t.split != split), None)
    if stray is not None:
        # Only on this error path: which file holds it (load_tasks does not say).
        file = next(
            f
            for f in sorted(sub.rglob("*"))
            if f.is_file()
            and f.suffix in (".yaml", ".yml")
            and any(t.id == stray.id for t in load_tasks(f))
        )
        raise TaskSpecError(
            f"split {stray.split!r} in the {split}/ folder; a task's split is its folder's",
            file=file,
            task_id=stray.id,
            field="split",
        )
    return tasks


def suite_label(ref: SuiteName, builtin: Collection[str] = ()) -> str:
    """What a suite is, for people: ``statebox-bench 2.0``, or ``bikeshop's own tasks``.

    Only ``all``, ``train`` and the built-in domains are the benchmark; a domain written
    outside statebox is never labelled as it.
    """
    if ref.scope in ("all", "train") or ref.scope in builtin or not builtin:
        return ref.label
    return f"{ref.scope}'s own tasks"


def suite_tasks(
    ref: SuiteName,
    domains: Mapping[str, Domain],
    *,
    both_splits: bool = False,
    builtin: Collection[str] = (),
) -> list[Task]:
    """The tasks of a resolved suite, domains in name order, test tasks before train.

    Args:
        ref: The suite, resolved (`resolve_suite`).
        domains: The installed domains by name.
        both_splits: Both splits of the suite's scope whatever its split (what the card
            measures leaks over, and what ``statebox serve`` serves by default).
        builtin: The built-in domains' names. When one is installed, ``all`` and ``train``
            are theirs alone: installing a domain of your own must not change what
            statebox-bench holds (select it by name, or with ``--domain``).

    Raises:
        DomainError: ``ref`` is not resolved (no version).
        TaskSpecError: A task file is invalid, or a task sits in the other split's folder.
    """
    if ref.version is None:
        raise DomainError(f"suite {str(ref)!r}: resolve it first (no version)")
    splits: tuple[Split, ...] = ("test", "train") if both_splits else ref.splits
    bench = [n for n in builtin if n in domains]
    names = sorted(bench or domains) if ref.scope == "all" else [ref.scope]
    tasks: list[Task] = []
    for n in names:
        folder = domains[n].suite_folder(ref.version)
        if folder is None:
            continue
        if splits == ("test", "train") and not (folder / "test").is_dir():
            tasks += load_tasks(folder)  # a flat folder as it is, in file order (1.0's way)
            continue
        for split in splits:
            tasks += _split_tasks(folder, split)
    return tasks


def pin_legacy(name: str) -> str:
    """A suite name recorded before suites had versions, pinned to the version it meant.

    A manifest's ``suite:all`` from then is ``all@1.0``: resuming or verifying it must
    not pick up a newer default version's tasks.
    """
    return name if "@" in name else f"{name}@{LEGACY_VERSION}"
