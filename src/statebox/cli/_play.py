"""``statebox play TASK``: a person acts as the agent at the terminal.

The way task authors check that a task is solvable and fair: the person sees what an
agent sees — the user's words, the allowlisted tools, the policy, tool results — and
acts with ``call TOOL {json}``, ``say TEXT`` and ``done TEXT``. The user is the task's
rule-based user, an LLM (``--user openai:MODEL``) or, for rehearsals, another person.
At the end the trial is judged like any other and the checks are printed.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from statebox.cli._app import DomainOption, app, handled
from statebox.errors import ConfigError

__all__ = ["HumanAgent", "play"]

_HELP = """commands:
  call TOOL {json}   call a tool, e.g. call get_order {"order_id": "ORD-1"}
  say TEXT           message the customer and wait for the reply
  done TEXT          final message to the customer; ends the episode
  tools              list the tools and their arguments
  policy             print the policy
  help               this text"""


class HumanAgent:
    """A person typing the agent's actions.

    Args:
        read: Reads one line given a prompt.
        write: Shows one block of text.
    """

    name = "human"

    def __init__(
        self, read: Callable[[str], str] = input, write: Callable[[str], None] = print
    ) -> None:
        self._read = read
        self._write = write
        self._tools: dict[str, Any] = {}
        self._policy = ""

    @property
    def config(self) -> dict[str, Any]:
        """Empty: a person has no settings."""
        return {}

    def _show(self, obs: Any) -> None:
        if obs.kind == "start":
            self._tools = {t.name: t for t in obs.tools}
            self._policy = obs.policy
            self._write(f"{len(self._tools)} tools: {', '.join(self._tools)}\n{_HELP}")
        if obs.user_message is not None:
            self._write(f"customer: {obs.user_message}")
        if obs.tool_result is not None:
            r = obs.tool_result
            body = r.output if r.ok else (r.error.model_dump() if r.error else None)
            self._write(f"{'ok' if r.ok else 'error'}: {json.dumps(body, indent=2, default=str)}")

    async def act(self, obs: Any) -> Any:
        """Show the observation; read commands until one is an action."""
        from statebox.episode import CallTool, End, MessageUser
        from statebox.tools import ToolCall

        self._show(obs)
        while True:
            line = (await asyncio.to_thread(self._read, "agent> ")).strip()
            verb, _, rest = line.partition(" ")
            if verb == "say" and rest:
                return MessageUser(text=rest)
            if verb == "done":
                return End(text=rest)
            if verb == "call" and rest:
                name, _, raw = rest.partition(" ")
                try:
                    args = json.loads(raw or "{}")
                except ValueError as exc:
                    self._write(f"arguments are not JSON: {exc}")
                    continue
                if isinstance(args, dict):
                    return CallTool(call=ToolCall(tool=name, args=args))
                self._write("arguments must be a JSON object")
            elif verb == "tools":
                for t in self._tools.values():
                    props = t.input_schema.get("properties", {})
                    self._write(f"{t.name}({', '.join(props)}): {t.description.splitlines()[0]}")
            elif verb == "policy":
                self._write(self._policy)
            else:
                self._write(_HELP)


@app.command()
@handled
def play(
    task_id: Annotated[str, typer.Argument(help="Task id, e.g. retail.returns.approve.001.")],
    tasks: Annotated[
        list[Path] | None, typer.Option(help="Task YAML file or folder (default: installed).")
    ] = None,
    domain: DomainOption = None,
    user: Annotated[
        str, typer.Option(help="The customer: rule, human, openai:MODEL or anthropic:MODEL.")
    ] = "rule",
    user_base_url: Annotated[str | None, typer.Option(help="User model endpoint.")] = None,
    models: Annotated[Path | None, typer.Option(help="Models file (YAML).")] = None,
) -> None:
    """Play one task as the agent at the terminal, then see its verdict."""
    from statebox.cli._commands import _registry, selected_suites
    from statebox.cli._models import run_models
    from statebox.episode import Episode
    from statebox.judge import Judge
    from statebox.settings import Settings
    from statebox.tasks import load_tasks

    settings = Settings.model_validate(
        {
            "user": user,
            "user_base_url": user_base_url,
            "models_file": models,
            "concurrency": 1,
        }
    )
    roles = run_models(settings)
    registry = _registry(domain, settings, roles.setup)
    own = selected_suites(registry, None, given=bool(tasks))
    # Every split of --domain's own tasks: an author plays train tasks too.
    pool = (
        load_tasks(tasks)
        if tasks
        else registry.suites(own, both_splits=True)
        if own
        else registry.suite("all")
    )
    found = [t for t in pool if t.id == task_id]
    if not found:
        near = [t.id for t in pool if task_id in t.id][:5]
        raise ConfigError(
            f"no task {task_id!r}" + (f"; did you mean {', '.join(near)}" if near else "")
        )
    task = found[0]
    d = registry.domain(task.domain)
    from statebox.users import RuleUser

    simulated = roles.users(task, 0) if roles.users else RuleUser(task)

    async def go() -> Any:
        episode = Episode(d, task, simulated)
        agent = HumanAgent()
        try:
            obs = await episode.reset()
            while not obs.done:
                obs = await episode.step(await agent.act(obs))
            outcome = episode.outcome()
            return await Judge(
                d, episode.worlds, roles.rubric, skip_rubric=roles.rubric is None
            ).judge(task, outcome)
        finally:
            episode.close()
            await roles.setup.aclose()

    verdict = asyncio.run(go())
    typer.echo(f"\n{'PASSED' if verdict.passed else 'FAILED'}: {task.id}")
    for c in verdict.checks:
        mark = "unjudged" if c.skipped else ("ok" if c.passed else "FAIL")
        typer.echo(f"  [{mark}] {c.name}: {c.detail}")
