"""The scripted "perfect model": replays each task's golden trajectory over the wire.

Run it as ``python -m statebox.llm._scripted_server --suite retail`` and point the
agent, user and judge at it (``--agent openai:scripted --agent-base-url URL/v1``):
every trial then goes through the full LLM path — prompts, function schemas,
parallel tool calls, the simulated user, usage and cost — with a model that always
does the right thing. A task's score under it should be 100%; anything less is a bug
in statebox or the task. It is stateless (progress is read off the conversation), so
it can be stopped and restarted in the middle of a campaign.

How it plays each role (the trial's task comes from the ``X-Statebox-Task`` header,
else from the user's opening message when that is unique):

- agent (a request that offers tools): asks the user for the task's facts with their
  ask phrases, then sends the golden calls ``calls_per_turn`` at a time (parallel tool
  calls) with the values the user gave — asking again, or saying a value does not
  match, before a call that needs one it has not heard right — then the task's
  reference response with ``<DONE>`` (`statebox.dialogue.FactGatherer`, rebuilt from
  the conversation on every request);
- user: answers as the rule-based user would, replaying the conversation through
  `statebox.dialogue.RuleEngine` with the behaviour plan the ``X-Statebox-User``
  header names (``<behaviour>;<seed>;<trial>``), ending with the stop token when the
  rule user would end;
- judge (system prompt opening with `JUDGE_PROMPT_HEAD`): answers yes.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from statebox.dialogue import FactGatherer, RuleEngine, plan_for
from statebox.llm._messages import (
    DONE_MARKER,
    JUDGE_PROMPT_HEAD,
    TASK_HEADER,
    USER_HEADER,
    USER_STOP,
)
from statebox.llm._protocol_server import ProtocolRequest, ProtocolServer, Reply
from statebox.tasks import Task, load_tasks

__all__ = ["GoldenResponder", "main"]


class GoldenResponder:
    """Answers agent, user and judge requests by replaying tasks' golden trajectories.

    Args:
        tasks: The tasks it can play.
        calls_per_turn: Golden calls per agent reply (more than one: parallel calls).
        delay_s: Seconds each reply waits (a slower model, for runs to interrupt).
    """

    def __init__(
        self, tasks: Sequence[Task], calls_per_turn: int = 2, delay_s: float = 0.0
    ) -> None:
        self.tasks = {t.id: t for t in tasks}
        self.calls_per_turn = max(1, calls_per_turn)
        self.delay_s = delay_s

    def _task(self, req: ProtocolRequest) -> Task:
        task_id = req.headers.get(TASK_HEADER.lower())
        if task_id:
            if task_id not in self.tasks:
                raise ValueError(f"scripted model does not know task {task_id!r}")
            return self.tasks[task_id]
        texts = [req.system, *(m["text"] for m in req.messages)]
        found = [t for t in self.tasks.values() if any(t.user.opening in x for x in texts)]
        if len(found) != 1:
            raise ValueError(f"cannot tell the task ({len(found)} match); send {TASK_HEADER}")
        return found[0]

    def _reply(
        self, req: ProtocolRequest, text: str = "", calls: tuple[tuple[str, str], ...] = ()
    ) -> Reply:
        # About four characters a token: enough for usage and cost to be non-zero.
        chars = len(req.system) + sum(len(m["text"]) for m in req.messages)
        out = len(text) + sum(len(a) for _, a in calls)
        return Reply(
            text=text,
            calls=calls,
            input_tokens=chars // 4 + 1,
            output_tokens=out // 4 + 1,
            delay_s=self.delay_s,
        )

    def __call__(self, req: ProtocolRequest) -> Reply:
        """Answer one request.

        Raises:
            ValueError: The task cannot be told (answered as HTTP 400).
        """
        if req.system.startswith(JUDGE_PROMPT_HEAD):
            text = "Scripted judge: the response is taken as correct.\nANSWER: yes"
            return self._reply(req, text)
        task = self._task(req)
        if req.tools:
            return self._agent(req, task)
        return self._user(req, task)

    def _agent(self, req: ProtocolRequest, task: Task) -> Reply:
        talk = FactGatherer(task)
        done = 0
        for m in req.messages:
            if m["role"] == "user":
                talk.user_said(m["text"])
            elif m["role"] == "tool":
                done += 1
            elif m["role"] == "assistant" and m["text"] and not m["calls"]:
                talk.agent_said(m["text"])
        if done == 0:
            message = talk.opening_message()
            if message is not None:
                return self._reply(req, message)
        calls: list[tuple[str, str]] = []
        for call in task.golden[done : done + self.calls_per_turn]:
            step = talk.for_call(call.args)
            if step.kind != "call":
                if calls:
                    break  # send the calls first; the next request asks
                text = step.text if step.kind == "ask" else f"{step.text} {DONE_MARKER}"
                return self._reply(req, text)
            calls.append((call.tool, json.dumps(step.args, sort_keys=True)))
        if calls:
            return self._reply(req, calls=tuple(calls))
        final = task.reference_response or "Your request has been handled."
        text = f"{final} {DONE_MARKER}"
        return self._reply(req, text)

    def _user(self, req: ProtocolRequest, task: Task) -> Reply:
        behaviour, seed, trial = "cooperative", 0, 0
        header = req.headers.get(USER_HEADER.lower(), "")
        if header:
            parts = header.split(";")
            try:
                behaviour, seed, trial = parts[0], int(parts[1]), int(parts[2])
            except (IndexError, ValueError):
                raise ValueError(f"bad {USER_HEADER} header {header!r}") from None
        engine = RuleEngine(task.user, plan_for(task, behaviour, seed, trial))
        # The user's conversation: its opening is an assistant turn; every user turn
        # after the first (the connection notice) is an agent message.
        asked = [m["text"] for m in req.messages if m["role"] == "user"][1:]
        text, done = "I have nothing more to add.", False
        for message in asked:
            text, done = engine.reply(message)
        return self._reply(req, f"{text} {USER_STOP}" if done else text)


def _suite_tasks(name: str) -> list[Task]:
    """Both splits of a built-in suite's domains (docs/suites.md), without the registry."""
    from importlib.metadata import entry_points

    from statebox.domains import Domain
    from statebox.errors import StateboxError
    from statebox.tasks import resolve_suite, suite_tasks

    domains: dict[str, Domain] = {}
    builtin: set[str] = set()
    for ep in sorted(entry_points(group="statebox.domains"), key=lambda e: e.name):
        domain = ep.load()
        if isinstance(domain, Domain):
            domains[domain.name] = domain
            if ep.value.startswith("statebox.domains."):
                builtin.add(domain.name)
    try:
        tasks = suite_tasks(
            resolve_suite(name, domains, builtin), domains, both_splits=True, builtin=builtin
        )
    except StateboxError as exc:
        raise SystemExit(str(exc)) from None
    if not tasks:
        raise SystemExit(f"no tasks in suite {name!r}")
    return tasks


def main(argv: Sequence[str] | None = None) -> None:
    """Serve the scripted model until interrupted."""
    p = argparse.ArgumentParser(prog="python -m statebox.llm._scripted_server")
    p.add_argument(
        "--suite",
        default=None,
        help="built-in suite: all, train, DOMAIN or DOMAIN:train, optionally @VERSION",
    )
    p.add_argument("--tasks", type=Path, action="append", help="task file or folder")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--port-file", type=Path, help="write the bound port here")
    p.add_argument("--calls-per-turn", type=int, default=2)
    p.add_argument("--delay-s", type=float, default=0.0, help="wait before each reply")
    p.add_argument(
        "--vllm-tokens",
        action="store_true",
        help="answer vLLM's return_token_ids and logprobs (byte-level token ids)",
    )
    args = p.parse_args(argv)
    tasks = load_tasks(args.tasks) if args.tasks else _suite_tasks(args.suite or "all")
    server = ProtocolServer(
        GoldenResponder(tasks, args.calls_per_turn, args.delay_s),
        args.host,
        args.port,
        vllm_tokens=args.vllm_tokens,
    )
    if args.port_file:
        tmp = args.port_file.with_suffix(".tmp")
        tmp.write_text(str(server.port))
        tmp.replace(args.port_file)
    print(f"scripted model for {len(tasks)} tasks on {server.openai_url}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
