"""Generate the consulting_hr domain's statebox-bench 2.0 tasks into its ``tasks_v2/`` folder.

Run from the repository root with ``.venv/bin/python -m scripts.gen_consulting_hr_tasks_v2``.
Each task verifies the requester (a recorded step), then works through one or two requests
(`_compose.Intent`), each a branch of the policy, many needing recovery from a tool
precondition (a held claim's receipt, an overlapping trip, a second laptop, a resolved
ticket, a last day not yet recorded). Distractor rows (a second held claim, an expired
grant, a second trip to the same city) come through ``initial_state``.

Test and train tasks come from disjoint branch lists (`__main__.TEST`, `__main__.TRAIN`):
no test branch or template is seen in training. Output is a pure function of this
package, the v1 generator's seed lookups and the domain seed: regenerating is
byte-identical.
"""
