"""Suite names and versions: the grammar, the default version, splits by folder, errors."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fixtures.toy import make_domain
from statebox.domains import Domain
from statebox.errors import DomainError, TaskSpecError
from statebox.registry import Registry, default_registry
from statebox.tasks import parse_suite, pin_legacy

V1 = ["toy.transfer.basic.001", "toy.freeze.note.001", "toy.refuse.closed.001"]
V2_TEST = ["toy.pay.unfreeze-then-pay.001", "toy.pay.split.001", "toy.pay.refuse-frozen.001"]
V2_TRAIN = ["toy.account.freeze-lost-card.001"]


def ids(registry: Registry, name: str, **kw: bool) -> list[str]:
    return [t.id for t in registry.suite(name, **kw)]


def test_the_grammar_names_scope_split_and_version() -> None:
    assert str(parse_suite("all")) == "all"
    assert str(parse_suite("train@2.0")) == "train@2.0"
    assert str(parse_suite("all:train")) == "train"
    assert str(parse_suite("retail:train@1.0")) == "retail:train@1.0"
    for bad, why in [
        ("retail:dev", "unknown split 'dev'"),
        ("train:test", "'train' is already a split"),
        ("all@two", "not a suite name"),
        ("", "not a suite name"),
    ]:
        with pytest.raises(DomainError, match=why):
            parse_suite(bad)


def test_1_0_keeps_both_splits_and_2_0_names_the_test_split() -> None:
    reg = Registry([make_domain(versioned=True)])
    assert reg.suite_versions() == ["1.0", "2.0"]
    assert reg.default_suite_version() == "2.0"
    assert ids(reg, "all@1.0") == ids(reg, "toy@1.0") == V1  # both splits, file order
    assert ids(reg, "all") == ids(reg, "toy@2.0") == ids(reg, "toy:test") == V2_TEST
    assert ids(reg, "train") == ids(reg, "toy:train@2.0") == V2_TRAIN
    assert ids(reg, "toy", both_splits=True) == V2_TEST + V2_TRAIN
    assert str(reg.resolve_suite("all")) == "all@2.0"
    assert str(reg.resolve_suite("toy:test")) == "toy@2.0"  # one canonical name
    assert str(reg.resolve_suite("toy:test@1.0")) == "toy:test@1.0"
    assert reg.resolve_suite("train").label == "statebox-bench 2.0"


def test_a_bad_suite_or_version_is_one_line_listing_what_exists() -> None:
    reg = Registry([make_domain(versioned=True)])
    with pytest.raises(DomainError) as exc:
        reg.suite("nope")
    message = str(exc.value)
    assert "\n" not in message
    assert "unknown suite" in message and "domains: toy" in message
    assert "versions: 1.0, 2.0" in message and "DOMAIN:train" in message
    with pytest.raises(DomainError, match=r"no installed domain ships statebox-bench 3.0"):
        reg.suite("all@3.0")
    with pytest.raises(DomainError, match=r"domain toy does not ship statebox-bench 3.0"):
        reg.suite("toy@3.0")


def test_a_missing_version_folder_is_a_version_not_shipped(tmp_path: Path) -> None:
    toy = make_domain(versioned=True)
    toy.suites["2.0"] = tmp_path / "absent"
    reg = Registry([toy])
    assert toy.versions() == ("1.0",)
    assert reg.default_suite_version() == "1.0"
    assert ids(reg, "all") == V1
    with pytest.raises(DomainError, match=r"domain toy does not ship statebox-bench 2.0"):
        reg.suite("toy@2.0")


def test_the_default_is_the_newest_version_every_builtin_domain_ships() -> None:
    v2 = make_domain(versioned=True)
    v1 = make_domain(versioned=True)
    v1.name = "old"
    v1.suites = {"1.0": v1.suites["1.0"]}
    assert Registry([v2, v1]).default_suite_version() == "1.0"
    # An outside domain with only tasks_dir is unversioned: in every version, no vote.
    plain = make_domain()
    plain.name = "plain"
    reg = Registry([v2, plain])
    assert reg.default_suite_version() == "2.0"
    assert len(reg.suite("all@1.0")) == 6  # its three (domain: toy in the files) and toy's
    assert ids(reg, "plain@2.0") == ["toy.transfer.basic.001", "toy.freeze.note.001",
                                     "toy.refuse.closed.001"]  # fmt: skip


def test_the_installed_builtin_domains_decide_the_default() -> None:
    reg = default_registry()
    assert reg.builtin_domains() == [
        "auto_insurance",
        "consulting_hr",
        "neobank_it",
        "retail",
        "travel",
    ]
    shipped = [set(reg.domain(n).versions()) for n in reg.builtin_domains()]
    newest_common = max(set.intersection(*shipped), key=lambda v: tuple(map(int, v.split("."))))
    assert reg.default_suite_version() == newest_common
    # 1.0 keeps its meaning whatever the default is.
    assert len(reg.suite("all@1.0")) == 573
    assert len(reg.suite("train@1.0")) == 124
    assert len(reg.suite("retail@1.0")) == 69


def test_a_task_filed_in_the_other_split_folder_is_refused(tmp_path: Path) -> None:
    toy = make_domain(versioned=True)
    copy = tmp_path / "tasks_v2"
    shutil.copytree(toy.suites["2.0"], copy)
    shutil.copy(copy / "train" / "account.yaml", copy / "test" / "account.yaml")
    toy.suites["2.0"] = copy
    with pytest.raises(TaskSpecError) as exc:
        Registry([toy]).suite("toy@2.0")
    assert "account.yaml" in str(exc.value)
    assert "task toy.account.freeze-lost-card.001, field split" in str(exc.value)


def test_names_recorded_before_versions_mean_1_0() -> None:
    assert pin_legacy("all") == "all@1.0"
    assert pin_legacy("retail@2.0") == "retail@2.0"


def test_a_malformed_version_label_fails_at_construction() -> None:
    with pytest.raises(DomainError, match="suite version 'v2'"):
        Domain(name="x", schema_sql="", seed={}, tools=[], policy="", suites={"v2": Path(".")})
