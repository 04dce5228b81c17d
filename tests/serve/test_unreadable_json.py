"""JSON no route can read or echo is the client's 400, never a 500 with a traceback.

Found in review: a lone surrogate in a JSON-RPC id (``"\\ud800"``), in an argument's
name or in a notification's method, an integer literal of 5,000 digits, and NaN as an
id or a task index each made a route fail while answering (HTTP 500 and a traceback
in the log, which any client could repeat at will).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

pytest.importorskip("openenv")

from serving import create, serving

JSON = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
HUGE = "9" * 5000


def _call(rid: str, arguments: str) -> str:
    params = f'{{"name":"get_account","arguments":{arguments}}}'
    return f'{{"jsonrpc":"2.0","id":{rid},"method":"tools/call","params":{params}}}'


GATEWAY = {
    "a lone surrogate in the id": (_call('"\\ud800"', '{"account_id":"A1"}'), 400),
    "a ping with that id (the SDK's path)": (
        '{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}',
        400,
    ),
    "5,000 digits in an argument": (_call("1", f'{{"account_id":{HUGE}}}'), 400),
    "5,000 digits in the id": (f'{{"jsonrpc":"2.0","id":{HUGE},"method":"tools/list"}}', 400),
    # The episode cleans an argument's name as it cleans values: the call is answered.
    "a lone surrogate in an argument's name": (_call("1", '{"\\ud800":"A1"}'), 200),
}
OPENENV = {
    "/mcp": [
        '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"session_id":"\\ud800"}}',
        '{"jsonrpc":"2.0","id":"\\ud800","method":"tools/list","params":{}}',
        '{"jsonrpc":"2.0","id":NaN,"method":"openenv/session/create","params":{}}',
        '{"jsonrpc":"2.0","method":"notifications/\\ud800"}',
        f'{{"jsonrpc":"2.0","id":{HUGE},"method":"tools/list","params":{{}}}}',
    ],
    "/statebox/task": ['{"split":"train","index":NaN}', '{"split":"\\ud800","index":0}'],
    # openenv's own 422 quotes the input: a lone surrogate in it failed the answer.
    "/reset": ['{"task_id":"\\ud800","seed":"\\ud800"}'],
    "/step": ['{"episode_id":"e","action":{"kind":"\\ud800"}}', '{"timeout_s":"\\ud800"}'],
}


def test_json_no_route_can_read_or_echo_is_a_400_and_logs_no_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    got: dict[str, Any] = {}

    async def go() -> None:
        async with serving(openenv=True) as s:
            info = await create(s, "toy.freeze.train.001")
            headers = {**JSON, "Authorization": f"Bearer {info['mcp_token']}"}
            for label, (body, _) in GATEWAY.items():
                r = await s.http.post(info["mcp_url"], content=body, headers=headers)
                got[label] = (r.status_code, r.json())
            for path, bodies in OPENENV.items():
                for body in bodies:
                    r = await s.http.post(f"/openenv{path}", content=body, headers=JSON)
                    got[f"{path} {body[:60]}"] = (r.status_code, r.json())

    with caplog.at_level(logging.INFO):
        asyncio.run(go())
    for label, (_, status) in GATEWAY.items():
        assert got[label][0] == status, (label, got[label])
        if status == 400:  # as the SDK's transport answers a request it cannot read
            assert got[label][1]["error"]["code"] in (-32700, -32600), got[label]
    openenv = {k: v for k, v in got.items() if k.startswith("/")}
    assert len(openenv) == 10, openenv
    assert all(status in (400, 422) for status, _ in openenv.values()), openenv
    assert "Traceback" not in caplog.text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
