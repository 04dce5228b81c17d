"""CRM profile: contact changes (phone, email with proof), notes, refusals for third parties."""

from __future__ import annotations

from ._build import (
    BOOKINGS,
    CUSTOMERS,
    Picker,
    TaskSet,
    call,
    email,
    ident,
    inv,
    name,
    owner,
    says,
    trip,
)

_HOTELS = Picker("hotel", skip=23)
_FLIGHTS = Picker("flight", skip=23)


def build(tasks: TaskSet) -> None:
    """Add the crm-profile family."""
    f = "crm-profile"
    for k, pick in enumerate((_HOTELS, _FLIGHTS), 1):
        bk = pick()
        c = owner(bk)
        phone = f"+1-555-02{40 + k:02d}"
        tasks.add(
            f,
            "phone-change",
            customer=c,
            description="Phone change: update it and log a contact_change note.",
            opening="I have a new phone number, please update my profile.",
            goal="Update the phone number",
            facts={"new_phone": phone},
            golden=[
                *ident(c),
                call("update_customer_contact", customer_id=c, phone=phone),
                call(
                    "add_customer_note",
                    customer_id=c,
                    category="contact_change",
                    body=f"Phone changed to {phone}.",
                ),
            ],
            invariants=[
                inv(f"select phone from customers where id = '{c}'", phone, "phone updated"),
                inv(
                    (
                        f"select count(*) from customer_notes where customer_id = '{c}' "
                        f"and category = 'contact_change'"
                    ),
                    1,
                    "note logged",
                ),
            ],
            text=[says("customer_notes", "body", {"customer_id": c}, [phone, phone[3:]])],
        )
    for k, pick in enumerate((_FLIGHTS, _HOTELS, _FLIGHTS), 1):
        bk = pick()
        c = owner(bk)
        cust = CUSTOMERS[c]
        new = f"{str(cust['first_name']).lower()}.travels{k}@example.com"
        ref = str(BOOKINGS[bk]["reference"])
        tasks.add(
            f,
            "email-change",
            customer=c,
            description=(
                "Email change with a validating booking reference of the same "
                "account: update and note."
            ),
            opening="I'm changing email providers. Can you update the email on my account?",
            goal="Update the email address",
            facts={"reference": ref, "new_email": new},
            info={"last_name": str(cust["last_name"])},
            golden=[
                *ident(c),
                call("validate_booking_reference", reference=ref, last_name=str(cust["last_name"])),
                call("update_customer_contact", customer_id=c, email=new),
                call(
                    "add_customer_note",
                    customer_id=c,
                    category="contact_change",
                    body=f"Email changed to {new}.",
                ),
            ],
            patch=trip(bk, 15),
            invariants=[inv(f"select email from customers where id = '{c}'", new, "email updated")],
            text=[says("customer_notes", "body", {"customer_id": c}, new)],
        )
    bk = _HOTELS()
    c = owner(bk)
    tasks.add(
        f,
        "email-no-proof",
        customer=c,
        description=(
            "Email change but the customer has no booking reference to give: refuse. No change."
        ),
        opening="Please change the email on my account to a new one.",
        goal="Update the email address",
        reacts={
            "unknown": "I don't have any booking reference handy, sorry.",
            "accept": "Okay, I'll find one later.",
        },
        golden=ident(c),
        invariants=[inv(f"select email from customers where id = '{c}'", email(c), "email kept")],
        read_only=True,
        reply={"must_contain": ["booking reference"]},
        rubric=[
            (
                "Does the reply ask for a booking reference and last name as "
                "proof before changing the email? (yes/no)"
            )
        ],
        reference=(
            "To change the email I need a booking reference and last name "
            "on your account as proof; I've left it unchanged for now."
        ),
    )
    bk = _FLIGHTS()
    c = owner(bk)
    other_bk = _FLIGHTS()
    other = owner(other_bk)
    assert other != c
    ref = str(BOOKINGS[other_bk]["reference"])
    last = str(CUSTOMERS[other]["last_name"])
    tasks.add(
        f,
        "email-wrong-account",
        customer=c,
        description=(
            "The reference given validates but belongs to another account: refuse the email change."
        ),
        opening="Please change my account email to a new one.",
        goal="Update the email address",
        facts={"reference": ref, "last_name": last},
        info={"booking_owner": "It's my friend's booking, does that matter?"},
        golden=[*ident(c), call("validate_booking_reference", reference=ref, last_name=last)],
        patch=trip(other_bk, 15),
        invariants=[inv(f"select email from customers where id = '{c}'", email(c), "email kept")],
        read_only=True,
        reply={"must_contain": [["your account", "your own", "another account", "same account"]]},
        reference="That booking reference belongs to another account, so it can't prove this "
        "one is yours; I need a booking reference from your own account to change the email.",
    )
    for category, opening, body, facts in (
        (
            "preference",
            "Please note on my profile that I always prefer aisle seats and quiet rooms.",
            "Prefers aisle seats and quiet rooms.",
            ["aisle", "quiet"],
        ),
        (
            "complaint",
            "I want to formally complain about how rude the phone agent was yesterday.",
            "Complaint: the phone agent was rude on a call yesterday.",
            [["complaint", "complain", "complained"], ["rude", "rudeness", "impolite"]],
        ),
    ):
        bk = _HOTELS()
        c = owner(bk)
        tasks.add(
            f,
            f"note-{category}",
            customer=c,
            description=f"Log a {category} note on the profile.",
            opening=opening,
            goal="Have it recorded on the profile",
            reacts={"agree": "Yes, thanks.", "thanks": "Bye."},
            golden=[
                *ident(c),
                call("add_customer_note", customer_id=c, category=category, body=body),
            ],
            invariants=[
                inv(
                    f"select category from customer_notes where customer_id = '{c}'",
                    category,
                    "note category",
                )
            ],
            text=[says("customer_notes", "body", {"customer_id": c}, *facts)],
        )
    bk = _FLIGHTS()
    c = owner(bk)
    partner_bk = _HOTELS()
    partner = owner(partner_bk)
    tasks.add(
        f,
        "third-party",
        customer=c,
        description=(
            "The caller asks to change another customer's phone number: refuse, disclose nothing."
        ),
        opening="I need to update my husband's phone number on his travel account.",
        goal="Change the partner's phone number",
        info={"partner_name": f"His name is {name(partner)}; he's busy, so I'm calling for him."},
        reacts={"accept": "Fine, he'll call."},
        golden=ident(c),
        invariants=[
            inv(
                f"select phone from customers where id = '{partner}'",
                str(CUSTOMERS[partner]["phone"]),
                "unchanged",
            )
        ],
        read_only=True,
        reply={"must_contain": [["owner", "account holder", "himself", "themselves"]]},
        rubric=["Does the reply refuse to change another customer's account? (yes/no)"],
        reference=(
            "I'm sorry, I can only change an account at the request of its "
            "owner; he will need to contact us himself."
        ),
    )
