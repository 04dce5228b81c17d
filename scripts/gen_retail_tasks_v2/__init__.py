"""Generate retail's statebox-bench 2.0 tasks into src/statebox/domains/retail/tasks_v2/.

Run from the repository root with ``.venv/bin/python -m scripts.gen_retail_tasks_v2``. Each
task is composed from intent building blocks (`_compose`): caller verification recorded
with ``verify_customer``, one or two requests, distractor records (other open orders, a
closed ticket, a second warranty) and, for many, a precondition the natural first attempt
fails (``fails:``) and the policy's way round it. The test split's intents
(`_test_intents`) and the train split's (`_train_intents`) are disjoint branches, so
training never sees a test template. Seed lookups, the fact vocabulary and call helpers
come from the v1 generator (`scripts.gen_retail_tasks._build`); regenerating yields
byte-identical files.
"""
