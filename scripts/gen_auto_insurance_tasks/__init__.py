"""Generate the auto insurance domain's built-in tasks.

They go to src/statebox/domains/auto_insurance/tasks/.

Run from the repository root with ``.venv/bin/python -m scripts.gen_auto_insurance_tasks``. The
output is a pure function of this package and the domain seed: one YAML file per workflow
family, ids ``auto_insurance.<family>.<variant>.<nnn>`` numbered per family and variant, the
second of every five tasks of a family in the ``train`` split. Regenerating yields
byte-identical files.

Tasks vary the correct outcome through ``initial_state`` patches over seed rows (dates relative
to the frozen clock, grace periods, amount thresholds, eligibility, open claims) and through
facts only the user holds (a pay date, a new insurer's start date, a driver's record). Seed rows
are chosen by predicates over the seed and every assumption is asserted, so a seed change that
breaks a task fails here, loudly.

Layout: ``_build`` holds the seed lookups, date and patch helpers, golden-call helpers and the
`TaskSet` collector (which also checks the mix rules it can: user-fact tags, rubric answers);
each family module has one ``build(tasks)``; ``__main__`` builds every family in a fixed order,
writes the files and prints the mix figures.
"""
