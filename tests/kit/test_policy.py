"""The policy knowledge base: articles, FTS5/BM25 search, the read-only tool, step blocks."""

from __future__ import annotations

from datetime import datetime

import pytest

from statebox import kit
from statebox.errors import DomainError
from statebox.tools import Dispatcher, ToolCall, tool_map
from statebox.world import WorldTemplate

POLICY = """# Help desk policy

Be kind.

## 1. Refunds

Refunds go to the original card. The refund limit is $50 per order.

### 1.1 Damaged items

A damaged parcel is refunded in full after a photo.

## 2. Identity

Verify the caller's email before anything else.

```
# not a heading inside code
```
<!-- steps -->
Record the check with `verify`.
<!-- /steps -->
"""


def test_articles_follow_the_headings() -> None:
    articles = kit.split_articles(POLICY)
    assert [(a.id, a.title) for a in articles] == [
        ("help-desk-policy", "Help desk policy"),
        ("1-refunds", "1. Refunds"),
        ("1-1-damaged-items", "1. Refunds › 1.1 Damaged items"),
        ("2-identity", "2. Identity"),
    ]
    assert "# not a heading inside code" in articles[-1].text
    assert articles[2].text.startswith("### 1.1 Damaged items")


def test_bm25_ranks_the_article_that_answers_the_query() -> None:
    base = kit.PolicyBase(POLICY)
    assert base.search("refund limit per order")[0]["article"] == "1-refunds"
    assert base.search("damaged parcels photo")[0]["article"] == "1-1-damaged-items"
    hit = base.search("who must I verify?", limit=1)
    assert [h["article"] for h in hit] == ["2-identity"]
    assert "[verify]" in hit[0]["snippet"].lower()
    assert base.search("?!") == [] and base.search("zebra") == []
    scores = [h["score"] for h in base.search("refund", limit=5)]
    assert scores == sorted(scores, reverse=True) and len(scores) == 2


def test_the_search_tool_is_read_only_on_a_world() -> None:
    tool = kit.search_policy_tool(lambda: kit.PolicyBase(POLICY))
    assert tool.mutates is False
    world = WorldTemplate.build("CREATE TABLE t (id TEXT PRIMARY KEY);", {"t": [{"id": "a"}]})
    w = world.clone(datetime.fromisoformat("2026-01-01T00:00:00+00:00"))
    d = Dispatcher(w, tool_map([tool]))
    before = w.conn.total_changes
    r = d.call(ToolCall(tool="search_policy", args={"query": "refund limit", "limit": 2}))
    assert r.ok and not r.wrote and w.conn.total_changes == before
    assert [a["article"] for a in r.output["results"]][:1] == ["1-refunds"]
    bad = d.call(ToolCall(tool="search_policy", args={"query": "refund", "limit": 11}))
    assert bad.error is not None and bad.error.kind == "invalid_state"


def test_step_blocks_are_dropped_without_the_step_tools() -> None:
    plain = kit.render_policy(POLICY, steps=False)
    assert "verify`" not in plain and "<!--" not in plain
    with_steps = kit.render_policy(POLICY, steps=True)
    assert "Record the check with `verify`." in with_steps and "<!--" not in with_steps
    assert plain == POLICY.replace(
        "<!-- steps -->\nRecord the check with `verify`.\n<!-- /steps -->\n", ""
    )
    for broken in ("<!-- steps -->\nx\n", "<!-- /steps -->\n", "<!-- steps -->\n<!-- steps -->\n"):
        with pytest.raises(DomainError):
            kit.render_policy(broken, steps=True)


def test_the_pointer_names_the_policy_and_the_tool() -> None:
    text = kit.policy_pointer(POLICY, 4)
    assert text.startswith("# Help desk policy\n")
    assert "search_policy" in text and "4 articles" in text and "refund" not in text.lower()
