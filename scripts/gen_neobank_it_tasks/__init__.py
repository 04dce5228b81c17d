"""Generate the neobank_it domain's built-in tasks into src/statebox/domains/neobank_it/tasks/.

Run from the repository root with ``.venv/bin/python -m scripts.gen_neobank_it_tasks``. The
output is a pure function of this package and the domain seed: one YAML file per workflow
family, ids ``neobank_it.<family>.<variant>.<nnn>`` numbered per family and variant, the
second of every five tasks of a family in the ``train`` split. Regenerating yields
byte-identical files.

Tasks vary the correct outcome through ``initial_state`` patches over seed rows (approvals,
segregation-of-duties conflicts, contractor status, dates relative to the frozen clock,
price and idle-seat thresholds) and through facts only the user holds. Patched rows use ids
400-499, so they never collide with seeded ids (< 400) or ids the tools hand out (>= 501).

Layout: ``_build`` holds the seed lookups, date and patch helpers, golden-call helpers and
the `TaskSet` collector; each family module has one ``build(tasks)``; ``__main__`` builds
every family in a fixed order and writes the files sorted by family name.
"""
