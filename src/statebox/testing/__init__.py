"""Drive a domain's tools on a world in tests: `Desk`, `Outcome`, `suite_tasks_of`.

A `Desk` clones a domain's seeded template (or a task's world, initial state applied) at a
frozen clock, calls tools through the real `statebox.tools.Dispatcher` — the same argument
validation, transactions and refusals an agent gets — and reads rows back. Built-in and
outside domains test their tools with it; nothing in statebox itself imports it.

Reference: docs/kit.md ("Testing a domain's tools").
"""

from statebox.testing._desk import Desk, Outcome, suite_tasks_of

__all__ = ["Desk", "Outcome", "suite_tasks_of"]
