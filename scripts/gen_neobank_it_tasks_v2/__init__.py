"""Generate neobank_it's statebox-bench 2.0 tasks into src/statebox/domains/neobank_it/tasks_v2/.

Run from the repository root with ``.venv/bin/python -m scripts.gen_neobank_it_tasks_v2``.
Every task is composed from intent blocks (`_compose.Intent`): the caller's verification
(recorded with ``verify_employee``), one or two of the caller's requests, the distractor
rows each request brings in its ``initial_state`` and, for some, a natural first attempt a
tool refuses (``fails:``) before the fix the policy names. Test and train draw on disjoint
intent branches (`_test_intents`, `_train_intents`), so no train task shares a test
template. The seed lookups, facts vocabulary, calls and patches come from the v1 generator
(`scripts.gen_neobank_it_tasks._build`). Output is deterministic (no set order, no time).
"""
