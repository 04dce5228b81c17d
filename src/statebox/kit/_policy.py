"""The policy as a searchable knowledge base, and how a policy is served to an agent.

`PolicyBase` splits a Markdown policy into articles, one per heading (the text before
the first heading is an article of its own), and indexes them in an SQLite FTS5 table
(Porter stemming) ranked by BM25, titles weighted above bodies. The index lives in its
own in-memory database, never in a world: searching cannot change a trial's state, and
one index serves every trial of a domain (a lock makes it safe across threads).

`search_policy_tool` is the read-only tool over it. How the policy reaches an agent is a
`PolicyMode`: ``prompt`` (the whole text in the prompt, no search tool — suite 1.0's
behaviour), ``search`` (the prompt carries only `policy_pointer` and the agent must
search) or ``both``.

A policy file may hold blocks shown only where a domain's step-recording tools are
offered (`render_policy`): lines between ``<!-- steps -->`` and ``<!-- /steps -->``.
Without those tools the blocks are dropped, so the text is exactly what it was before
the tools existed.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Callable
from typing import Any, Literal, NamedTuple, TypeAlias

from statebox.errors import DomainError
from statebox.tools import ToolError, ToolParam, ToolSpec, make_tool
from statebox.world import WorldTx

__all__ = [
    "POLICY_MODES",
    "PolicyArticle",
    "PolicyBase",
    "PolicyMode",
    "policy_pointer",
    "render_policy",
    "search_policy_tool",
    "split_articles",
]

PolicyMode: TypeAlias = Literal["prompt", "search", "both"]
"""How the policy is served: in the prompt, by search only, or both."""
POLICY_MODES: tuple[PolicyMode, ...] = ("prompt", "search", "both")
"""Every mode, default first."""

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_OPEN, _CLOSE = "<!-- steps -->", "<!-- /steps -->"
_WORD = re.compile(r"\w+")
_TITLE_WEIGHT, _BODY_WEIGHT = 4.0, 1.0


def render_policy(raw: str, *, steps: bool) -> str:
    """The policy text with its step blocks kept (``steps``) or dropped.

    Raises:
        DomainError: A block is opened twice, closed without opening, or left open.
    """
    out: list[str] = []
    inside = False
    for number, line in enumerate(raw.splitlines(keepends=True), start=1):
        marker = line.strip()
        if marker in (_OPEN, _CLOSE):
            if (marker == _OPEN) == inside:
                raise DomainError(f"policy line {number}: unbalanced {marker}")
            inside = marker == _OPEN
            continue
        if steps or not inside:
            out.append(line)
    if inside:
        raise DomainError(f"policy: {_OPEN} is never closed")
    return "".join(out)


class PolicyArticle(NamedTuple):
    """One article of a policy: a heading and the text up to the next heading."""

    id: str
    """Stable slug of the title, unique within the policy (``3-orders``)."""
    title: str
    """The heading text after its parents' but the document title (``Orders › Refunds``)."""
    text: str
    """The article's Markdown, heading line included."""


def _slug(title: str) -> str:
    return "-".join(_WORD.findall(title.lower())) or "article"


def split_articles(markdown: str) -> tuple[PolicyArticle, ...]:
    """Split a Markdown policy into articles at its headings (fenced code is not split).

    Returns:
        Articles in document order; empty ones (a heading with nothing under it and
        no sub-heading text) are kept, so every heading can be found by title.
    """
    chunks: list[tuple[list[str], list[str]]] = [([], [])]  # (title path, lines)
    path: list[tuple[int, str]] = []
    fenced = False
    for line in markdown.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        m = None if fenced else _HEADING.match(line)
        if m:
            level, title = len(m.group(1)), m.group(2).strip()
            path = [(lv, t) for lv, t in path if lv < level] + [(level, title)]
            # The document's own title heads every article: name it only on its own.
            shown = [t for lv, t in path if lv > 1] or [title]
            chunks.append((shown, [line]))
        else:
            chunks[-1][1].append(line)
    articles: list[PolicyArticle] = []
    seen: set[str] = set()
    for titles, lines in chunks:
        text = "\n".join(lines).strip()
        if not titles and not text:
            continue
        title = " › ".join(titles) if titles else "Introduction"
        slug = base = _slug(titles[-1] if titles else title)
        n = 2
        while slug in seen:
            slug, n = f"{base}-{n}", n + 1
        seen.add(slug)
        articles.append(PolicyArticle(slug, title, text))
    return tuple(articles)


class PolicyBase:
    """A policy's articles in an FTS5 index, ranked by BM25.

    Args:
        markdown: The policy text.

    Raises:
        DomainError: The policy has no text.
    """

    def __init__(self, markdown: str) -> None:
        self.articles = split_articles(markdown)
        if not self.articles:
            raise DomainError("a policy knowledge base needs a non-empty policy")
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(":memory:", check_same_thread=False)
        self._conn.execute(
            "CREATE VIRTUAL TABLE articles USING fts5(title, body, tokenize='porter unicode61')"
        )
        self._conn.executemany(
            "INSERT INTO articles (rowid, title, body) VALUES (?, ?, ?)",
            [(i, a.title, a.text) for i, a in enumerate(self.articles)],
        )
        self._conn.commit()

    def search(self, query: str, limit: int = 3) -> list[dict[str, Any]]:
        """The articles best matching ``query``, best first.

        Any word of the query may match (an OR of its words); BM25 ranks articles that
        match more, rarer words higher.

        Args:
            query: Free text; punctuation is ignored.
            limit: At most this many articles.

        Returns:
            One dict per article: ``article`` (id), ``title``, ``score`` (BM25, higher is
            better), ``snippet`` (matches in [brackets]) and ``text`` (the article).
        """
        words = _WORD.findall(query.lower())
        if not words:
            return []
        match = " OR ".join('"' + w.replace('"', "") + '"' for w in words)
        with self._lock:
            rows = self._conn.execute(
                f"SELECT rowid, bm25(articles, {_TITLE_WEIGHT}, {_BODY_WEIGHT}) AS rank, "
                "snippet(articles, 1, '[', ']', ' … ', 24) FROM articles "
                "WHERE articles MATCH ? ORDER BY rank, rowid LIMIT ?",
                [match, limit],
            ).fetchall()
        out = []
        for rowid, rank, snippet in rows:
            a = self.articles[rowid]
            out.append(
                {
                    "article": a.id,
                    "title": a.title,
                    "score": round(-rank, 4),
                    "snippet": snippet,
                    "text": a.text,
                }
            )
        return out


def search_policy_tool(source: Callable[[], PolicyBase]) -> ToolSpec:
    """The read-only ``search_policy`` tool over the knowledge base ``source`` returns.

    ``source`` is called on each search (build the base lazily and cache it there), so
    a domain's import builds no index.
    """

    def search_policy(tx: WorldTx, query: str, limit: int = 3) -> dict[str, Any]:
        if not 1 <= limit <= 10:
            raise ToolError(
                "invalid_state", "limit must be between 1 and 10", error_class="invalid_arguments"
            )
        if not _WORD.search(query):
            raise ToolError(
                "invalid_state", "give some words to search for", error_class="invalid_arguments"
            )
        results = source().search(query, limit)
        return {"query": query, "results": results}

    return make_tool(
        "search_policy",
        "Search the policy knowledge base: the articles that best match your words, best "
        "first, each with its full text. Search before acting on any request, and again for "
        "each rule you are unsure of.",
        mutates=False,
        params=[
            ToolParam(
                "query",
                str,
                "A few keywords or a question, such as 'refund limit for premium members'.",
            ),
            ToolParam("limit", int, "How many articles to return, 1 to 10.", 3),
        ],
        fn=search_policy,
    )


def policy_pointer(policy: str, articles: int) -> str:
    """The short text that stands for the policy in ``search`` mode.

    It keeps the policy's title (its first heading) so the agent knows whose policy it
    follows, and says how to read the rest.
    """
    title = next(
        (m.group(2) for line in policy.splitlines() if (m := _HEADING.match(line))), "Policy"
    )
    return (
        f"# {title}\n\n"
        f"This policy is not in this prompt: it is a knowledge base of {articles} articles. "
        "Search it with the `search_policy` tool before you act on any request, and follow "
        "the articles you find exactly. If no article covers a request, do not guess: say "
        "so and make no change.\n"
    )
