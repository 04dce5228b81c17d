"""Generator of the travel domain's statebox-bench 2.0 tasks (``tasks_v2/{test,train}``).

Tasks are composed from intent building blocks (`_intents`): a verification step, one or
two customer requests on records of their own added to the task's initial state, similar
distractor bookings, and optionally a support ticket to bring to its right status. Test
and train use disjoint intent branches (`__main__.TEST`, `__main__.TRAIN`).
"""
