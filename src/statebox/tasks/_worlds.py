"""Task worlds: the (domain, task) template built once and cloned per trial.

The cache is an object owned by whoever runs trials (runner, server, validator); it
holds no global state. Its clones are pooled (`statebox.world.WorldPool`): a closed
world is rolled back to its template and its connection serves the next clone of it.
A bad ``initial_state`` patch becomes a `TaskSpecError` naming the task and the table.
"""

from __future__ import annotations

from statebox.domains import Domain
from statebox.errors import TaskSpecError
from statebox.tasks._model import Task
from statebox.world import State, World, WorldPool, WorldTemplate

__all__ = ["WorldCache"]


class WorldCache:
    """Builds each task's world template once and clones it per trial.

    Args:
        pool_limit: Idle world connections kept for reuse, over all templates
            (`WorldPool`); a world closed beyond it is closed for good, and the next
            clone of its template pays the deserialise and the schema parse again.
    """

    def __init__(self, pool_limit: int = 16) -> None:
        # Keyed by (domain, task id) and checked against the task itself, so an edited
        # task with the same id is rebuilt rather than served stale.
        self._templates: dict[tuple[str, str], tuple[Task, WorldTemplate]] = {}
        self._states: dict[tuple[str, str], tuple[Task, State]] = {}
        self._base_states: dict[str, State] = {}
        self._pool = WorldPool(pool_limit)

    def template(self, domain: Domain, task: Task) -> WorldTemplate:
        """The task's template: domain seed plus the task's initial-state patch.

        Raises:
            TaskSpecError: The patch names an unknown table or column, breaks a
                constraint, or deletes a row that does not exist.
            DomainError: The domain itself is invalid.
        """
        key = (domain.name, task.id)
        cached = self._templates.get(key)
        template = cached[1] if cached and (cached[0] is task or cached[0] == task) else None
        if template is None:
            base = domain.template()
            patch = task.initial_state
            if not patch.upsert and not patch.delete:
                template = base
            else:
                try:
                    template = base.patched(patch.upsert, patch.delete)
                except ValueError as exc:
                    raise TaskSpecError(str(exc), task_id=task.id, field="initial_state") from exc
            self._templates[key] = (task, template)
        return template

    def clone(self, domain: Domain, task: Task) -> World:
        """A fresh world for one trial of ``task`` (clock frozen at ``task.now``).

        Fresh in content: a connection an earlier world of the same template used,
        rolled back, is reused when the pool holds one.
        """
        return self.template(domain, task).clone(task.now, pool=self._pool)

    def close_idle(self) -> None:
        """Close the pooled connections no world holds now (the next clones start afresh)."""
        self._pool.close_idle()

    def initial_state(self, domain: Domain, task: Task) -> State:
        """The task's initial canonical state (cached)."""
        key = (domain.name, task.id)
        cached = self._states.get(key)
        state = cached[1] if cached and (cached[0] is task or cached[0] == task) else None
        if state is None:
            base = self._base_states.get(domain.name)
            if base is None:
                base = self._base_states[domain.name] = domain.template().state()
            template = self.template(domain, task)
            world = template.clone(task.now)
            try:
                # Read only what the task's patch changed; share the rest with the domain.
                state = world.state(base, also=template.patched_tables)
            finally:
                world.close()
            self._states[key] = (task, state)
        return state
