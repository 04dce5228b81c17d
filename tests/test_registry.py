"""The registry: domains by name, domain references, suites."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.support import TOY_REF
from statebox.domains import Domain
from statebox.errors import DomainError
from statebox.registry import Registry, load_domain_ref


def test_domain_lookup(registry: Registry, toy_domain: Domain) -> None:
    assert registry.domain("toy") is toy_domain
    assert registry.domain_names() == ["toy"]
    with pytest.raises(DomainError, match="unknown domain 'bank'; known: toy"):
        registry.domain("bank")


def test_register_same_name_twice(registry: Registry, toy_domain: Domain) -> None:
    registry.register_domain(toy_domain)  # the same object again is fine
    from fixtures.toy import make_domain

    with pytest.raises(DomainError, match="two domains are named 'toy'"):
        registry.register_domain(make_domain())


def test_suite_loads_the_domain_tasks(registry: Registry) -> None:
    assert [t.id for t in registry.suite("toy")] == [
        "toy.transfer.basic.001",
        "toy.freeze.note.001",
        "toy.refuse.closed.001",
    ]
    assert len(registry.suite("all")) == 3


def test_domain_without_tasks() -> None:
    bare = Domain(
        name="bare",
        schema_sql="CREATE TABLE t (id TEXT PRIMARY KEY);",
        seed={},
        tools=[],
        policy="",
    )
    reg = Registry([bare])
    with pytest.raises(DomainError, match="ships no tasks"):
        reg.suite("bare")
    assert reg.suite("all") == []


def test_load_domain_ref_by_file_and_module() -> None:
    d = load_domain_ref(TOY_REF)
    assert isinstance(d, Domain) and d.name == "toy"
    assert load_domain_ref("fixtures.toy:DOMAIN").name == "toy"


@pytest.mark.parametrize(
    ("ref", "message"),
    [
        ("fixtures.toy:", "an empty module or attribute"),
        ("fixtures.toy:NOPE", "has no attribute 'NOPE'"),
        ("fixtures.toy:make_domain", "is a function, not a Domain"),
        ("no_such_pkg.mod:DOMAIN", "No module named 'no_such_pkg'"),
    ],
)
def test_bad_domain_refs(ref: str, message: str) -> None:
    with pytest.raises(DomainError, match=message):
        load_domain_ref(ref)


def test_missing_file_ref(tmp_path: Path) -> None:
    with pytest.raises(DomainError):
        load_domain_ref(f"{tmp_path / 'nope.py'}:DOMAIN")
