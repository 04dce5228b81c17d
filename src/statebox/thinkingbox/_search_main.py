"""The built-in knowledge-base search service (Typesense's REST API, in part).

The part of Typesense's REST API that ThinkingBox servers use, over SQLite FTS5 (BM25).
The parent is `_search.SearchService`.

Run by path or as a module (``python _search_main.py --port 0``); standard library only,
so it starts fast and needs nothing of statebox. It prints one line, ``{"port": N}``,
once it listens on 127.0.0.1, then serves until stdin closes or SIGTERM.

Served (what ``tb_business_ops_servers_202606.utils.typesense_helpers`` calls through
the ``typesense`` client):

- ``POST /collections`` (201; 409 if the name exists), ``GET /collections/{name}``
  (200; 404), ``DELETE /collections/{name}`` (200; 404);
- ``POST /collections/{name}/documents`` (``action`` create/upsert/update/emplace;
  409 on a duplicate id under create; an ``id`` is made up when missing);
- ``GET /collections/{name}/documents/search`` and ``POST /multi_search`` (searches
  in the body, common parameters in the query string, as the client sends them);
- ``GET /health``.

Search semantics (docs/thinkingbox.md says how they differ from Typesense):

- text: the query's words (or its quoted phrases) are matched with FTS5 over the
  ``query_by`` string fields and ranked by BM25 (Lucene's IDF) within the collection; ``text_match``
  is the BM25 score times 10^6 as an integer (higher is better);
- a query that names an ``embedding`` field in ``query_by`` is Typesense's hybrid
  search: every document of the collection is a hit, and ``vector_distance`` —
  Typesense's cosine distance — is ``1 / (1 + BM25)`` (1.0 for documents that match
  no word), so ordering by it, as the servers do, is BM25 order; no embedding model
  runs here;
- ``group_by`` groups hits by the field (``group_limit`` hits per group, default 3),
  ``per_page`` counts groups (or hits when ungrouped); ``filter_by`` takes
  ``field:=value`` and ``field:[a,b]`` clauses joined by ``||`` or ``&&``;
  ``exclude_fields`` / ``include_fields`` shape the returned documents; no highlights
  are returned (the servers build their own snippets then).

Guards (the service is a loopback daemon other processes reach): it binds 127.0.0.1
only; every request needs the ``X-TYPESENSE-API-KEY`` the parent chose (401 without);
a Host that is not loopback or a cross-site Origin is refused (403); bodies over
32 MiB are refused (413); past 64 requests in flight it answers 503, which the
servers' Typesense client and their own back-off retry.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import signal
import sqlite3
import sys
import threading
import time
import unicodedata
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

MAX_BODY = 32 * 1024 * 1024
MAX_IN_FLIGHT = 64
MAX_COLLECTIONS = 20_000
"""Collections alive at once (each trial's init makes one; teardown deletes it)."""
_LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "[::1]", "::1"}
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
"""A token as FTS5's default tokenizer (unicode61) cuts them: letters and digits."""
_PHRASE = re.compile(r'"([^"]*)"')


class ApiError(Exception):
    """An HTTP error answer: status and Typesense-style message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class Index:
    """Collections in one in-memory SQLite database: a row table and an FTS5 table each."""

    def __init__(self) -> None:
        self._db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        self._collections: dict[str, dict[str, Any]] = {}
        self._tables: dict[str, str] = {}
        self._seq = 0

    # --- collections ---------------------------------------------------------------

    def create_collection(self, schema: dict[str, Any]) -> dict[str, Any]:
        name = schema.get("name")
        fields = schema.get("fields")
        if not isinstance(name, str) or not name:
            raise ApiError(400, "Parameter `name` is required.")
        if not isinstance(fields, list):
            raise ApiError(400, "Parameter `fields` is required.")
        with self._lock:
            if name in self._collections:
                raise ApiError(409, f"A collection with name `{name}` already exists.")
            if len(self._collections) >= MAX_COLLECTIONS:
                raise ApiError(503, "Too many collections; delete some first.")
            self._seq += 1
            table = f"c{self._seq}"
            text_fields = [
                f["name"]
                for f in fields
                if isinstance(f, dict) and f.get("type") == "string" and f.get("name") != "id"
            ]
            cols = ", ".join(f'"f_{i}"' for i in range(len(text_fields)))
            self._db.execute(f'CREATE TABLE "{table}_rows" (doc_id TEXT PRIMARY KEY, doc TEXT)')
            self._db.execute(
                f'CREATE VIRTUAL TABLE "{table}_fts" USING fts5(doc_id UNINDEXED'
                + (f", {cols}" if cols else "")
                + ")"
            )
            # Every token occurrence (term, doc rowid, column): the term and document
            # frequencies and lengths that BM25 needs, from FTS5's own tokenizer.
            self._db.execute(
                f'CREATE VIRTUAL TABLE "{table}_v" USING fts5vocab("{table}_fts", instance)'
            )
            record = {
                "name": name,
                "fields": fields,
                "num_documents": 0,
                "created_at": int(time.time()),
                "default_sorting_field": "",
                "enable_nested_fields": False,
                "token_separators": [],
                "symbols_to_index": [],
                "_text_fields": text_fields,
            }
            self._collections[name] = record
            self._tables[name] = table
            return _public(record)

    def get_collection(self, name: str) -> dict[str, Any]:
        with self._lock:
            return _public(self._collection(name))

    def delete_collection(self, name: str) -> dict[str, Any]:
        with self._lock:
            record = self._collection(name)
            table = self._tables.pop(name)
            del self._collections[name]
            self._db.execute(f'DROP TABLE "{table}_v"')
            self._db.execute(f'DROP TABLE "{table}_rows"')
            self._db.execute(f'DROP TABLE "{table}_fts"')
            return _public(record)

    def _collection(self, name: str) -> dict[str, Any]:
        record = self._collections.get(name)
        if record is None:
            raise ApiError(404, f"Collection `{name}` not found.")
        return record

    # --- documents ---------------------------------------------------------------

    def add_document(self, name: str, doc: Any, action: str) -> dict[str, Any]:
        if not isinstance(doc, dict):
            raise ApiError(400, "Bad JSON: the document must be an object.")
        with self._lock:
            record = self._collection(name)
            table = self._tables[name]
            doc = dict(doc)
            doc_id = doc.get("id")
            if doc_id is None:
                doc_id = uuid.uuid4().hex
            doc_id = str(doc_id)
            doc["id"] = doc_id
            existing = self._db.execute(
                f'SELECT doc FROM "{table}_rows" WHERE doc_id = ?', (doc_id,)
            ).fetchone()
            if existing is not None:
                if action == "create":
                    raise ApiError(409, f"A document with id {doc_id} already exists.")
                if action in ("update", "emplace"):
                    doc = {**json.loads(existing[0]), **doc}
                self._delete_doc(table, doc_id)
                record["num_documents"] -= 1
            elif action == "update":
                raise ApiError(404, f"Could not find a document with id: {doc_id}")
            fields = record["_text_fields"]
            values = [_as_text(doc.get(f)) for f in fields]
            self._db.execute(
                f'INSERT INTO "{table}_rows" (doc_id, doc) VALUES (?, ?)',
                (doc_id, json.dumps(doc)),
            )
            cols = "".join(f', "f_{i}"' for i in range(len(fields)))
            marks = ", ?" * len(fields)
            self._db.execute(
                f'INSERT INTO "{table}_fts" (doc_id{cols}) VALUES (?{marks})', (doc_id, *values)
            )
            record["num_documents"] += 1
            stored: dict[str, Any] = doc
            return stored

    def _delete_doc(self, table: str, doc_id: str) -> None:
        self._db.execute(f'DELETE FROM "{table}_rows" WHERE doc_id = ?', (doc_id,))
        self._db.execute(f'DELETE FROM "{table}_fts" WHERE doc_id = ?', (doc_id,))

    # --- search ------------------------------------------------------------------

    def search(self, params: dict[str, Any]) -> dict[str, Any]:
        t0 = time.monotonic()
        name = params.get("collection")
        if not isinstance(name, str) or not name:
            raise ApiError(400, "Parameter `collection` is required.")
        q = str(params.get("q", ""))
        query_by = [f.strip() for f in str(params.get("query_by", "")).split(",") if f.strip()]
        if not query_by:
            raise ApiError(400, "Parameter `query_by` is required.")
        with self._lock:
            record = self._collection(name)
            table = self._tables[name]
            fields = record["_text_fields"]
            declared = {f.get("name"): f for f in record["fields"] if isinstance(f, dict)}
            for f in query_by:
                if f not in declared:
                    raise ApiError(404, f"Could not find a field named `{f}` in the schema.")
            hybrid = any(declared[f].get("type") == "float[]" for f in query_by)
            text_cols = [fields.index(f) for f in query_by if f in fields]
            rows = self._db.execute(f'SELECT doc_id, doc FROM "{table}_rows"').fetchall()
            docs = {doc_id: json.loads(doc) for doc_id, doc in rows}
            scores = self._bm25(table, text_cols, q)
        allowed = _filter(str(params.get("filter_by", "")), docs)
        if q.strip() == "*":
            ranked = [(d, 0.0) for d in docs if d in allowed]
        elif hybrid:
            ranked = sorted(
                ((d, scores.get(d, 0.0)) for d in docs if d in allowed),
                key=lambda item: -item[1],
            )
        else:
            ranked = sorted(
                ((d, s) for d, s in scores.items() if d in allowed), key=lambda item: -item[1]
            )
        hits = [_hit(docs[d], s, hybrid, params) for d, s in ranked]
        response = _page(hits, params, len(docs))
        response["search_time_ms"] = int((time.monotonic() - t0) * 1000)
        response["request_params"] = {
            "collection_name": name,
            "per_page": _int(params.get("per_page"), 10),
            "q": q,
        }
        return response

    def _bm25(self, table: str, cols: list[int], q: str) -> dict[str, float]:
        """BM25 of the documents that match ``q`` (doc id → score, higher is better).

        FTS5 finds the matching documents; the score is BM25 with k1 = 1.2, b = 0.75
        and Lucene's IDF, ln(1 + (N - n + 0.5) / (n + 0.5)), over FTS5's token counts
        in the ``query_by`` columns. (FTS5's own ``bm25()`` floors the IDF of a term in
        half the documents or more at 1e-6, which ranks a collection of a few whole
        policies by noise.)
        """
        names = [f"f_{c}" for c in cols]
        for match in _match_expressions(q, names):
            try:
                found = self._db.execute(
                    f'SELECT rowid, doc_id FROM "{table}_fts" WHERE "{table}_fts" MATCH ?',
                    (match,),
                ).fetchall()
            except sqlite3.OperationalError as exc:
                raise ApiError(400, f"Could not parse the query: {exc}") from None
            if found:
                return self._score(table, cols, dict(found), _terms(q))
        return {}

    def _score(
        self, table: str, cols: list[int], matched: dict[int, str], terms: list[str]
    ) -> dict[str, float]:
        marks = ",".join("?" * len(cols))
        lengths = dict(
            self._db.execute(
                f'SELECT doc, count(*) FROM "{table}_v" WHERE col IN ({marks}) GROUP BY doc',
                [f"f_{c}" for c in cols],
            ).fetchall()
        )
        n_docs = self._db.execute(f'SELECT count(*) FROM "{table}_rows"').fetchone()[0]
        avg = (sum(lengths.values()) / n_docs) if n_docs else 0.0
        tf: dict[tuple[str, int], int] = {}
        df: dict[str, set[int]] = {}
        if terms:
            term_marks = ",".join("?" * len(terms))
            for term, doc, count in self._db.execute(
                f'SELECT term, doc, count(*) FROM "{table}_v" '
                f"WHERE term IN ({term_marks}) AND col IN ({marks}) GROUP BY term, doc",
                [*terms, *(f"f_{c}" for c in cols)],
            ):
                tf[(term, doc)] = count
                df.setdefault(term, set()).add(doc)
        k1, b = 1.2, 0.75
        scores: dict[str, float] = {}
        for rowid, doc_id in matched.items():
            dl = lengths.get(rowid, 0)
            norm = k1 * (1 - b + b * (dl / avg if avg else 0.0))
            score = 0.0
            for term in terms:
                f = tf.get((term, rowid), 0)
                if f:
                    n = len(df[term])
                    idf = math.log(1 + (n_docs - n + 0.5) / (n + 0.5))
                    score += idf * f * (k1 + 1) / (f + norm)
            scores[doc_id] = score
        return scores


def _public(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if not k.startswith("_")}


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return " ".join(_as_text(v) for v in value)
    return str(value)


def _int(value: Any, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _terms(q: str) -> list[str]:
    """The distinct tokens of ``q``, lowercased without diacritics (as unicode61 folds)."""
    folded = "".join(
        ch for ch in unicodedata.normalize("NFKD", q.lower()) if not unicodedata.combining(ch)
    )
    return list(dict.fromkeys(_WORD.findall(folded)))


def _match_expressions(q: str, cols: list[str]) -> list[str]:
    """FTS5 MATCH expressions over ``cols``, tried in order until one finds something.

    Quoted phrases must all match, then (Typesense drops tokens when nothing is found)
    any of them; unquoted words: any of them.
    """
    if not cols or not q.strip() or q.strip() == "*":
        return []
    scope = "{" + " ".join(cols) + "} : "
    phrases = [" ".join(_terms(p)) for p in _PHRASE.findall(q)]
    phrases = [f'"{p}"' for p in phrases if p]
    if phrases:
        tries = [" AND ".join(phrases)] + ([" OR ".join(phrases)] if len(phrases) > 1 else [])
        return [scope + f"({t})" for t in tries]
    words = _terms(q)
    return [scope + "(" + " OR ".join(f'"{w}"' for w in words) + ")"] if words else []


def _filter(expr: str, docs: dict[str, dict[str, Any]]) -> set[str]:
    """Ids of the documents that satisfy ``filter_by`` (``||``/``&&`` of field clauses)."""
    if not expr.strip():
        return set(docs)
    if "&&" in expr and "||" in expr:
        raise ApiError(400, f"Filter `{expr}` mixes && and || (not supported here).")
    joiner = "&&" if "&&" in expr else "||"
    clauses = [c.strip().strip("()").strip() for c in expr.split(joiner)]
    matched: list[set[str]] = []
    for clause in clauses:
        m = re.fullmatch(r"([\w.]+)\s*:\s*(=)?\s*(.*)", clause)
        if m is None:
            raise ApiError(400, f"Could not parse the filter query: `{clause}`.")
        field, value = m.group(1), m.group(3).strip()
        if value.startswith("[") and value.endswith("]"):
            wanted = {_unquote(v) for v in value[1:-1].split(",")}
        else:
            wanted = {_unquote(value)}
        matched.append({d for d, doc in docs.items() if _as_text(doc.get(field)) in wanted})
    if joiner == "&&":
        return set.intersection(*matched)
    return set.union(*matched)


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == "`":
        return value[1:-1]
    return value


def _shape(doc: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    exclude = {f.strip() for f in str(params.get("exclude_fields", "")).split(",") if f.strip()}
    include = {f.strip() for f in str(params.get("include_fields", "")).split(",") if f.strip()}
    return {k: v for k, v in doc.items() if k not in exclude and (not include or k in include)}


def _hit(doc: dict[str, Any], score: float, hybrid: bool, params: dict[str, Any]) -> dict[str, Any]:
    text_match = round(score * 1_000_000)
    hit: dict[str, Any] = {
        "document": _shape(doc, params),
        "highlight": {},
        "highlights": [],
        "text_match": text_match,
        "text_match_info": {"score": str(text_match), "tokens_matched": 0, "fields_matched": 0},
    }
    if hybrid:
        # Typesense's cosine distance is in [0, 2]; this stand-in keeps BM25 order.
        hit["vector_distance"] = 1.0 / (1.0 + score) if score > 0 else 1.0
        hit["hybrid_search_info"] = {"rank_fusion_score": score}
    return hit


def _page(hits: list[dict[str, Any]], params: dict[str, Any], out_of: int) -> dict[str, Any]:
    per_page = max(0, min(_int(params.get("per_page"), 10), 250))
    page = max(1, _int(params.get("page"), 1))
    group_by = str(params.get("group_by", "")).strip()
    start = (page - 1) * per_page
    if not group_by:
        return {
            "facet_counts": [],
            "found": len(hits),
            "hits": hits[start : start + per_page],
            "out_of": out_of,
            "page": page,
        }
    group_limit = max(1, _int(params.get("group_limit"), 3))
    groups: dict[str, list[dict[str, Any]]] = {}
    for hit in hits:
        key = _as_text(hit["document"].get(group_by))
        groups.setdefault(key, []).append(hit)
    grouped = [
        {"found": len(group), "group_key": [key], "hits": group[:group_limit]}
        for key, group in groups.items()
    ]
    return {
        "facet_counts": [],
        "found": len(grouped),
        "found_docs": len(hits),
        "grouped_hits": grouped[start : start + per_page],
        "hits": [],
        "out_of": out_of,
        "page": page,
    }


class Handler(BaseHTTPRequestHandler):
    """One request: guards, routing, JSON in and out."""

    server: _Server
    protocol_version = "HTTP/1.1"
    # Headers and body leave in two writes; with Nagle on, the second waits for the
    # client's delayed ACK (~40 ms a request, ~1 s per init of nine documents).
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        return  # quiet: the parent keeps no per-request log

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_DELETE(self) -> None:
        self._handle("DELETE")

    def do_PATCH(self) -> None:
        self._handle("PATCH")

    def _handle(self, method: str) -> None:
        server = self.server
        if not server.slots.acquire(blocking=False):
            self._reply(503, {"message": "Not Ready or Lagging"}, drain=True)
            return
        try:
            status, body = self._route(method)
        except ApiError as exc:
            status, body = exc.status, {"message": exc.message}
        except Exception as exc:  # a bug here must answer, not hang the server's client
            status, body = 500, {"message": f"internal error: {type(exc).__name__}: {exc}"}
        finally:
            server.slots.release()
        self._reply(status, body)

    def _route(self, method: str) -> tuple[int, Any]:
        host = (self.headers.get("Host") or "").rsplit(":", 1)[0]
        if host not in _LOOPBACK_HOSTS:
            raise ApiError(403, "Forbidden: not a loopback Host.")
        origin = self.headers.get("Origin")
        if origin and urlsplit(origin).hostname not in _LOOPBACK_HOSTS:
            raise ApiError(403, "Forbidden: cross-site Origin.")
        parts = urlsplit(self.path)
        query = dict(parse_qsl(parts.query, keep_blank_values=True))
        key = self.headers.get("X-TYPESENSE-API-KEY") or query.pop("x-typesense-api-key", None)
        body = self._body()
        path = [unquote(p) for p in parts.path.strip("/").split("/") if p]
        if path == ["health"] and method == "GET":
            return 200, {"ok": True}
        if key != self.server.api_key:
            raise ApiError(401, "Forbidden - a valid `x-typesense-api-key` header must be sent.")
        index = self.server.index
        if path == ["collections"] and method == "POST":
            return 201, index.create_collection(_json(body))
        if len(path) == 2 and path[0] == "collections":
            if method == "GET":
                return 200, index.get_collection(path[1])
            if method == "DELETE":
                return 200, index.delete_collection(path[1])
        if (
            len(path) == 3
            and path[:1] == ["collections"]
            and path[2] == "documents"
            and (method == "POST")
        ):
            action = query.get("action", "create")
            return 201, index.add_document(path[1], _json(body), action)
        if path == ["collections", *path[1:2], "documents", "search"] and method == "GET":
            return 200, index.search({**query, "collection": path[1]})
        if path == ["multi_search"] and method == "POST":
            searches = _json(body).get("searches")
            if not isinstance(searches, list):
                raise ApiError(400, "Missing `searches` array.")
            results = []
            for search in searches:
                try:
                    results.append(index.search({**query, **(search or {})}))
                except ApiError as exc:  # Typesense answers per search, not per request
                    results.append({"code": exc.status, "error": exc.message})
            return 200, {"results": results}
        raise ApiError(404, "Not Found")

    def _body(self) -> bytes:
        length = _int(self.headers.get("Content-Length"), 0)
        if length > MAX_BODY:
            self.close_connection = True  # its body stays unread: the connection is spent
            raise ApiError(413, "Request body too large.")
        return self.rfile.read(length) if length > 0 else b""

    def _reply(self, status: int, body: Any, *, drain: bool = False) -> None:
        if drain:  # keep the connection usable: read the unread body first
            length = _int(self.headers.get("Content-Length"), 0)
            if 0 < length <= MAX_BODY:
                self.rfile.read(length)
        data = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _json(body: bytes) -> Any:
    try:
        value = json.loads(body or b"{}")
    except ValueError:
        raise ApiError(400, "Bad JSON.") from None
    return value


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = False

    def __init__(self, port: int, api_key: str) -> None:
        super().__init__(("127.0.0.1", port), Handler)
        self.api_key = api_key
        self.index = Index()
        self.slots = threading.BoundedSemaphore(MAX_IN_FLIGHT)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="statebox's built-in knowledge-base search")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    api_key = os.environ.get("STATEBOX_SEARCH_API_KEY", "")
    if not api_key:
        print("STATEBOX_SEARCH_API_KEY must be set", file=sys.stderr)
        return 2
    server = _Server(args.port, api_key)
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    print(json.dumps({"port": server.server_address[1]}), flush=True)

    def watch_parent() -> None:
        # The parent holds our stdin open; its end (the parent died) stops the service.
        sys.stdin.buffer.read()
        server.shutdown()

    threading.Thread(target=watch_parent, daemon=True).start()
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
