"""Load a ThinkingBox test-case dataset into statebox tasks, without importing its files.

A dataset folder holds ``scenario/<name>.yaml`` (``world_state`` per server,
``tools`` — the allowlist — and ``bot_instructions`` — the policy) and
``test_case/`` with test files. A test file carries a module-level string starting with
``!`` (YAML naming the ``scenario``) and ``test_*`` functions whose first statement is
a string starting with ``!`` (YAML: ``query``, ``user_context``, ``init.<server>``...).
Both are read with `ast`; a test file is never imported here (its check runs later in a
subprocess, see `statebox.thinkingbox._checks`).

A test list entry ``<file>.py:<function>`` names ``test_case/<file>.py`` if present,
else ``test_case/<prefix>/<file>.py`` for the underscore prefixes of the file's stem,
longest first (``a_b_c.py`` → ``a_b/``, then ``a/``).

A server's init config is the recursive merge of the scenario's ``world_state[server]``
and the test's ``init[server]``: mappings merge key by key, lists concatenate (scenario
items first), anything else is taken from the test. Values stay verbatim, explicit
nulls included — the servers treat an explicit null differently from a missing key.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from statebox._model import Model
from statebox.errors import TaskSpecError
from statebox.tasks import GoldenCall, Task, UserSpec

__all__ = [
    "EVALUATION_TERMS",
    "TB_NOW",
    "TbCase",
    "TbScenario",
    "TbSuite",
    "load_dataset",
    "merge_config",
]

EVALUATION_TERMS = (
    "the ThinkingBox-Bench v1.0 dataset card allows evaluation only: its task content, "
    "expected outcomes, golden states and tool trajectories must not be used for prompt "
    "optimisation, fine-tuning, reinforcement learning, reward-model training or other "
    "model optimisation"
)
"""Why ThinkingBox tasks are served for evaluation only (``statebox serve``)."""

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

TB_NOW = datetime(2025, 10, 1, 13, 0, tzinfo=UTC)
"""The clock every ThinkingBox task carries. External servers keep their own time, so
statebox never feeds it to them; it is the date the v1.0 policies state."""


class TbScenario(Model):
    """One scenario file: per-server init config, allowlist and policy."""

    name: str
    """Scenario name (the file's stem)."""
    file: Path
    """The scenario file."""
    world_state: dict[str, Any]
    """server → base init config, verbatim."""
    tools: tuple[str, ...] | None
    """Allowlisted tool names, or None when the scenario lists none."""
    policy: str
    """``bot_instructions``: the policy the agent follows."""


class TbCase(Model):
    """One ThinkingBox test function, resolved against its scenario."""

    ref: str
    """The test list entry, ``<file>.py:<function>``."""
    file: Path
    """The test file."""
    function: str
    """The test function's name."""
    scenario: str
    """Scenario name."""
    servers: tuple[str, ...]
    """Servers in the merged init config, sorted."""
    init: dict[str, Any]
    """server → merged init config (``__reserved__init`` argument), verbatim."""
    query: str
    """The user's opening message."""
    user_context: str
    """The simulated user's instructions."""
    tools: tuple[str, ...] | None
    """Allowlisted tool names (the scenario's), or None."""
    policy: str
    """The policy text (the test's ``bot_instructions`` if it has one, else the scenario's)."""
    golden: tuple[GoldenCall, ...]
    """Every server's ``golden_test_case.tool_interactions``, in server order, verbatim."""
    rubrics_yesno: tuple[str, ...]
    """Yes/no rubric questions in the merged config (asked by the check, if it does)."""
    task: Task
    """The statebox task built from it."""


class TbSuite(Model):
    """A loaded dataset: the cases in test-list order, their scenarios, load warnings."""

    cases: tuple[TbCase, ...]
    """The cases, in test-list order."""
    scenarios: dict[str, TbScenario]
    """Scenario name → scenario, for the scenarios the cases use."""
    warnings: tuple[str, ...] = ()
    """Things the user should know (e.g. dropped knowledge-base sources)."""

    @property
    def by_task_id(self) -> dict[str, TbCase]:
        """Task id → case."""
        return {c.task.id: c for c in self.cases}


def merge_config(base: Any, over: Any) -> Any:
    """Recursively merge a scenario's server config with a test's.

    Args:
        base: ``world_state[server]`` (or a part of it).
        over: ``init[server]`` (or the same part of it).

    Returns:
        A new value: mappings merged key by key, lists concatenated (``base`` first),
        otherwise ``over`` — an explicit null in ``over`` wins over ``base``. Inputs are
        not modified.
    """
    if isinstance(base, dict) and isinstance(over, dict):
        out = dict(base)
        for key, value in over.items():
            out[key] = merge_config(base[key], value) if key in base else value
        return out
    if isinstance(base, list) and isinstance(over, list):
        return [*base, *over]
    return over


def _bang_yaml(text: str, *, file: Path, ref: str | None, field: str) -> dict[str, Any]:
    try:
        data = yaml.load(text[1:], Loader=_Loader)
    except yaml.YAMLError as exc:
        raise TaskSpecError(
            f"bad YAML in the '!' string: {exc}", file=file, task_id=ref, field=field
        ) from exc
    if not isinstance(data, dict):
        raise TaskSpecError(
            "the '!' string is not a YAML mapping", file=file, task_id=ref, field=field
        )
    return data


def _bang(node: ast.stmt) -> str | None:
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
        value = node.value.value
        if isinstance(value, str) and value.startswith("!"):
            return value
    return None


class _TestFile:
    """A parsed test file: its scenario and its functions' ``!`` strings."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            tree = ast.parse(path.read_bytes(), filename=str(path))
        except (OSError, SyntaxError, ValueError) as exc:
            raise TaskSpecError(f"cannot parse the test file: {exc}", file=path) from exc
        self.scenario: str | None = None
        self.functions: dict[str, str | None] = {}
        for node in tree.body:
            text = _bang(node)
            if text is not None and self.scenario is None:
                data = _bang_yaml(text, file=path, ref=None, field="scenario")
                scenario = data.get("scenario")
                if not isinstance(scenario, str):
                    raise TaskSpecError(
                        "the module '!' string names no scenario", file=path, field="scenario"
                    )
                self.scenario = scenario
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self.functions[node.name] = _bang(node.body[0])


def _resolve(test_case: Path, name: str) -> Path | None:
    top = test_case / name
    if top.is_file():
        return top
    parts = Path(name).stem.split("_")
    for n in range(len(parts) - 1, 0, -1):
        candidate = test_case / "_".join(parts[:n]) / name
        if candidate.is_file():
            return candidate
    return None


def _entries(
    test_list: Path | None, names: Sequence[str], test_case: Path, files: dict[Path, _TestFile]
) -> list[str]:
    entries: list[str] = []
    if test_list is not None:
        try:
            data = yaml.load(test_list.read_text(encoding="utf-8"), Loader=_Loader)
        except (OSError, yaml.YAMLError) as exc:
            raise TaskSpecError(f"cannot read the test list: {exc}", file=test_list) from exc
        if not isinstance(data, list):
            raise TaskSpecError("the test list is not a YAML list", file=test_list)
        for i, item in enumerate(data):
            if not isinstance(item, str) or item.count(":") != 1 or ".py:" not in item:
                raise TaskSpecError(
                    f"entry {item!r} is not '<file>.py:<function>'",
                    file=test_list,
                    task_id=str(item),
                    field=f"[{i}]",
                )
            entries.append(item)
    entries += names
    if test_list is None and not names:
        for path in sorted(test_case.rglob("*.py")):
            parsed = files.setdefault(path, _TestFile(path))
            entries += [f"{path.name}:{f}" for f in parsed.functions if f.startswith("test")]
    return entries


class _DatasetReader:
    """Caches parsed files and scenarios while one dataset loads."""

    def __init__(self, dataset: Path, *, drop_sources: bool) -> None:
        self.dataset = dataset
        self.drop_sources = drop_sources
        self.files: dict[Path, _TestFile] = {}
        self.scenarios: dict[str, tuple[TbScenario, str]] = {}
        self.dropped: set[str] = set()

    def scenario(self, name: str, *, file: Path, ref: str) -> tuple[TbScenario, str]:
        if name in self.scenarios:
            return self.scenarios[name]
        path = self.dataset / "scenario" / f"{name}.yaml"
        try:
            text = path.read_text(encoding="utf-8")
        except OSError:
            raise TaskSpecError(
                f"unknown scenario {name!r} (no {path})", file=file, task_id=ref, field="scenario"
            ) from None
        try:
            data = yaml.load(text, Loader=_Loader) or {}
        except yaml.YAMLError as exc:
            raise TaskSpecError(f"bad YAML: {exc}", file=path, task_id=ref) from exc
        world = data.get("world_state") or {}
        tools = data.get("tools")
        if not isinstance(world, dict) or not isinstance(tools, list | None):
            raise TaskSpecError(
                "world_state must be a mapping and tools a list", file=path, task_id=ref
            )
        names = None
        if tools is not None:
            names = tuple(t["name"] if isinstance(t, dict) else str(t) for t in tools)
        scenario = TbScenario(
            name=name,
            file=path,
            world_state=world,
            tools=names,
            policy=str(data.get("bot_instructions") or ""),
        )
        self.scenarios[name] = (scenario, text)
        return scenario, text

    def case(self, ref: str, test_list: Path | None) -> TbCase:
        file_name, function = ref.split(":")
        path = _resolve(self.dataset / "test_case", file_name)
        if path is None:
            raise TaskSpecError(
                f"no test file {file_name} under {self.dataset / 'test_case'}",
                file=test_list,
                task_id=ref,
                field="file",
            )
        parsed = self.files.get(path) or self.files.setdefault(path, _TestFile(path))
        if function not in parsed.functions:
            raise TaskSpecError("no such function", file=path, task_id=ref, field="function")
        text = parsed.functions[function]
        if text is None:
            raise TaskSpecError(
                "the function's first statement is not a '!' YAML string",
                file=path,
                task_id=ref,
                field="docstring",
            )
        if parsed.scenario is None:
            raise TaskSpecError(
                "the file names no scenario", file=path, task_id=ref, field="scenario"
            )
        spec = _bang_yaml(text, file=path, ref=ref, field="docstring")
        scenario, scenario_text = self.scenario(parsed.scenario, file=path, ref=ref)
        init_over = spec.get("init") or {}
        if not isinstance(init_over, dict):
            raise TaskSpecError("init must be a mapping", file=path, task_id=ref, field="init")
        init: dict[str, Any] = {}
        for server in sorted(set(scenario.world_state) | set(init_over)):
            if server in init_over and server in scenario.world_state:
                config = merge_config(scenario.world_state[server], init_over[server])
            else:
                config = init_over.get(server, scenario.world_state.get(server))
            if config is None:
                config = {}
            if not isinstance(config, dict):
                raise TaskSpecError(
                    "a server's init config must be a mapping",
                    file=path,
                    task_id=ref,
                    field=f"init.{server}",
                )
            if self.drop_sources and "sources" in config:
                config = {k: v for k, v in config.items() if k != "sources"}
                self.dropped.add(f"{scenario.name}/{server}")
            init[server] = config
        golden: list[GoldenCall] = []
        rubrics: list[str] = []
        for server, config in init.items():
            field = f"init.{server}.golden_test_case.tool_interactions"
            steps = (config.get("golden_test_case") or {}).get("tool_interactions") or []
            for i, step in enumerate(steps):
                if not isinstance(step, dict) or not isinstance(step.get("tool"), str):
                    raise TaskSpecError(
                        "a tool interaction needs a 'tool' name",
                        file=path,
                        task_id=ref,
                        field=f"{field}[{i}]",
                    )
                params = step.get("parameters")
                golden.append(GoldenCall(tool=step["tool"], args=params or {}))
            rubrics += [str(r) for r in config.get("rubrics_yesno") or []]
        stem = Path(file_name).stem
        source = hashlib.sha256((text + "\0" + scenario_text).encode()).hexdigest()[:16]
        extra_tags = [str(t) for t in spec.get("tags") or [] if isinstance(t, str | int)]
        policy = spec.get("bot_instructions")
        try:
            task = Task(
                id=f"{scenario.name}.{stem}.{function}",
                domain=scenario.name,
                family=stem,
                now=TB_NOW,
                read_only=not golden,
                user=UserSpec(
                    opening=str(spec.get("query") or ""),
                    persona=str(spec.get("user_context") or ""),
                ),
                tools=scenario.tools,
                golden=tuple(golden),
                tags=("thinkingbox", f"source:{source}", *extra_tags),
            )
        except ValidationError as exc:
            err = exc.errors(include_url=False)[0]
            loc = ".".join(str(p) for p in err["loc"])
            raise TaskSpecError(
                f"cannot build a statebox task: {err['msg']}", file=path, task_id=ref, field=loc
            ) from exc
        return TbCase(
            ref=ref,
            file=path,
            function=function,
            scenario=scenario.name,
            servers=tuple(init),
            init=init,
            query=task.user.opening,
            user_context=task.user.persona,
            tools=scenario.tools,
            policy=str(policy) if isinstance(policy, str) else scenario.policy,
            golden=tuple(golden),
            rubrics_yesno=tuple(rubrics),
            task=task,
        )


def load_dataset(
    dataset: Path,
    test_list: Path | None = None,
    names: Sequence[str] = (),
    *,
    drop_sources: bool = False,
) -> TbSuite:
    """Load ThinkingBox test cases into a `TbSuite`.

    Args:
        dataset: The dataset folder (holding ``scenario/`` and ``test_case/``).
        test_list: A YAML list of ``<file>.py:<function>`` entries.
        names: More entries of the same form, loaded after the test list's. With no
            test list and no names, every ``test*`` function of every file.
        drop_sources: Remove the knowledge-base ``sources`` from every server's init
            config (they need a search service at init); a warning says so.

    Returns:
        The suite, cases in entry order.

    Raises:
        TaskSpecError: Naming the file, the entry (``task_id``) and the field: a
            malformed or duplicate entry, a missing test file or function, a function
            without a ``!`` YAML string, bad YAML, an unknown scenario, or a case that
            is not a valid statebox task.
    """
    loader = _DatasetReader(dataset, drop_sources=drop_sources)
    cases: list[TbCase] = []
    seen: set[str] = set()
    for ref in _entries(test_list, names, dataset / "test_case", loader.files):
        if ":" not in ref or not ref.split(":")[0].endswith(".py"):
            raise TaskSpecError(
                "not '<file>.py:<function>'", file=test_list, task_id=ref, field="name"
            )
        if ref in seen:
            raise TaskSpecError("duplicate entry", file=test_list, task_id=ref)
        seen.add(ref)
        cases.append(loader.case(ref, test_list))
    warnings: list[str] = []
    if loader.dropped:
        where = sorted(
            f"server {server}" if scenario == server else f"server {server} of {scenario}"
            for scenario, server in (d.split("/", 1) for d in loader.dropped)
        )
        warnings.append(
            "dropped the knowledge-base 'sources' (they need a search service) from the "
            "init config of " + ", ".join(where)
        )
    used = {c.scenario for c in cases}
    scenarios = {n: s for n, (s, _) in loader.scenarios.items() if n in used}
    return TbSuite(cases=tuple(cases), scenarios=scenarios, warnings=tuple(warnings))
