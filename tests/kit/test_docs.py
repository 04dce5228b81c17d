"""docs/kit.md's example domain runs, validates its tools and behaves as the doc says."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

from statebox.tools import Dispatcher, ToolCall

DOC = Path(__file__).resolve().parents[2] / "docs" / "kit.md"


def _example() -> dict[str, Any]:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    complete = [b for b in blocks if "DOMAIN = Domain(" in b]
    assert len(complete) == 1
    namespace: dict[str, Any] = {}
    exec(compile(complete[0], str(DOC), "exec"), namespace)
    return namespace


def test_the_example_domain_in_the_doc_works() -> None:
    domain = _example()["DOMAIN"]
    assert domain.offered() == (
        "create_ticket", "escalate_ticket", "get_member", "get_ticket", "hold_ticket",
        "list_member_tickets", "update_ticket", "verify_member",
    )  # fmt: skip
    world = domain.template().clone(datetime.fromisoformat("2026-03-01T09:00:00+00:00"))
    try:
        d = Dispatcher(world, domain.tools, domain.offered())

        def run(tool: str, **args: object) -> Any:
            return d.call(ToolCall(tool=tool, args=args))

        refused = run("create_ticket", member_id="M-1", category="access", subject="Locked out")
        assert refused.error is not None and refused.error.kind == "not_permitted"
        assert run("verify_member", member_id="M-1", email="ann@example.com").output["verified"]
        created = run("create_ticket", member_id="M-1", category="access", subject="Locked out")
        assert created.ok and created.output["id"] == "T-501"
        escalated = run("escalate_ticket", ticket_id="T-501", team="security", reason="lockout")
        assert escalated.ok and escalated.output["team"] == "security"
        found = domain.knowledge_base().search("lockout escalate", 1)
        assert found[0]["title"] == "2. Tickets"
    finally:
        world.close()


def test_the_harness_example_in_the_doc_runs_on_a_built_in_domain() -> None:
    from statebox.domains.neobank_it import DOMAIN

    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    [harness] = [b for b in blocks if "from statebox.testing import" in b]
    exec(compile(harness, str(DOC), "exec"), {"DOMAIN": DOMAIN})
