"""`ByIdentity`: a value built once per set of objects, found again only for those objects."""

from __future__ import annotations

from statebox.serve._by_identity import ByIdentity


def test_a_value_is_built_once_per_objects_and_never_for_equal_others() -> None:
    cache: ByIdentity[int] = ByIdentity(limit=8)
    builds: list[int] = []

    def build(n: int) -> int:
        builds.append(n)
        return n

    a, b = ["x"], ["x"]  # equal, not the same object
    assert cache.get((a,), lambda: build(1)) == 1
    assert cache.get((a,), lambda: build(2)) == 1  # found again
    assert cache.get((b,), lambda: build(3)) == 3  # equal is not enough
    assert cache.get([a, b], lambda: build(4)) == 4  # a list works as the tuple does
    assert cache.get((a, b), lambda: build(5)) == 4
    assert builds == [1, 3, 4]


def test_past_its_limit_the_cache_starts_afresh() -> None:
    cache: ByIdentity[int] = ByIdentity(limit=2)
    held = [object() for _ in range(3)]
    for o in held:
        cache.get((o,), lambda: 0)
    assert len(cache) == 1
    assert cache.get((held[0],), lambda: 99) == 99  # rebuilt after the clear
