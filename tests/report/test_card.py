"""The suite card as data and as Markdown, on the toy domain and retail."""

from __future__ import annotations

from fixtures.toy import DOMAIN as TOY
from statebox.registry import Registry, default_registry
from statebox.report import SuiteCard, build_suite_card, format_strength, render_card_markdown


def toy_card(validate: bool) -> SuiteCard:
    return build_suite_card(Registry([TOY]), "toy", validate=validate)


def test_toy_card_counts_tasks_families_and_check_strength() -> None:
    card = toy_card(validate=True)
    (d,) = card.domains
    assert (d.domain, d.tasks, card.tasks) == ("toy", 3, 3)
    assert sum(d.families.values()) == 3
    assert sum(d.splits.values()) == 3
    assert d.golden_calls_min <= d.golden_calls_mean <= d.golden_calls_max
    assert d.check_strength is not None
    assert d.check_strength.invalid_tasks == 0
    assert d.check_strength.strength == 1.0
    assert d.check_strength.text_mutants == 1 and d.check_strength.excluded_only == 2
    assert d.check_strength.false_rejection_rate == 0.0
    assert [(f.agent, f.passed_test, f.test_tasks) for f in d.check_strength.floors] == [
        ("noop", 0, 3),
        ("refuse", 0, 3),
    ]
    assert card.check_strength == d.check_strength
    assert [(e.table, e.column) for e in d.field_policy] == [
        (e.table, e.column) for e in TOY.field_policy.excluded
    ]


def test_card_without_validation_says_not_run() -> None:
    card = toy_card(validate=False)
    assert card.domains[0].check_strength is None
    assert card.check_strength is None
    assert format_strength(card.check_strength) == "not run"
    text = render_card_markdown(card)
    assert "| toy | " in text and "not run" in text
    assert "synthetic" in text and "Test-split tasks are for evaluation" in text


def test_retail_card_matches_the_suite() -> None:
    tasks = default_registry().suite("retail@1.0")
    card = build_suite_card(default_registry(), "retail@1.0", validate=False)
    (d,) = card.domains
    assert d.tasks == len(tasks)
    assert d.read_only == sum(t.read_only for t in tasks)
    assert d.splits["train"] == sum(t.split == "train" for t in tasks)
    assert d.clocks == ("2025-10-01T13:00:00+00:00",)
    assert d.tables >= 12 and d.tools >= 25
    text = render_card_markdown(card)
    assert f"| retail | {d.tables} | {d.tools} ({d.mutating_tools}) | {d.tasks} |" in text
    assert "ticket_comments.body" in text


def test_the_campaign_card_names_the_suite_version() -> None:
    from statebox.report._campaign_card import _bench

    assert _bench("suite:all@2.0") == " (statebox-bench 2.0)"
    assert _bench("suite:retail") == " (statebox-bench 1.0)"  # recorded before versions
    assert _bench("tests/fixtures/toy/tasks") == ""
