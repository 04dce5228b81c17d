"""Generate the travel domain's built-in tasks into src/statebox/domains/travel/tasks/.

Run from the repository root with ``.venv/bin/python -m scripts.gen_travel_tasks``. The output
is a pure function of this package, the domain seed and the domain's fee schedule
(``statebox.domains.travel.tools._fees``, the same functions the quote tool uses): one YAML
file per workflow family, ids ``travel.<family>.<variant>.<nnn>``, the second of every five
tasks of a family in the ``train`` split. Regenerating yields byte-identical files.

Tasks vary the correct outcome through ``initial_state`` patches over seed rows: fare class
or rate plan, days before departure relative to the frozen clock, loyalty tier, amounts
around the agent limits, facts only the user holds (new dates, references, amounts), and
requests the policy forbids (no change, a hold or an escalation).

Layout: ``_build`` holds seed lookups, patch and call helpers and the `TaskSet` collector;
``bookings`` (cancellations, date changes, name corrections), ``corporate``, ``money``,
``hotel`` (requests and escalations), ``loyalty``, ``crm`` and ``tickets`` each add one or
more families; ``__main__`` builds them in a fixed order, writes the files and prints the
mix figures.
"""
