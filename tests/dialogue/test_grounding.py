"""The grounding audit: invented values and volunteered facts in user turns are flagged."""

from __future__ import annotations

from statebox.dialogue import audit_user_turns
from statebox.tasks import UserSpec

SPEC = UserSpec.model_validate(
    {
        "opening": "I want to return the Echo Mechanical Keyboard from my order.",
        "persona": "Alma Sato, Basic member",
        "goal": "Return the item for a refund",
        "facts": {
            "email": {"value": "alma.sato@example.com", "ask": ["email"]},
            "order_id": {"value": "ORD-10000107", "ask": ["order number"]},
        },
    }
)


def _audit(*turns: str, declared: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    pairs = [("user" if i % 2 == 0 else "agent", t) for i, t in enumerate(turns)]
    return audit_user_turns(SPEC, pairs, declared)


def test_a_user_that_invents_an_order_id_is_flagged() -> None:
    audit = _audit(SPEC.opening, "What is your order number?", "It's ORD-99887766.")
    assert (audit.user_turns, audit.ungrounded_turns) == (1, 1)
    assert [(u.turn, u.kind, u.value) for u in audit.ungrounded] == [
        (1, "identifier", "ord-99887766")
    ]
    clean = _audit(SPEC.opening, "What is your order number?", "My order number is ORD-10000107.")
    assert (clean.ungrounded_turns, clean.volunteered_turns) == (0, 0)


def test_invented_emails_dates_amounts_and_names_are_flagged() -> None:
    audit = _audit(
        SPEC.opening,
        "Can you tell me more?",
        "Sure: write to alma@elsewhere.org. I bought it on March 3, 2025 for $129.99 "
        "and my husband Dmitri Volkov set it up.",
    )
    kinds = {(u.kind, u.value) for u in audit.ungrounded}
    assert kinds == {
        ("email", "alma@elsewhere.org"),
        ("date", "2025-03-03"),
        ("date", "03-03"),
        ("amount", "129.99"),
        ("name", "Dmitri Volkov"),
    }
    assert audit.ungrounded_turns == 1


def test_what_the_agent_said_or_the_spec_holds_is_grounded() -> None:
    audit = _audit(
        SPEC.opening,
        "I see order ORD-10000107 with a refund of $109.00 due on 2025-10-03. Right?",
        "Yes, $109.00 on 2025-10-03 for ORD-10000107 is right. Thanks, Alma Sato here.",
        "And the item is the Echo Mechanical Keyboard?",
        "Yes, the Echo Mechanical Keyboard.",
    )
    assert audit.ungrounded == () and audit.volunteered == ()


def test_a_fact_stated_before_it_was_asked_for_is_volunteered() -> None:
    audit = _audit(
        SPEC.opening,
        "Hello! How can I help?",
        "My email is alma.sato@example.com and the order is ORD-10000107.",
        "Thanks. What is your order number?",
        "ORD-10000107, as I said.",
    )
    assert [(v.turn, v.fact) for v in audit.volunteered] == [(1, "email"), (1, "order_id")]
    assert audit.volunteered_turns == 1  # the second statement was asked for
    assert audit.ungrounded == ()


def test_values_the_behaviour_plan_declares_are_grounded() -> None:
    turns = (SPEC.opening, "What is your order number?", "It's ORD-10000170.")
    assert _audit(*turns).ungrounded_turns == 1
    assert _audit(*turns, declared=("ORD-10000170",)).ungrounded_turns == 0
