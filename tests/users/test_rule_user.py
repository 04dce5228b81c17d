"""The rule-based user: answers what the agent asks, nothing more, the same way every time."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from fixtures.support import TOY_TASKS
from statebox.dialogue import RuleEngine, audit_user_turns, plan_for
from statebox.tasks import Task, load_tasks
from statebox.users import RuleUser

SPEC = {
    "opening": "I'd like to add another driver to my car insurance.",
    "persona": "Avery Quinn, policyholder",
    "goal": "Add the driver",
    "facts": {
        "policy_id": {"value": "POL-300002", "ask": ["policy number"], "label": "policy number"},
        "date_of_birth": {"value": "1961-02-06", "ask": ["date of birth", "born"]},
        "driver_name": {
            "value": "Rowan Hargrove",
            "ask": ["driver's name", "who is the driver"],
            "say": "The driver is {value}.",
        },
        "driver_dob": {
            "value": "1990-04-12",
            "ask": ["driver's date of birth", "when was the driver born"],
            "say": "They were born on {value}.",
        },
    },
    "behaviour": {
        "pushback": 1,
        "push": "Can't you make an exception?",
        "accept": "Fine, I'll call back.",
        "changed_from": "Hi, I'd like to add a car to my policy.",
    },
}
QUESTIONS = {
    "policy_id": "What is your policy number?",
    "date_of_birth": "And your date of birth, please?",
    "driver_name": "What's the driver's name?",
    "driver_dob": "When was the driver born?",
}
SMALL_TALK = ["Hi! How are you today?", "Thanks for waiting.", "ok", "Let me check that for you."]


@pytest.fixture(scope="module")
def task() -> Task:
    base = load_tasks(TOY_TASKS)[0]
    return base.model_copy(update={"user": base.user.model_validate(SPEC)})


def _talk(task: Task, messages: Sequence[str], behaviour: str = "cooperative") -> list[str]:
    engine = RuleEngine(task.user, plan_for(task, behaviour))
    return [engine.reply(m)[0] for m in messages]


def _values_in(text: str, task: Task) -> set[str]:
    return {n for n, f in task.user.facts.items() if str(f.value) in text}


def test_same_questions_get_the_same_facts_in_any_order_with_small_talk_and_repeats(
    task: Task,
) -> None:
    straight = dict(zip(QUESTIONS, _talk(task, list(QUESTIONS.values())), strict=True))
    shuffled = ["driver_dob", "policy_id", "driver_name", "date_of_birth", "policy_id"]
    messages: list[str] = []
    for k, name in enumerate(shuffled):
        messages += [SMALL_TALK[k % len(SMALL_TALK)], QUESTIONS[name]]
    replies = _talk(task, messages)
    for name, reply in zip(shuffled, replies[1::2], strict=True):
        assert reply == straight[name]  # a repeated question gets the same answer
        assert _values_in(reply, task) == {name}  # exactly the fact asked for
    for chat in replies[0::2]:
        assert _values_in(chat, task) == set()  # small talk reveals nothing
    assert straight["driver_dob"] == "They were born on 1990-04-12."
    # The audit agrees: nothing volunteered, nothing invented.
    turns = [("user", task.user.opening)]
    for m, r in zip(messages, replies, strict=True):
        turns += [("agent", m), ("user", r)]
    audit = audit_user_turns(task.user, turns)
    assert (audit.user_turns, audit.ungrounded_turns, audit.volunteered_turns) == (10, 0, 0)


def test_nothing_is_revealed_unasked(task: Task) -> None:
    said = _talk(
        task,
        [
            "Hi! Anything else?",
            "ok",
            "Your policy number is on file.",  # a statement naming a fact asks for nothing
            "I'll look into the driver's details now.",
            "What colour is your car?",
        ],
    )
    assert all(_values_in(r, task) == set() for r in said)
    assert said[-1] == "Sorry, I don't know that."  # asked something not in its facts


def test_several_facts_in_one_message_come_back_in_the_order_asked(task: Task) -> None:
    (reply,) = _talk(task, ["Could you give me the driver's name and your policy number?"])
    assert reply == "The driver is Rowan Hargrove. My policy number is POL-300002."
    # A phrase inside a longer one of another fact does not count for the shorter fact.
    (dob,) = _talk(task, ["What is the driver's date of birth?"])
    assert _values_in(dob, task) == {"driver_dob"}


def test_it_follows_its_behaviour_spec(task: Task) -> None:
    engine = RuleEngine(task.user, plan_for(task, "cooperative"))
    assert engine.reply("Shall I go ahead and add Rowan?") == ("Yes, please go ahead.", False)
    assert engine.reply("How can I help you today?") == ("Add the driver", False)
    assert engine.reply("I'm sorry, I can't add a driver today.") == (
        "Can't you make an exception?",
        False,
    )
    assert engine.reply("Unfortunately not, it is not possible.") == (
        "Fine, I'll call back.",
        True,
    )  # pushed back once, then accepted the refusal and ended
    done = RuleEngine(task.user, plan_for(task, "cooperative"))
    assert done.reply("Rowan has been added to your policy. Anything else?")[1] is True
    no = task.model_copy(
        update={
            "user": task.user.model_validate(
                {**SPEC, "behaviour": {"confirm": False, "decline": "No, leave it."}}
            )
        }
    )
    assert _talk(no, ["That costs $40 more a year. Should I add them?"]) == ["No, leave it."]
    assert _talk(no, ["I can't do that, but I could offer a quote instead?"]) == ["No, leave it."]


def test_same_seed_and_messages_give_the_same_replies(task: Task) -> None:
    messages = [*QUESTIONS.values(), "That date of birth doesn't match. Could you check it?"]
    for behaviour in ("cooperative", "misremembers", "uncooperative"):
        runs = [
            [asyncio.run(RuleUser(task, behaviour, 7, 2).reply(m)) for m in messages]
            for _ in range(2)
        ]
        assert runs[0] == runs[1]


def test_misremembers_gives_one_fact_wrong_then_corrects_it_when_checked(task: Task) -> None:
    plans = {plan_for(task, "misremembers", 0, trial).misremembered for trial in range(12)}
    assert len(plans) > 1  # the seed and trial pick the fact
    plan = plan_for(task, "misremembers", 0, 0)
    name = plan.misremembered
    assert name is not None
    fact = task.user.facts[name]
    wrong = str(plan.slips[name])
    engine = RuleEngine(task.user, plan)
    first = engine.reply(QUESTIONS[name])[0]
    assert wrong in first and str(fact.value) not in first
    assert engine.reply(QUESTIONS[name])[0] == first  # asked again: still believes it
    fixed = engine.reply(f"That {fact.ask[0]} doesn't match our records. Could you double-check?")
    assert fixed[0] == "Sorry, my mistake. " + fact.words()
    assert engine.reply(QUESTIONS[name])[0] == fact.words()


def test_changes_goal_opens_with_a_related_request_and_switches(task: Task) -> None:
    user = RuleUser(task, "changes-goal")
    assert asyncio.run(user.opening()) == "Hi, I'd like to add a car to my policy."
    reply = asyncio.run(user.reply("What is your policy number?"))
    assert reply.text == (
        "Actually, sorry, change of plan. I'd like to add another driver to my car insurance. "
        "My policy number is POL-300002."
    )


def test_impatient_leaves_on_a_repeated_question_or_after_five_messages(task: Task) -> None:
    engine = RuleEngine(task.user, plan_for(task, "impatient"))
    assert engine.reply(QUESTIONS["policy_id"])[1] is False
    text, done = engine.reply("Sorry, what was your policy number again?")
    assert done and "already told you" in text
    patient = RuleEngine(task.user, plan_for(task, "impatient"))
    for _ in range(5):
        assert patient.reply("Let me check.")[1] is False
    assert patient.reply("Still checking.")[1] is True


def test_uncooperative_answers_only_direct_questions_one_fact_at_a_time(task: Task) -> None:
    said = _talk(
        task,
        [
            "Please give me your policy number.",  # a request, not a question
            "What are your policy number and date of birth?",
        ],
        "uncooperative",
    )
    assert _values_in(said[0], task) == set()
    assert _values_in(said[1], task) == {"policy_id"}


def test_asking_for_the_email_address_does_not_reveal_the_saved_address() -> None:
    # A fresh-user review: "email address" held the phrase "address" of another fact, so
    # the built-in retail user gave its saved address unasked with the email.
    from statebox.registry import default_registry

    (task,) = [
        t
        for t in default_registry().suite("retail@1.0")
        if t.id == "retail.address-change.saved-address.001"
    ]
    text, _ = RuleEngine(task.user, plan_for(task, "cooperative")).reply(
        "What is your email address?"
    )
    assert "pavel.novak@example.com" in text
    assert "on file" not in text.lower()  # the saved address's value


def test_a_user_with_two_requests_stays_after_the_first_is_refused_or_done(task: Task) -> None:
    # Reported by the suite 2.0 work: the rule user ended on the first refusal, so an
    # agent that answered the refused request first lost the other one.
    two = task.model_copy(update={"tags": ("intent:policy.add-driver", "intent:billing.pay")})
    engine = RuleEngine(two.user, plan_for(two, "cooperative"))
    assert engine.reply("I'm sorry, I can't add a driver today.") == (
        "Can't you make an exception?",
        False,
    )
    assert engine.reply("Unfortunately not, it is not possible.") == (
        "Thanks. And my other request?",
        False,
    )
    # Pushback starts afresh for the second request, then the user ends.
    assert engine.reply("I can't take that payment either.") == (
        "Can't you make an exception?",
        False,
    )
    assert engine.reply("Unfortunately that is not possible.") == ("Fine, I'll call back.", True)
    done = RuleEngine(two.user, plan_for(two, "cooperative"))
    assert done.reply("Rowan has been added to your policy.") == (
        "Thanks. And my other request?",
        False,
    )
    assert done.reply("Your payment has been processed.")[1] is True
    # The spec's own count wins over the tags.
    one = two.model_copy(
        update={"user": two.user.model_validate({**SPEC, "behaviour": {"requests": 1}})}
    )
    assert (
        RuleEngine(one.user, plan_for(one, "cooperative")).reply(
            "Rowan has been added to your policy."
        )[1]
        is True
    )
