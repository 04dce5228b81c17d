"""An ART ``rollout()`` on statebox's OpenEnv server: the verdict is the trajectory's reward.

Follows OpenPipe ART 0.5.18 (``pip install openpipe-art``; training needs its
``backend`` extra and a GPU): a rollout is an async function of the model and a
scenario that returns an ``art.Trajectory`` (``messages_and_choices``, ``tools``,
``reward``, ``metadata``); ``art.gather_trajectory_groups`` runs many, and a rollout
that raises is counted as an exception and left out of its group (up to
``max_exceptions``). Here the model is reached through ``model.openai_client()`` and
``model.get_inference_name()``, and the environment through statebox's OpenEnv client:

    statebox serve --openenv --suite retail:train        # train tasks only
    python examples/art_rollout.py --url http://127.0.0.1:8000/openenv --base-model Qwen/Qwen3-4B

- The task's allowlisted tools become the model's function tools; each call is one
  episode step. A reply without a tool call goes to the simulated user, whose reply
  comes back as the next user message; a reply with ``<DONE>`` is the final response.
- The terminal step's reward (1.0 iff statebox's verdict passed, else 0.0) is the
  trajectory's reward.
- A step statebox cannot run raises (``system_error in episode ...``) out of the
  rollout: ART drops it as an exception instead of training on a reward of 0.

``--dry-run`` needs no ART, model or GPU: it serves ``--suite``'s train tasks in-process
on loopback, plays each one through this ``rollout()`` with statebox's scripted perfect
model behind an OpenAI-compatible loopback server, and prints the rewards (all 1.0).
"""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

from statebox.llm import DONE_MARKER, task_headers
from statebox.serve import StateboxAction, StateboxEnvClient

MAX_TURNS = 30

try:
    from art import Trajectory
except ModuleNotFoundError:  # --dry-run without ART: the fields a rollout fills in

    class Trajectory:  # type: ignore[no-redef]
        """What `rollout` fills in of ``art.Trajectory`` (ART 0.5.18's fields)."""

        def __init__(self, **fields: Any) -> None:
            self.messages_and_choices: list[Any] = fields.get("messages_and_choices", [])
            self.tools: list[dict[str, Any]] | None = fields.get("tools")
            self.reward: float = fields.get("reward", 0.0)
            self.metadata: dict[str, Any] = fields.get("metadata", {})

        def finish(self) -> Trajectory:
            """The trajectory, done (ART records its duration)."""
            return self


SYSTEM = (
    "You are a customer-support agent. Follow the policy below exactly; use the tools to "
    "look things up and make changes. Reply to the customer in plain text; when the "
    f"request is handled, write your final message and end it with {DONE_MARKER}."
)


async def rollout(model: Any, task_id: str, url: str) -> Trajectory:
    """One episode of ``task_id`` on the statebox OpenEnv server at ``url``.

    Raises:
        RuntimeError: statebox could not run a step (the message names the episode).
    """
    client = model.openai_client()
    name = model.get_inference_name()
    async with StateboxEnvClient(base_url=url) as env:
        result = await env.reset(task_id=task_id)
        obs = result.observation
        tools = [
            {
                "type": "function",
                "function": {
                    "name": t["name"],
                    "description": t["description"],
                    "parameters": t["input_schema"],
                },
            }
            for t in obs.tools
        ]
        messages: list[Any] = [
            {"role": "system", "content": f"{SYSTEM}\n\n# Policy\n\n{obs.policy or ''}"},
            {"role": "user", "content": obs.user_message or ""},
        ]
        traj = Trajectory(
            messages_and_choices=list(messages), tools=tools, reward=0.0, metadata={"task": task_id}
        )
        headers = task_headers(task_id, str(client.base_url))  # loopback models only
        for _ in range(MAX_TURNS):
            completion = await client.chat.completions.create(
                model=name, messages=messages, tools=tools, extra_headers=headers
            )
            choice = completion.choices[0]
            traj.messages_and_choices.append(choice)  # ART trains on the Choice itself
            message = choice.message
            messages.append(message.model_dump(exclude_none=True))
            if message.tool_calls:
                for call in message.tool_calls:
                    try:
                        args = json.loads(call.function.arguments or "{}")
                    except json.JSONDecodeError:
                        args = {"_invalid_json_arguments": call.function.arguments}
                    step = await env.step(
                        StateboxAction(kind="call_tool", tool=call.function.name, args=args)
                    )
                    tool = {
                        "role": "tool",
                        "tool_call_id": call.id,
                        "content": json.dumps(step.observation.tool_result),
                    }
                    messages.append(tool)
                    traj.messages_and_choices.append(tool)
                    if step.done:  # a statebox limit ended the episode
                        traj.reward = step.reward or 0.0
                        return traj.finish()
                continue
            text = message.content or ""
            if DONE_MARKER in text:
                end = await env.step(
                    StateboxAction(kind="end", text=text.replace(DONE_MARKER, "").strip())
                )
                traj.reward = end.reward or 0.0
                traj.metadata["passed"] = bool(end.reward)
                return traj.finish()
            step = await env.step(StateboxAction(kind="message_user", text=text))
            if step.done:
                traj.reward = step.reward or 0.0
                return traj.finish()
            user = {"role": "user", "content": step.observation.user_message or ""}
            messages.append(user)
            traj.messages_and_choices.append(user)
        end = await env.step(StateboxAction(kind="end", text=""))  # out of turns: judged
        traj.reward = end.reward or 0.0
        return traj.finish()


class _ScriptedModel:
    """``--dry-run``'s model: statebox's scripted perfect model, as ART's model is reached."""

    def __init__(self, base_url: str) -> None:
        import openai

        self._client = openai.AsyncOpenAI(base_url=base_url, api_key="not-needed", max_retries=0)

    def openai_client(self) -> Any:
        """The OpenAI client of the scripted server."""
        return self._client

    def get_inference_name(self) -> str:
        """The model name the server answers to."""
        return "scripted"


async def dry_run(suite: str, limit: int | None) -> float:
    """Serve ``suite``'s train tasks on loopback and roll each out with the scripted model."""
    from statebox.llm import ProtocolServer
    from statebox.llm._scripted_server import GoldenResponder
    from statebox.rl.trl import for_suite
    from statebox.serve import BackgroundServer, ServeApp

    env_cls, rows = for_suite(suite)
    catalog = env_cls.catalog
    ids = [r["task_id"] for r in rows][:limit]
    app = ServeApp(lambda: catalog, openenv=True)
    rewards = []
    with ProtocolServer(GoldenResponder(list(catalog.tasks.values()))) as llm:
        model = _ScriptedModel(llm.openai_url)
        async with BackgroundServer(app.app) as server:
            url = server.url + "/openenv"
            import httpx

            async with httpx.AsyncClient() as http:
                for _ in range(600):
                    if (await http.get(server.url + "/ready")).status_code == 200:
                        break
                    await asyncio.sleep(0.05)
            for task_id in ids:
                traj = await rollout(model, task_id, url)
                rewards.append(traj.reward)
                print(f"{task_id}: reward {traj.reward}")
        await model.openai_client().close()
    mean = sum(rewards) / len(rewards)
    print(f"scripted model: mean reward {mean:.3f} over {len(rewards)} train tasks")
    return mean


async def train(args: argparse.Namespace) -> None:
    """ART's training loop over the served train tasks (needs ``openpipe-art[backend]``)."""
    import art
    from art.local import LocalBackend

    from statebox.rl.verifiers import openenv_taskset  # the served train split's task ids

    ids = [r["task_id"] for r in openenv_taskset(args.url)["resets"]]
    model = art.TrainableModel(name=args.name, project="statebox", base_model=args.base_model)
    await model.register(LocalBackend())
    for _ in range(args.steps):
        groups = await art.gather_trajectory_groups(
            (
                art.TrajectoryGroup(
                    rollout(model, task_id, args.url) for _ in range(args.group_size)
                )
                for task_id in ids
            ),
            max_exceptions=args.group_size * len(ids),  # a statebox system error: dropped
        )
        await model.train(groups)


def main() -> None:
    """Parse the arguments; dry-run or train."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000/openenv")
    parser.add_argument("--suite", default="retail:train", help="--dry-run's suite")
    parser.add_argument("--limit", type=int, default=None, help="--dry-run: first N tasks")
    parser.add_argument("--dry-run", action="store_true", help="scripted model, no ART")
    parser.add_argument("--base-model", default="Qwen/Qwen3-4B")
    parser.add_argument("--name", default="statebox-agent")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--group-size", type=int, default=8)
    args = parser.parse_args()
    asyncio.run(dry_run(args.suite, args.limit) if args.dry_run else train(args))


if __name__ == "__main__":
    main()
