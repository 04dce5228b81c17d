"""Validating a suite: worker processes give the same results, and the cache is keyed by
everything that could change one."""

from __future__ import annotations

from pathlib import Path

from fixtures.support import task_from
from statebox.domains import Domain
from statebox.judge import validate_suite
from statebox.tasks import Task


def test_workers_and_the_cache_change_no_result(
    toy_domain: Domain, toy_tasks: list[Task], tmp_path: Path
) -> None:
    domains = {"toy": toy_domain}
    here, cached = validate_suite(domains, toy_tasks)
    assert cached == 0 and [v.task_id for v in here] == [t.id for t in toy_tasks]
    seen: list[tuple[str, bool]] = []
    forked, cached = validate_suite(
        domains,
        toy_tasks,
        jobs=2,
        chunk_size=1,
        cache=tmp_path,
        progress=lambda v, hit: seen.append((v.task_id, hit)),
    )
    assert forked == here and cached == 0
    assert sorted(seen) == sorted((t.id, False) for t in toy_tasks)
    again, cached = validate_suite(domains, toy_tasks, cache=tmp_path)
    assert again == here and cached == 3
    # An edited task is validated anew; the others come from the cache.
    edited = [task_from(toy_tasks[0], description="edited"), *toy_tasks[1:]]
    _, cached = validate_suite(domains, edited, cache=tmp_path)
    assert cached == 2
    # So is every task of a domain whose policy text changed.
    toy_domain.policy += " Be polite."
    _, cached = validate_suite(domains, toy_tasks, cache=tmp_path)
    assert cached == 0
