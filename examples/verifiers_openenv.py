"""statebox as a verifiers taskset, through verifiers' own OpenEnv taskset.

    statebox serve --openenv --suite retail:train        # train tasks only
    python examples/verifiers_openenv.py --url http://127.0.0.1:8000/openenv > taskset.json

prints the fields of verifiers 0.4.0's ``OpenEnvConfig`` (``base_url`` and one
``resets`` entry per served train task), for ``OpenEnvConfig(**json.load(...))`` in a
verifiers environment. verifiers then plays each task: the model's reply is a JSON
action (``{"kind": "call_tool", "tool", "args"}``, ``{"kind": "message_user", "text"}``
or ``{"kind": "end", "text"}``, the schema it is shown), the rollout's score is the
sum of the steps' rewards, which is the terminal verdict (1.0 or 0.0). A step statebox
cannot run raises in openenv's client, and verifiers records an error, not a 0.

verifiers pins ``mcp==2.0.0``, which cannot be installed beside statebox's ``mcp<2``:
run it in its own environment against the server.

``--dry-run`` needs neither: it serves ``--suite``'s train tasks in-process on
loopback, builds the taskset from the server, and plays each task's golden actions
with openenv's ``GenericEnvClient`` as verifiers' loop does, printing the scores.
"""

from __future__ import annotations

import argparse
import asyncio
import json

from statebox.rl.verifiers import openenv_taskset


async def dry_run(suite: str, limit: int | None) -> float:
    """Serve ``suite``'s train tasks and play each one's golden actions as verifiers would."""
    import httpx
    from openenv.core.generic_client import GenericEnvClient

    from statebox.rl.trl import for_suite
    from statebox.serve import BackgroundServer, ServeApp

    env_cls, _ = for_suite(suite)
    catalog = env_cls.catalog
    app = ServeApp(lambda: catalog, openenv=True)
    scores = []
    async with BackgroundServer(app.app) as server, httpx.AsyncClient() as http:
        for _ in range(600):
            if (await http.get(server.url + "/ready")).status_code == 200:
                break
            await asyncio.sleep(0.05)
        config = await asyncio.to_thread(openenv_taskset, server.url + "/openenv")
        for reset in config["resets"][:limit]:
            task = catalog.task(reset["task_id"])
            actions = [
                {"kind": "call_tool", "tool": c.tool, "args": c.args} for c in task.golden
            ] + [{"kind": "end", "text": task.reference_response or "Done."}]
            total = 0.0
            async with GenericEnvClient(base_url=config["base_url"]) as client:
                result = await client.reset(**reset)
                for action in actions:
                    if result.done:
                        break
                    result = await client.step(action)
                    total += result.reward or 0.0
            scores.append(total)
            print(f"{reset['task_id']}: score {total}")
    mean = sum(scores) / len(scores)
    print(f"golden actions: mean score {mean:.3f} over {len(scores)} train tasks")
    return mean


def main() -> None:
    """Print the taskset fields of a running server, or dry-run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000/openenv")
    parser.add_argument("--split", default="train")
    parser.add_argument("--suite", default="retail:train", help="--dry-run's suite")
    parser.add_argument("--limit", type=int, default=None, help="--dry-run: first N tasks")
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args()
    if args.dry_run:
        asyncio.run(dry_run(args.suite, args.limit))
    else:
        print(json.dumps(openenv_taskset(args.url, args.split), indent=2))


if __name__ == "__main__":
    main()
