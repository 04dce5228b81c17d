"""One environment hash: everything a verdict depends on besides the agent.

A campaign's figures mean something only against the environment they were measured
in: the tasks, each domain's policy text, schema, seed rows, tool schemas and field
policy, and the judge's own rules (`JUDGE_VERSION`). `environment_parts` hashes each
of those on its own, so a mismatch can be named ("retail.policy differs"), and
`environment_hash` hashes the parts together. Campaign manifests store both: a resume
refuses a changed environment, and ``report`` / ``compare`` warn when campaigns ran
different ones.

External environments (a ThinkingBox dataset) contribute their tasks and the policy
text each task is served with; their tool schemas come from servers that are not
started to compute a hash.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from statebox.domains import Domain
from statebox.tasks import Task, bundle_hash

__all__ = ["JUDGE_VERSION", "environment_diff", "environment_hash", "environment_parts"]

JUDGE_VERSION = "2"
"""The judge's rules; bumped whenever a verdict on the same trial could change (2: text
and reply checks, order-free insert matching, fail-closed rubrics)."""


def _sha(data: Any) -> str:
    text = data if isinstance(data, str) else json.dumps(data, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def domain_parts(domain: Domain) -> dict[str, str]:
    """The hashed parts of one domain: policy, schema, seed, tools, field policy.

    The tools are every tool golden replay may call: the step tools and
    ``search_policy`` too, whichever a task offers.
    """
    tools = [
        {
            "name": s.name,
            "description": s.description,
            "mutates": s.mutates,
            "input_schema": s.input_schema(),
        }
        for s in sorted(domain.tools.values(), key=lambda s: s.name)
    ]
    return {
        # Both renderings: a sentence moved into or out of a step block changes one.
        f"{domain.name}.policy": _sha([domain.policy, domain.policy_text(record_steps=True)]),
        f"{domain.name}.schema": _sha(domain.schema_sql),
        f"{domain.name}.seed": domain.template().state().hash(),
        f"{domain.name}.tools": _sha(tools),
        f"{domain.name}.field_policy": _sha([e.model_dump() for e in domain.field_policy.excluded]),
    }


def environment_parts(tasks: Iterable[Task], domains: Mapping[str, Any]) -> dict[str, str]:
    """Each part of the environment, hashed on its own (part name → sha256).

    Args:
        tasks: The campaign's tasks.
        domains: Domain name → `Domain`, or an external environment with a
            ``task_policy(task)`` method.
    """
    tasks = list(tasks)
    parts = {"judge": JUDGE_VERSION, "tasks": bundle_hash(tasks)}
    for name in sorted(domains):
        d = domains[name]
        if isinstance(d, Domain):
            parts.update(domain_parts(d))
            continue
        policy = getattr(d, "task_policy", None)
        if policy is not None:
            texts = [policy(t) for t in sorted(tasks, key=lambda t: t.id) if t.domain == name]
            parts[f"{name}.policy"] = _sha(texts)
    return parts


def environment_hash(parts: Mapping[str, str]) -> str:
    """Sha256 over every part (64 hex characters)."""
    return _sha(dict(parts))


def environment_diff(a: Mapping[str, str], b: Mapping[str, str]) -> list[str]:
    """The names of the parts that differ (or exist on one side only), sorted."""
    return sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
