"""The SkyRL, verifiers and ART examples' dry runs, and the ART rollout's failure path.

Each example's ``dry_run`` is called in-process (the examples are loaded from their
files) on two or more of retail 1.0's train tasks: golden play must score 1.0.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

pytest.importorskip("openenv")

from fixtures.rl_support import served_tasks
from fixtures.toy import SCHEMA, SEED, TOOLS
from statebox.domains import Domain
from statebox.llm import ProtocolRequest, ProtocolServer, Reply
from statebox.serve import BackgroundServer, ServeApp, TaskCatalog
from statebox.tools import tool
from statebox.world import WorldTx

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SUITE = "retail:train@1.0"


def _example(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_skyrl_example_dry_run_gets_reward_1_on_every_train_task(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _example("skyrl_train").dry_run(SUITE, False) == 1.0
    assert "mean reward 1.000 over 15 train tasks" in capsys.readouterr().out


def test_verifiers_example_dry_run_scores_1_through_the_served_taskset() -> None:
    assert asyncio.run(_example("verifiers_openenv").dry_run(SUITE, 2)) == 1.0


def test_art_example_dry_run_rolls_out_the_scripted_model_for_reward_1() -> None:
    assert asyncio.run(_example("art_rollout").dry_run(SUITE, 2)) == 1.0


@tool(mutates=True)
def explode(tx: WorldTx, account_id: str) -> None:
    """A tool whose backend dies mid-call.

    Args:
        account_id: Account id.
    """
    raise ConnectionError("backend died")


def test_art_rollout_raises_on_a_statebox_system_error_never_a_reward_of_0() -> None:
    art = _example("art_rollout")
    domain = Domain(name="toy", schema_sql=SCHEMA, seed=SEED, tools=[*TOOLS, explode], policy="")
    app = ServeApp(lambda: TaskCatalog(served_tasks(), {"toy": domain}), openenv=True)
    seen: list[Any] = []

    def model_replies(req: ProtocolRequest) -> Reply:
        seen.append(req)
        return Reply(calls=(("explode", json.dumps({"account_id": "A1"})),))

    async def go(url: str) -> None:
        async with BackgroundServer(app.app) as server:
            import httpx

            async with httpx.AsyncClient() as http:
                for _ in range(600):
                    if (await http.get(server.url + "/ready")).status_code == 200:
                        break
                    await asyncio.sleep(0.02)
            model = art._ScriptedModel(url)
            try:
                with pytest.raises(RuntimeError, match="system_error in episode"):
                    await art.rollout(model, "toy.freeze.train.001", server.url + "/openenv")
            finally:
                await model.openai_client().close()

    with ProtocolServer(model_replies) as llm:
        asyncio.run(go(llm.openai_url))
    assert len(seen) == 1  # one model turn, then the failed step ended the rollout
    assert "explode" in seen[0].tools  # the task's tools were offered as functions
