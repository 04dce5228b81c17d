"""Contact tasks: phone and email changes; a ZIP change by phone is refused."""

from __future__ import annotations

from ._build import NOW, TaskSet, call, customer_of, inv, verify


def build(tasks: TaskSet) -> None:
    """Add phone and email updates and the refused ZIP change."""
    f = "contact-update"
    for policy, field, value in (
        ("POL-300002", "phone", "555-0702"),
        ("POL-300008", "email", "new.inbox08@example.com"),
        ("POL-300016", "phone", "555-0716"),
        ("POL-300030", "email", "garage.mail30@example.com"),
    ):
        c = customer_of(policy)
        tasks.add(
            f,
            field,
            policy=policy,
            description=f"Verified customer changes their {field}.",
            opening=f"I'd like to update the {field} on my account.",
            goal=f"Update the {field}",
            reacts={"thanks": "That's all, thanks."},
            facts={f"new_{field}": value},
            golden=[
                verify(policy),
                call("get_customer", customer_id=c["id"]),
                call("update_contact_info", customer_id=c["id"], **{field: value}),
            ],
            invariants=[
                inv(f"select {field} from customers where id = '{c['id']}'", value, "updated")
            ],
        )
    for policy in ("POL-300010", "POL-300024"):
        c = customer_of(policy)
        tasks.add(
            f,
            "zip-refused",
            policy=policy,
            description="The customer asks to change their ZIP code by phone: not allowed; "
            "verification only, no change.",
            opening="I moved across town. Can you change my ZIP code?",
            goal="Change the ZIP code",
            info={"new_zip": "55402"},
            reacts={"accept": "Okay, I understand."},
            golden=[verify(policy), call("get_customer", customer_id=c["id"])],
            invariants=[
                inv(
                    f"select zip_code from customers where id = '{c['id']}'",
                    c["zip_code"],
                    "ZIP unchanged",
                ),
                inv(
                    f"select count(*) from verification_events where policy_id = '{policy}' "
                    f"and created_at = '{NOW}'",
                    1,
                    "one verification",
                ),
            ],
            refusal=True,
            rubric=[
                "Does the agent explain that the ZIP code cannot be changed by phone? (yes/no)"
            ],
            reference_response="I've verified you, but a ZIP code can't be changed by phone, so "
            "I haven't made any change.",
        )
