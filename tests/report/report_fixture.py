"""One varied campaign whose report output is kept byte for byte (`golden/`).

Every figure the report prints comes out of it: three agents over three domains,
task branches (``.001``/``.002``, resampled together), a task run fewer times than
the others, failures of every shape and signature, system errors, a re-run trial (its
system-error line, then the passed line that wins), a skipped rubric check, an
unrecovered tool error, approval-gate counts, user audits, per-agent costs, and two
lines written in another layout (``json.dumps``'s spacing and reversed keys), which
readers parse whole.

``python tests/report/report_fixture.py DIR`` writes the campaign (used to make the
golden files with another checkout's code: ``PYTHONPATH=OTHER/src``).
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from campaign_factory import make_trial

from statebox.dialogue import GroundingAudit
from statebox.judge import CheckResult, FailureSignature
from statebox.records import (
    RESULTS_FILE,
    ApprovalCounts,
    ResultsWriter,
    TrialRecord,
    TrialStatus,
    UserInfo,
)

AGENTS = ("alpha", "beta", "gamma")
DOMAINS = ("retail", "bank", "airline")
SIGNATURES = (
    FailureSignature.NO_STATE_CHANGE,
    FailureSignature.WRONG_STATE_UPDATE,
    FailureSignature.TOOL_USAGE,
    FailureSignature.INCOMPLETE_RESOLUTION,
    FailureSignature.AGENT_ERROR,
)


def _vary(r: TrialRecord, rng: random.Random, agent: int) -> TrialRecord:
    """Give one record the optional parts that reports read."""
    update: dict[str, object] = {
        "cost_usd": round(0.0013 * (agent + 1) + rng.random() / 997, 6),
        "user": UserInfo(
            player="rule",
            behaviour=("cooperative", "misremembers")[agent % 2],
            audit=GroundingAudit(
                user_turns=rng.randint(0, 3),
                ungrounded_turns=rng.randint(0, 1),
                volunteered_turns=rng.randint(0, 1),
            ),
        )
        if rng.random() < 0.8
        else None,
    }
    if rng.random() < 0.2:
        held = rng.randint(1, 3)
        update["approvals"] = ApprovalCounts(held=held, approved=held - 1, refused=1)
    v = r.verdict
    if v is not None and r.status == TrialStatus.FAILED:
        signature = rng.choice(SIGNATURES)
        changes: dict[str, object] = {"signature": signature}
        if signature == FailureSignature.TOOL_USAGE and rng.random() < 0.7:
            changes["unrecovered_error"] = rng.choice(("not_found", "precondition_failed"))
        update["verdict"] = v.model_copy(update=changes)
    elif v is not None and rng.random() < 0.05:
        skipped = CheckResult(name="rubric[0]", kind="rubric", passed=True, skipped=True)
        update["verdict"] = v.model_copy(
            update={"checks": (*v.checks, skipped), "signature": FailureSignature.UNJUDGED}
        )
        update["status"] = TrialStatus.FAILED
    return r.model_copy(update=update)


def write_fixture(directory: Path) -> None:
    """Write the campaign to ``directory`` (deterministic)."""
    rng = random.Random(19)
    with ResultsWriter(directory) as writer:
        for a, agent in enumerate(AGENTS):
            for t in range(18):
                domain = DOMAINS[t // 2 % 3]
                task = f"{domain}.fam{t // 2 % 2}.branch{t // 2}.{t % 2 + 1:03d}"
                trials = 3 if t == 7 else 5
                skill = 0.35 + 0.2 * a + 0.3 * ((t * 7) % 5) / 5
                for i in range(trials):
                    roll = rng.random()
                    passed = roll < skill
                    error = not passed and roll > 0.93
                    r = make_trial(task, domain, agent, i, passed, system_error=error, shape=t + i)
                    r = _vary(r, rng, a)
                    if a == 1 and t == 2 and i == 4:
                        # A re-run: the system error first, then the record that wins.
                        crashed = make_trial(task, domain, agent, i, False, system_error=True)
                        writer.write(crashed)
                    writer.write(r)
    # Two lines in another layout, as a hand-made or rewritten file would have them.
    path = directory / RESULTS_FILE
    text = path.read_text(encoding="utf-8").splitlines()
    text[3] = json.dumps(json.loads(text[3]))
    data = json.loads(text[10])
    text[10] = json.dumps({k: data[k] for k in reversed(list(data))})
    path.write_text("\n".join(text) + "\n", encoding="utf-8")


if __name__ == "__main__":
    write_fixture(Path(sys.argv[1]))
