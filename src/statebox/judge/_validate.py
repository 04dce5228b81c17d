"""Task validation: is the task solvable, and can its checks fail (docs/design.md §5)?

A task is valid when: its golden trajectory replays without error; the golden state
differs from the initial state (or equals it, for a read-only task); the allowlist and
golden tools exist in the domain; the oracle passes a full episode; the ``noop`` and
``refuse`` baseline agents fail one; every real mutant is caught (`_mutants`); and
every plausible alternative is accepted (`_probes`).

The episodes (oracle and baselines) run against the task's rule-based user, with every
rubric question answered *yes*: a baseline that passes then passes whatever a judge
model would say, and a baseline that fails does so on the deterministic checks alone —
so the floors hold with and without a judge model.

Everything here runs on a `StateJudge`, whatever holds its worlds: `check_task`,
`task_problems` and `validate_task` take a domain (and run the solvability lint);
`check_judged_task`, `judged_task_problems` and `validate_judged_task` any judge (an
external backend's, `statebox.backends`), whose episodes run on its own backend.
"""

from __future__ import annotations

from statebox._model import Model
from statebox.agents import AgentFactory, NoopFactory, OracleFactory, RefuseFactory, TrialContext
from statebox.domains import Domain
from statebox.episode import Episode
from statebox.errors import GoldenReplayError, StateboxError, TaskSpecError
from statebox.judge._judge import Judge, StateJudge
from statebox.judge._lint import lint_solvability
from statebox.judge._mutants import OPERATORS, MutantResult, MutationContext
from statebox.judge._probes import PROBES, ProbeContext, ProbeResult
from statebox.judge._rubric import RubricAnswer
from statebox.judge._verdict import Verdict
from statebox.tasks import Task
from statebox.users import RuleUser

__all__ = [
    "BASELINES",
    "MutantResult",
    "ProbeResult",
    "TaskCheck",
    "TaskValidation",
    "YesJudge",
    "check_judged_task",
    "check_task",
    "judged_task_problems",
    "play",
    "static_problems",
    "task_problems",
    "validate_judged_task",
    "validate_task",
]

BASELINES: tuple[AgentFactory, ...] = (NoopFactory(), RefuseFactory())
"""The baseline agents every task must fail."""


class YesJudge:
    """A rubric judge that answers every question *yes* (the floors' worst case)."""

    async def ask(self, question: str, response: str, conversation: str) -> RubricAnswer:
        """Yes, whatever was asked."""
        return RubricAnswer("yes", "validation: every rubric question is taken as yes")


_YES = YesJudge()


class TaskCheck(Model):
    """Validation short of mutants and probes: problems and the baselines' verdicts."""

    problems: tuple[str, ...]
    """Every reason the task is invalid (empty when valid)."""
    baselines: dict[str, bool] = {}
    """Baseline agent name → whether it passed (empty when the task could not run, or
    the baselines were not played)."""


class TaskValidation(Model):
    """The validation of one task."""

    task_id: str
    """Task id."""
    split: str = "test"
    """The task's split (the floors are counted over test tasks)."""
    problems: tuple[str, ...]
    """Every reason the task is invalid (empty when valid), survivors and rejected
    probes aside."""
    mutants: tuple[MutantResult, ...] = ()
    """Every mutant tried."""
    probes: tuple[ProbeResult, ...] = ()
    """Every plausible alternative tried."""
    baselines: dict[str, bool] = {}
    """Baseline agent name → whether it passed the task (it must not)."""

    @property
    def ok(self) -> bool:
        """Valid: no problem, no surviving mutant, no rejected alternative."""
        return not self.problems and self.survived == 0 and self.rejected == 0

    def _count(self, outcome: str) -> int:
        return sum(m.outcome == outcome for m in self.mutants)

    @property
    def caught(self) -> int:
        """Mutants the checks failed."""
        return self._count("caught")

    @property
    def survived(self) -> int:
        """Real mutants the checks passed (excluded-only ones included)."""
        return self._count("survived")

    @property
    def equivalent(self) -> int:
        """Mutants whose end state is an accepted one (left out of the strength)."""
        return self._count("equivalent")

    @property
    def excluded_only(self) -> int:
        """Real mutants touching only excluded columns (each caught or survived)."""
        return sum(m.excluded_only and m.outcome != "equivalent" for m in self.mutants)

    @property
    def text_mutants(self) -> int:
        """``text_fact`` mutants tried."""
        return sum(m.kind == "text_fact" for m in self.mutants)

    @property
    def check_strength(self) -> float | None:
        """Caught ÷ (caught + survived); None with no real mutant."""
        real = self.caught + self.survived
        return self.caught / real if real else None

    @property
    def rejected(self) -> int:
        """Plausible alternatives the checks rejected."""
        return sum(p.outcome == "rejected" for p in self.probes)

    @property
    def false_rejection_rate(self) -> float | None:
        """Rejected ÷ probes run; None with no probe."""
        return self.rejected / len(self.probes) if self.probes else None


def static_problems(domain: Domain | StateJudge, task: Task) -> list[str]:
    """Problems visible without running anything: wrong domain, unknown tools.

    Args:
        domain: The task's domain, or the judge of an external backend's tasks.
        task: The task.

    Returns:
        One message per problem (empty when none).
    """
    name = domain.name
    tools = set(domain.tools) if isinstance(domain, Domain) else domain.tool_names()
    problems = []
    if task.domain != name:
        problems.append(f"task domain {task.domain!r} is not {name!r}")
    unknown = sorted(({c.tool for c in task.golden} | set(task.tools or ())) - set(tools))
    if unknown:
        problems.append(f"tools not in domain {name}: {unknown}")
    return problems


async def play(judge: StateJudge, task: Task, factory: AgentFactory) -> Verdict:
    """One full episode of ``factory``'s agent against the task's rule-based user (cooperative).

    The episode runs where the judge's trials run (its domain, or its backend: a real
    server on a fresh database) and is judged with every rubric question answered yes.
    """
    mutating = frozenset(n for n in judge.tool_names() if judge.mutates(n))
    agent = factory(TrialContext(task, 0, 0, mutating))
    episode = Episode(judge.episode_backend(), task, RuleUser(task), worlds=judge.episode_worlds())
    try:
        obs = await episode.reset()
        while not obs.done:
            obs = await episode.step(await agent.act(obs))
        return await judge.judge(task, episode.outcome(), rubric=_YES)
    finally:
        episode.close()


async def check_judged_task(
    judge: StateJudge, task: Task, *, oracle: bool = True, baselines: bool = True
) -> TaskCheck:
    """Every reason a task is invalid short of mutants, probes and the lint, on any judge.

    Static problems, a failing golden replay, a golden state that contradicts
    ``read_only``, an oracle that fails a full episode, a baseline agent (``noop``,
    ``refuse``) that passes one.

    Args:
        judge: The judge (its worlds, its golden states, its episodes).
        task: The task.
        oracle: Play the oracle's episode (which also catches a backend whose replays
            differ); False skips it where an episode costs a server start and the
            campaign's own trials will show it.
        baselines: Play the baselines' episodes (False likewise: their verdicts are then
            absent from the result).
    """
    failed: StateboxError | None = None
    if task.domain == judge.name:
        try:  # an external backend learns its tools here, so static problems come after
            await judge.prepare(task)
        except (GoldenReplayError, TaskSpecError) as exc:
            failed = exc
    problems = static_problems(judge, task)
    if problems:
        return TaskCheck(problems=tuple(problems))
    try:
        if failed is not None:
            raise failed
        golden = judge.golden_states(task)[0]
        initial = judge.initial_state(task)
    except (GoldenReplayError, TaskSpecError) as exc:
        return TaskCheck(problems=(str(exc),))
    policy = judge.policy(task)
    changed = golden.project(policy) != initial.project(policy)
    if task.read_only and changed:
        problems.append("declared read_only but the golden trajectory changes the state")
    if not task.read_only and not changed:
        problems.append("golden state equals the initial state: declare read_only or fix golden")
    if oracle:
        verdict = await play(judge, task, OracleFactory())
        if not verdict.passed:
            failed_checks = [f"{c.name}: {c.detail}" for c in verdict.checks if not c.passed]
            problems.append(f"the oracle fails its own checks: {failed_checks}")
    passed: dict[str, bool] = {}
    for factory in BASELINES if baselines else ():
        verdict = await play(judge, task, factory)
        passed[factory.name] = verdict.passed
        if verdict.passed:
            problems.append(
                f"the {factory.name} agent passes (with every rubric question taken as yes): "
                "add a check it fails — a reply check on what the reply must say, for a "
                "task that changes nothing"
            )
    return TaskCheck(problems=tuple(problems), baselines=passed)


async def check_task(
    domain: Domain, task: Task, judge: Judge | None = None, *, lint: bool = True
) -> TaskCheck:
    """`check_judged_task` on a domain, with the solvability lint (``lint``).

    The runner calls this before a campaign starts.
    """
    judge = judge or Judge(domain)
    extra: list[str] = []
    if lint and not static_problems(domain, task):
        try:
            judge.golden_states(task)
            extra = [str(p) for p in lint_solvability(domain, task, judge)]
        except (GoldenReplayError, TaskSpecError):
            pass  # check_judged_task reports it
    checked = await check_judged_task(judge, task)
    return TaskCheck(problems=(*extra, *checked.problems), baselines=checked.baselines)


async def task_problems(
    domain: Domain, task: Task, judge: Judge | None = None, *, lint: bool = True
) -> list[str]:
    """The problems of `check_task`.

    Returns:
        One message per problem (empty when none).
    """
    return list((await check_task(domain, task, judge, lint=lint)).problems)


async def judged_task_problems(
    judge: StateJudge, task: Task, *, oracle: bool = True, baselines: bool = True
) -> list[str]:
    """The problems of `check_judged_task` (same arguments).

    Returns:
        One message per problem (empty when none).
    """
    checked = await check_judged_task(judge, task, oracle=oracle, baselines=baselines)
    return list(checked.problems)


async def validate_task(domain: Domain, task: Task, judge: Judge | None = None) -> TaskValidation:
    """Validate one task (`check_task`), run its mutants and its probes.

    Args:
        domain: The task's domain.
        task: The task.
        judge: A judge to reuse (its golden cache); a fresh one otherwise.

    Returns:
        A `TaskValidation` listing every problem, mutant, probe and baseline verdict.
    """
    judge = judge or Judge(domain)
    return await _mutants_and_probes(judge, task, await check_task(domain, task, judge))


async def validate_judged_task(judge: StateJudge, task: Task) -> TaskValidation:
    """`validate_task` on any judge's worlds (an external backend's), without the lint.

    Returns:
        A `TaskValidation` listing every problem, mutant, probe and baseline verdict.
    """
    return await _mutants_and_probes(judge, task, await check_judged_task(judge, task))


async def _mutants_and_probes(judge: StateJudge, task: Task, checked: TaskCheck) -> TaskValidation:
    base = {"task_id": task.id, "split": task.split, "problems": checked.problems}
    if static_problems(judge, task):
        return TaskValidation(**base)
    try:
        judge.golden_states(task)
    except (GoldenReplayError, TaskSpecError):
        return TaskValidation(**base)
    golden_world = await judge.replay_world(task, task.golden)
    try:
        ctx = MutationContext(task, judge, golden_world)
        mutants = [m for op in OPERATORS async for m in op(ctx)]
    finally:
        golden_world.close()
    pctx = ProbeContext(task, judge)
    probes = [p for probe in PROBES async for p in probe(pctx)]
    return TaskValidation(
        **base, mutants=tuple(mutants), probes=tuple(probes), baselines=checked.baselines
    )
