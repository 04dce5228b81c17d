"""Generate the retail domain's built-in tasks into src/statebox/domains/retail/tasks/.

Run from the repository root with ``.venv/bin/python -m scripts.gen_retail_tasks`` (``scripts``
is a namespace package: it has no ``__init__.py`` and needs none). The output is a pure function
of this package and the domain seed: one YAML file per workflow family, a list of tasks each,
ids ``retail.<family>.<variant>.<nnn>`` numbered per family and variant, the second of every
five tasks of a family in the ``train`` split. Regenerating yields byte-identical files.

Tasks vary the correct outcome through ``initial_state`` patches over seed rows (tier, dates
relative to the frozen clock, amounts around policy thresholds, refusals). Every choice of seed
row is asserted, so a seed change that breaks a task fails here, loudly.

Layout: ``_build`` holds the seed lookups, date and patch helpers, golden-call and invariant
helpers, and the `TaskSet` collector; each family module (``delivery_exception``,
``late_delivery``, ``cancellation``, ``address_change``, ``returns``, ``refunds``, ``warranty``,
``promotions``, ``loyalty``, ``ticket_triage``) has one ``build(tasks)`` that adds its tasks to
the collector it is given; ``__main__`` builds every family in a fixed order and writes the
files. The family order matters only within a family (ids and splits are per family), and the
files are written sorted by family name.
"""
