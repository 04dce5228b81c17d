"""neobank_it's tool preconditions that v2 tasks recover from, beyond the rules of
test_tool_rules.py (an expired grant, an account with grants left): one open request per
system, and a wipe confirmation names a device."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from fixtures.domain_desks import NEOBANK_NOW, domain
from statebox.testing import Desk


@pytest.fixture
def desk() -> Iterator[Desk]:
    with Desk.seeded(domain("neobank_it"), NEOBANK_NOW) as d:
        yield d


def test_a_second_pending_request_for_a_system_is_refused(desk: Desk) -> None:
    args = {
        "employee_id": "EMP-0043",
        "system_id": "SYS-DWH",
        "role": "read",
        "requested_days": 30,
        "justification": "Monthly report.",
    }
    assert desk("create_access_request", **args).succeeded()["id"] == "AR-00501"
    desk("create_access_request", **{**args, "role": "write"}).refused("invalid_state", "AR-00501")
    # Another system is a request of its own.
    desk("create_access_request", **{**args, "system_id": "SYS-KYC"}).succeeded()


def test_a_wipe_confirmation_names_a_device(desk: Desk) -> None:
    confirm = {"employee_id": "EMP-0045", "topic": "remote_wipe"}
    out = desk("record_confirmation", **confirm, related_id="DEV-0045").succeeded()
    assert out["related_id"] == "DEV-0045"
    desk("record_confirmation", **confirm, related_id="X").refused("not_found")
