"""``statebox play TASK``: a person acts as the agent at the terminal.

The way task authors check that a task is solvable and fair: the person sees what an
agent sees — the user's words, the allowlisted tools, the policy, tool results — and
acts with ``call TOOL {json}``, ``say TEXT`` and ``done TEXT``. The user is the task's
rule-based user, an LLM (``--user openai:MODEL``) or, for rehearsals, another person.
At the end the trial is judged like any other and the checks are printed. With
``--record OUT.yaml`` the calls made become the golden trajectory of a task written to
OUT (`statebox.cli._record`). Input that ends (a piped file) ends the episode as
``done`` with no text would.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from statebox.cli._app import SUITE_HELP, DomainOption, app, handled
from statebox.errors import ConfigError

__all__ = ["NO_USER", "HumanAgent", "drive", "play"]

NO_USER = (
    "There is no user yet: this world has no task. Make the calls the task needs, then "
    "end with `done TEXT` (the reply the agent should end with); `say` has no one to "
    "answer it. Write the user's opening and facts into the task file afterwards."
)
"""What an author acting on a world with no task is told (and told again on ``say``)."""

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
        read: Reads one line given a prompt (EOFError: the input ended).
        write: Shows one block of text.
        user: Whether a user answers ``say``; False where there is none yet (``statebox
            tasks new``): ``say`` is then refused with a hint.
    """

    name = "human"

    def __init__(
        self,
        read: Callable[[str], str] = input,
        write: Callable[[str], None] = print,
        *,
        user: bool = True,
    ) -> None:
        self._read = read
        self._write = write
        self._user = user
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
            if not self._user:
                self._write(NO_USER)
                return
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
            try:
                line = (await asyncio.to_thread(self._read, "agent> ")).strip()
            except EOFError:
                self._write("input ended: the episode ends here (as `done` with no text)")
                return End(text="")
            verb, _, rest = line.partition(" ")
            if verb == "say" and rest and not self._user:
                self._write(NO_USER)
            elif verb == "say" and rest:
                return MessageUser(text=rest)
            elif verb == "done":
                return End(text=rest)
            elif verb == "call" and rest:
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


async def drive(episode: Any, agent: HumanAgent) -> None:
    """Play ``episode`` to its end with ``agent``."""
    obs = await episode.reset()
    while not obs.done:
        obs = await episode.step(await agent.act(obs))


RecordOption = Annotated[
    Path | None,
    typer.Option(
        help="Write the calls you make as the golden trajectory of a task to this YAML file."
    ),
]
ForceOption = Annotated[
    bool, typer.Option("--force", help="With --record: replace the file if it exists.")
]


@app.command()
@handled
def play(
    task_id: Annotated[
        str, typer.Argument(help="Task id, e.g. retail.orders.cancel-one-of-two.001.")
    ],
    tasks: Annotated[
        list[Path] | None, typer.Option(help="Task YAML file or folder (default: installed).")
    ] = None,
    suite: Annotated[str | None, typer.Option(help=SUITE_HELP)] = None,
    domain: DomainOption = None,
    user: Annotated[
        str, typer.Option(help="The customer: rule, human, openai:MODEL or anthropic:MODEL.")
    ] = "rule",
    user_base_url: Annotated[str | None, typer.Option(help="User model endpoint.")] = None,
    models: Annotated[Path | None, typer.Option(help="Models file (YAML).")] = None,
    record: RecordOption = None,
    force: ForceOption = False,
) -> None:
    """Play one task as the agent at the terminal, then see its verdict.

    With --record OUT.yaml the calls you make (refused ones as `fails: KIND`) become the
    golden trajectory of a task written to OUT, with the task's user, checks and world,
    your `done TEXT` as its reference reply, and commented notes: what the calls change
    table by table, and checks to consider.
    """
    from statebox.cli._commands import _registry
    from statebox.cli._models import run_models
    from statebox.episode import Episode
    from statebox.judge import Judge
    from statebox.settings import Settings

    if record is not None:
        from statebox.cli._record import check_target

        check_target(record, force)
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
    # An author plays train tasks too.
    task = find_task(registry, task_id, tasks or None, suite, both_splits=True)
    d = registry.domain(task.domain)
    from statebox.users import RuleUser

    simulated = roles.users(task, 0) if roles.users else RuleUser(task)

    async def go() -> tuple[Any, tuple[Any, ...]]:
        episode = Episode(d, task, simulated)
        try:
            await drive(episode, HumanAgent())
            outcome = episode.outcome()
            judged = await Judge(
                d, episode.worlds, roles.rubric, skip_rubric=roles.rubric is None
            ).judge(task, outcome)
            return judged, outcome.transcript
        finally:
            episode.close()
            await roles.setup.aclose()

    verdict, transcript = asyncio.run(go())
    typer.echo(f"\n{'PASSED' if verdict.passed else 'FAILED'}: {task.id}")
    for c in verdict.checks:
        mark = "unjudged" if c.skipped else ("ok" if c.passed else "FAIL")
        typer.echo(f"  [{mark}] {c.name}: {c.detail}")
    if record is not None:
        from statebox.cli._record import Recording, save_recording
        from statebox.tasks import task_data

        accepted = verdict.comparison.matches
        failed = [c.name for c in verdict.checks if not c.passed and not c.skipped]
        note = (
            (
                f"Its end state is an accepted end state of {task.id} as it was."
                if not failed
                else f"Its end state is an accepted end state of {task.id} as it was, but "
                f"check(s) {', '.join(failed)} failed: the oracle repeats these calls and "
                "this reply, so validation will refuse the task until they pass."
            )
            if accepted
            else f"Its end state differs from every accepted end state of {task.id} as it "
            f"was ({verdict.comparison.size} difference(s)): its golden state is now the "
            "one these calls leave."
        )
        save_recording(
            d,
            task_data(task),
            Recording(transcript),
            record,
            force,
            made_by=f"statebox play {task.id} --record",
            notes=[note],
            domain_refs=domain or [],
        )


def find_task(
    registry: Any,
    task_id: str,
    paths: Path | list[Path] | None,
    suite: str | None = None,
    *,
    both_splits: bool = False,
) -> Any:
    """The task ``task_id`` from task files, a suite, or the suite of the domain it names.

    With neither files nor a suite, an id whose first part is an installed domain is
    looked up in that domain's tasks only (reading every suite would take seconds).

    Raises:
        ConfigError: No such task (the closest ids named), or both files and a suite.
    """
    from statebox.tasks import load_tasks

    if suite is not None and paths is not None:
        raise ConfigError("give --suite or task files, not both")
    if paths is not None:
        pool, where = (
            load_tasks(paths),
            ", ".join(map(str, [paths] if isinstance(paths, Path) else paths)),
        )
    else:
        first = task_id.split(".")[0]
        own = suite is None and first in registry.domain_names()
        ref = registry.resolve_suite(first if own else suite or "all")
        pool, where = registry.suite(ref, both_splits=both_splits), f"suite {ref}"
    found = [t for t in pool if t.id == task_id]
    if not found:
        hint = near_ids(task_id, [t.id for t in pool])
        raise ConfigError(f"no task {task_id!r} in {where}{hint}")
    return found[0]


def near_ids(wanted: str, ids: list[str]) -> str:
    """``; did you mean ...`` with the ids closest to ``wanted`` ('' when none is close)."""
    import difflib

    near = [i for i in ids if wanted in i][:5] or difflib.get_close_matches(
        wanted, ids, n=5, cutoff=0.8
    )
    return f"; did you mean {', '.join(near)}" if near else ""
