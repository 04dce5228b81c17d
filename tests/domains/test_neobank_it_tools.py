"""neobank_it's tool preconditions that v2 tasks recover from: each refuses the natural
first attempt with the kind and message the policy points to, and allows the fix."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import pytest

from statebox.domains.neobank_it import DOMAIN
from statebox.tools import Dispatcher, ToolCall
from statebox.world import World

NOW = datetime.fromisoformat("2026-03-02T14:00:00+00:00")


@pytest.fixture
def world() -> Iterator[World]:
    w = DOMAIN.template().clone(NOW)
    try:
        yield w
    finally:
        w.close()


def _call(world: World, tool: str, **args: object) -> tuple[bool, str, object]:
    result = Dispatcher(world, DOMAIN.tools, None).call(ToolCall(tool=tool, args=args))
    if result.ok:
        return True, "", result.output
    assert result.error is not None
    return False, result.error.kind, result.error.message


def test_an_expired_grant_is_not_extended_but_a_current_one_is(world: World) -> None:
    with world.transaction() as tx:
        tx.update("access_grants", {"id": "GR-00001"}, {"expires_on": "2026-02-27"})
    ok, kind, message = _call(world, "extend_access", grant_id="GR-00001", expires_on="2026-04-01")
    assert (ok, kind) == (False, "invalid_state")
    assert "expired on 2026-02-27" in str(message) and "new access request" in str(message)
    ok, _, out = _call(world, "extend_access", grant_id="GR-00002", expires_on="2026-04-01")
    assert ok and isinstance(out, dict) and out["expires_on"] == "2026-04-01"


def test_a_second_pending_request_for_a_system_is_refused(world: World) -> None:
    args = {
        "employee_id": "EMP-0043",
        "system_id": "SYS-DWH",
        "role": "read",
        "requested_days": 30,
        "justification": "Monthly report.",
    }
    first = _call(world, "create_access_request", **args)
    assert first[0] and isinstance(first[2], dict) and first[2]["id"] == "AR-00501"
    ok, kind, message = _call(world, "create_access_request", **{**args, "role": "write"})
    assert (ok, kind) == (False, "invalid_state") and "AR-00501" in str(message)
    # Another system is a request of its own.
    assert _call(world, "create_access_request", **{**args, "system_id": "SYS-KYC"})[0]


def test_an_account_is_disabled_only_after_its_grants_are_revoked(world: World) -> None:
    grants = [
        str(g["id"])
        for g in world.query(
            "SELECT id FROM access_grants WHERE employee_id = 'EMP-0045' AND status = 'active' "
            "ORDER BY id"
        )
    ]
    assert grants
    ok, kind, message = _call(world, "disable_account", employee_id="EMP-0045")
    assert (ok, kind) == (False, "invalid_state")
    assert all(g in str(message) for g in grants)
    for g in grants:
        assert _call(world, "revoke_access", grant_id=g, reason="offboarding")[0]
    ok, _, out = _call(world, "disable_account", employee_id="EMP-0045")
    assert ok and isinstance(out, dict) and out["sso_status"] == "disabled"


def test_a_wipe_confirmation_names_a_device(world: World) -> None:
    ok, _, out = _call(
        world,
        "record_confirmation",
        employee_id="EMP-0045",
        topic="remote_wipe",
        related_id="DEV-0045",
    )
    assert ok and isinstance(out, dict) and out["related_id"] == "DEV-0045"
    ok, kind, _ = _call(
        world, "record_confirmation", employee_id="EMP-0045", topic="remote_wipe", related_id="X"
    )
    assert (ok, kind) == (False, "not_found")
