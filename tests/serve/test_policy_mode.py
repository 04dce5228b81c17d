"""A server's policy mode reaches its episodes and the OpenEnv observation."""

from __future__ import annotations

import asyncio

import pytest
from serving import serve_tasks

from fixtures.toy import make_domain
from statebox.serve import TaskCatalog
from statebox.serve._openenv import _observation
from statebox.serve._sessions import Session


@pytest.mark.parametrize("mode", [None, "search"])
def test_the_catalog_serves_every_episode_in_its_mode(mode: str | None) -> None:
    task = serve_tasks()[0]
    catalog = TaskCatalog([task], {"toy": make_domain()}, policy_mode=mode)  # type: ignore[arg-type]
    session = Session(catalog.episode(task), catalog)
    try:
        obs = asyncio.run(session.reset())
        seen = _observation(session, obs)
    finally:
        session.close()
    searching = mode == "search"
    assert seen.policy_mode == (mode or "prompt")
    assert any(t["name"] == "search_policy" for t in seen.tools) == searching
    assert ("Be careful with money." in seen.policy) == (not searching)
    assert ("search_policy" in seen.policy) == searching
