"""Generate the consulting_hr domain's built-in tasks into its ``tasks/`` folder.

Run from the repository root with ``.venv/bin/python -m scripts.gen_consulting_hr_tasks``. The
output is a pure function of this package and the domain seed: one YAML file per workflow
family, ids ``consulting_hr.<family>.<variant>.<nnn>`` numbered per family and variant, the
second of every five tasks of a family in the ``train`` split. Regenerating yields
byte-identical files.

Tasks vary the correct outcome through ``initial_state`` patches over seed rows (grades,
background checks, dates relative to the frozen clock, amounts around limits, pool sizes) and
through facts only the requester holds (amounts, dates, envelope references, what was handed
in). Every assumption about a seed row is asserted in ``_build``, so a seed change that breaks
a task fails here, loudly.

Layout: ``_build`` holds seed lookups, date helpers, golden-call and invariant helpers and the
`TaskSet` collector; each family module (``onboarding``, ``offboarding``, ``site_access``,
``expense_claims``, ``expense_review``, ``training``, ``software``, ``equipment``, ``travel``,
``staffing``) has one ``build(tasks)``; ``__main__`` builds every family and writes the files.
"""
