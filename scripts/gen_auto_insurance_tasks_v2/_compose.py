"""Composition of v2 tasks: intents (one user request each) joined into one conversation.

An `Intent` is a building block: the request in the user's words, the facts only the
user holds, the state it needs (patch rows over the seed), its golden calls, its checks
and the words of the reply. `compose` joins one or two intents on one policy after the
verification every conversation starts with, and the `Collector` numbers and files the
result by split. Intents of one split are never used by the other (a leak-free train
split): the plans in `_plans` name them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from scripts._task_files import write_families
from scripts._user_specs import behaviour, fact, user_facts
from scripts.gen_auto_insurance_tasks._build import (
    FACTS,
    NOW,
    SEED,
    Patch,
    Row,
    _mentioned,
    call,
    customer_of,
    merge,
    verify,
)

__all__ = ["VOCAB", "Collector", "Ctx", "Intent", "Part", "compose", "premium_patch"]

VOCAB: Final[Mapping[str, Row]] = {
    **FACTS,
    "sold": fact(
        "which car did you sell",
        "which vehicle did you sell",
        "sold",
        "which one",
        "which car",
        say="I sold {value}.",
    ),
    "new_car": fact(
        "which car did you buy",
        "year, make and model",
        "new car",
        "make and model",
        "what did you buy",
        say="It's a {value}.",
    ),
    "new_start": fact(
        "when did the new policy start",
        "when did your new coverage start",
        "start date",
        "when did it start",
        "new insurer",
        "which date",
        label="date the new coverage started",
        say="My new insurer has covered me since {value}.",
    ),
    "wanted_deductible": fact(
        "which deductible",
        "new deductible",
        "deductible",
        "how much",
        say="I want a ${value} deductible.",
    ),
    "wanted_limit": fact(
        "which limit",
        "which limits",
        "limit",
        "how low",
        say="I'd like the {value} limits.",
    ),
    "claim_loss": fact(
        "which claim",
        "claim number",
        "when did the loss happen",
        "date of the loss",
        "what date",
        "which date",
        label="date of the loss",
        say="It's the claim for the loss on {value}.",
    ),
    "claim_vehicle": fact(
        "which claim",
        "which vehicle",
        "which car",
        "claim number",
        say="The claim on my {value}.",
    ),
    "new_zip": fact(
        "new zip", "new zip code", "new address", "zip", label="new ZIP", say="It's {value} now."
    ),
}
"""The v1 fact vocabulary and the facts v2 intents add."""


@dataclass
class Ctx:
    """One task being composed: the policy, its customer and the ids its writes will get."""

    policy: str
    tickets: int = 0
    notes: int = 0
    claims: int = 0
    docs: int = 0
    subjects: dict[str, list[Any]] = field(default_factory=dict)
    """Ticket id → the facts its subject must carry besides the policy id."""

    @property
    def customer(self) -> str:
        """The policy's customer id."""
        return str(customer_of(self.policy)["id"])

    def ticket(self, *subject: Any) -> str:
        """The id the next created ticket gets (sequences start at 501).

        ``subject`` are the facts that tell its subject from another ticket's.
        """
        self.tickets += 1
        tid = f"TCK-{500 + self.tickets:04d}"
        self.subjects[tid] = list(subject)
        return tid

    def claim(self) -> str:
        """The id the next filed claim gets."""
        self.claims += 1
        return f"CLM-{500 + self.claims:05d}"

    def documents(self, n: int) -> list[str]:
        """The ids the next ``n`` requested documents get."""
        out = [f"DOC-{500 + self.docs + k + 1:05d}" for k in range(n)]
        self.docs += n
        return out

    def disclose(self) -> Row:
        """The disclosure a change is preceded by (policy §1, steps)."""
        return call(
            "record_disclosure",
            customer_id=self.customer,
            topic="planned_change",
            related_id=self.policy,
        )


@dataclass
class Part:
    """What one intent adds to a task."""

    opening: str
    """The request as the user first says it (no fact the agent must ask for)."""
    goal: str
    golden: list[Row]
    description: str
    facts: Row = field(default_factory=dict)
    """Outcome-deciding facts only the user holds."""
    info: Row = field(default_factory=dict)
    """Facts the user holds that do not decide the outcome."""
    reacts: Row = field(default_factory=dict)
    patch: Patch = field(default_factory=dict)
    delete: Patch = field(default_factory=dict)
    invariants: list[Row] = field(default_factory=list)
    text: list[Row] = field(default_factory=list)
    reply: list[Any] = field(default_factory=list)
    """Facts the replies must carry (what the state cannot show)."""
    reply_not: list[Any] = field(default_factory=list)
    says: str = ""
    """The reference reply's sentence for this request."""
    tags: list[str] = field(default_factory=list)
    refusal: bool = False


@dataclass(frozen=True)
class Intent:
    """One kind of user request: a branch of one family, and how to build it on a policy."""

    family: str
    branch: str
    group: str
    """What it touches; two intents of one group are never combined."""
    fits: Callable[[str], bool]
    """Whether a seed policy can carry it."""
    build: Callable[[Ctx, int], Part]
    """The part on a policy; the int is the intent's use count (varies the values)."""
    excludes: tuple[str, ...] = ()
    """Groups it cannot be combined with (an open claim blocks a limit change...)."""
    changed_from: str = "Hi, I have a question about my bill."

    @property
    def key(self) -> str:
        """``family.branch``: the intent tag's value."""
        return f"{self.family}.{self.branch}"


def _merge_rows(parts: list[Row], what: str) -> Row:
    out: Row = {}
    for p in parts:
        for k, v in p.items():
            assert k not in out or out[k] == v, f"{what}: conflicting {k!r}"
            out[k] = v
    return out


_NEUTRAL: Final[Mapping[str, str]] = {"agree": "Yes, that works for me."}


def _reacts(parts: list[Row], what: str) -> Row:
    """One behaviour: flags must agree; words two requests both set become neutral ones."""
    out: Row = {}
    for p in parts:
        for k, v in p.items():
            if isinstance(v, bool):
                assert out.get(k, v) == v, f"{what}: conflicting {k!r}"
            elif k in out and out[k] != v:
                v = _NEUTRAL[k]
            out[k] = v
    return out


def premium_patch(policy: str, patch: Patch) -> Patch:
    """The policy row with the premium its seed and patched coverages and drivers add up to."""

    def rows(table: str) -> list[Row]:
        merged = {r["id"]: dict(r) for r in SEED[table] if r["policy_id"] == policy}
        for r in patch.get(table, []):
            if r["id"] in merged or r.get("policy_id") == policy:
                merged.setdefault(r["id"], {}).update(r)
        return [r for r in merged.values() if r.get("status") == "active"]

    total = sum(r["premium_annual"] for r in rows("coverages"))
    total += sum(r["surcharge_annual"] for r in rows("drivers"))
    return {"policies": [{"id": policy, "premium_annual": round(total, 2)}]}


def _with_premium(policy: str, patch: Patch) -> Patch:
    """The patch, plus the policy premium its coverages and drivers add up to when it adds any."""
    rated = [r for t in ("coverages", "drivers") for r in patch.get(t, [])]
    if not any(r.get("policy_id") == policy for r in rated):
        return patch
    return merge(patch, premium_patch(policy, patch))


def compose(intents: list[Intent], uses: list[int], policy: str) -> tuple[Row, Ctx, list[Part]]:
    """Build the parts of ``intents`` on ``policy``; returns the task fields they decide."""
    ctx = Ctx(policy)
    parts = [i.build(ctx, n) for i, n in zip(intents, uses, strict=True)]
    golden: list[Row] = [verify(policy), call("get_policy", policy_id=policy)]
    for p in parts:
        golden += p.golden
    opening = " ".join(
        ("Hi. " if k == 0 else "Also, ") + p.opening for k, p in enumerate(parts)
    ).strip()
    reply = [f for p in parts for f in p.reply]
    reply_not = [f for p in parts for f in p.reply_not]
    fields: Row = {
        "opening": opening,
        "goal": "; ".join(p.goal for p in parts),
        "golden": golden,
        "description": " Then: ".join(p.description for p in parts),
        "facts": _merge_rows([p.facts for p in parts], policy),
        "info": _merge_rows([p.info for p in parts], policy),
        "reacts": _reacts([p.reacts for p in parts], policy),
        "patch": _with_premium(policy, merge(*(p.patch for p in parts))),
        "delete": merge(*(p.delete for p in parts)),
        "invariants": [r for p in parts for r in p.invariants],
        "text": [r for p in parts for r in p.text],
        "reply": {"must_contain": reply, **({"must_not_contain": reply_not} if reply_not else {})}
        if reply or reply_not
        else None,
        "reference": " ".join(p.says for p in parts if p.says),
        "tags": sorted({f"intent:{i.key}" for i in intents} | {t for p in parts for t in p.tags}),
        "refusal": all(p.refusal for p in parts),
    }
    return fields, ctx, parts


def _subject_checks(golden: list[Row], ctx: Ctx) -> list[Row]:
    """Each created ticket's subject names its policy (policy §7), read ticket by ticket.

    Keyed by the id the golden run gives it, so with two tickets in one task a wrong
    subject on one is not covered by the other's.
    """
    made = [c["args"] for c in golden if c["tool"] == "create_ticket"]
    for a in made:
        assert a["policy_id"] in a["subject"], f"subject {a['subject']!r} lacks the policy"
    return [
        {
            "table": "tickets",
            "column": "subject",
            "key": {"id": f"TCK-{501 + k:04d}"},
            "must_contain": [a["policy_id"], *ctx.subjects[f"TCK-{501 + k:04d}"]],
        }
        for k, a in enumerate(made)
    ]


class Collector:
    """Tasks of one split by family; ids numbered per family and branch in insertion order."""

    def __init__(self, split: str) -> None:
        self.split = split
        self._families: dict[str, list[Row]] = defaultdict(list)
        self._counters: dict[tuple[str, str], int] = defaultdict(int)

    def add(self, intents: list[Intent], uses: list[int], policy: str) -> Row:
        """Compose one task of ``intents`` on ``policy`` and file it."""
        fields, ctx, _ = compose(intents, uses, policy)
        first = intents[0]
        branch = "-and-".join(i.branch for i in intents)
        self._counters[first.family, branch] += 1
        number = self._counters[first.family, branch]
        task_id = f"auto_insurance.{first.family}.{branch}.{number:03d}"
        cust = customer_of(policy)
        for key, value in fields["facts"].items():
            v = value["value"] if isinstance(value, dict) else value
            assert not _mentioned(v, fields["opening"]), f"{task_id}: fact {key} is in the opening"
        values: Row = {
            "policy_id": policy,
            "date_of_birth": cust["date_of_birth"],
            "zip_code": cust["zip_code"],
            **fields["info"],
            **fields["facts"],
        }
        initial: Row = dict(fields["patch"])
        if fields["delete"]:
            initial["delete"] = fields["delete"]
        task: Row = {
            "id": task_id,
            "domain": "auto_insurance",
            "split": self.split,
            "now": NOW,
            "description": fields["description"],
        }
        if initial:
            task["initial_state"] = initial
        task["record_steps"] = True
        task["user"] = {
            "opening": fields["opening"],
            "persona": f"{cust['first_name']} {cust['last_name']}, policyholder of {policy}",
            "facts": user_facts(VOCAB, values, task_id),
            "goal": fields["goal"],
        }
        conduct = behaviour(**{"changed_from": first.changed_from, **fields["reacts"]})
        if conduct:
            task["user"]["behaviour"] = conduct
        task["golden"] = fields["golden"]
        checks: Row = {}
        if fields["invariants"]:
            checks["invariants"] = fields["invariants"]
        text = [*fields["text"], *_subject_checks(fields["golden"], ctx)]
        if text:
            checks["text"] = text
        if fields["reply"]:
            checks["reply"] = fields["reply"]
        if checks:
            task["checks"] = checks
        task["reference_response"] = fields["reference"] or "Done, everything is in place."
        labels = set(fields["tags"])
        if fields["facts"]:
            labels.add("user-fact")
        if fields["refusal"]:
            labels.add("refusal")
        if len(intents) > 1:
            labels.add("multi-intent")
        task["tags"] = sorted(labels)
        task["read_only"] = False
        self._families[first.family].append(task)
        return task

    def count(self) -> int:
        """Tasks collected."""
        return sum(len(t) for t in self._families.values())

    def write(self, out: Path) -> None:
        """Write one YAML list per family into ``out``."""
        write_families(self._families, out)
