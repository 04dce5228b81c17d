"""Generate the auto insurance domain's statebox-bench 2.0 tasks.

They go to src/statebox/domains/auto_insurance/tasks_v2/{test,train}/.

Run from the repository root with ``.venv/bin/python -m scripts.gen_auto_insurance_tasks_v2``.
A task is composed of intents (`_compose.Intent`: one user request each, a branch of a
family) on one seed policy, after the verification every conversation starts with:
one intent, or two that touch different records. Intents patch the state they turn on
(past-due installments, fees, claims, distractor vehicles and tickets), and recovery
intents begin with the call a careless agent makes first, which the tools refuse
(``fails``). Test and train compose disjoint intent lists (`_plans`). The v1
generator's seed lookups, patches, calls and fact vocabulary are imported, not copied.
Regenerating yields byte-identical files.
"""
