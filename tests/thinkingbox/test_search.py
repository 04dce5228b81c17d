"""The built-in search service through the real ``typesense`` client, as the servers use it."""

from __future__ import annotations

import http.client
import json
import uuid
from collections.abc import Iterator

import pytest
import typesense

from statebox.errors import ConfigError
from statebox.thinkingbox import SearchService
from statebox.thinkingbox._search import parse_typesense_url

# The dataset servers' collection schema (typesense_helpers.SCHEMA_FIELDS).
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:typesense")

SCHEMA = [
    {"name": "id", "type": "string"},
    {"name": "source", "type": "string", "facet": True},
    {"name": "chunk_index", "type": "int32"},
    {"name": "num_tokens", "type": "int32"},
    {"name": "content", "type": "string"},
    {"name": "text", "type": "string"},
    {
        "name": "embedding",
        "type": "float[]",
        "embed": {"from": ["text"], "model_config": {"model_name": "ts/e5-small"}},
    },
]
DOCS = {
    "refunds.md": "Refunds are paid within 5 days. A refund needs the original receipt.",
    "shipping.md": "Orders ship within 2 days. Express shipping costs 9 euros.",
    "privacy.md": "We never share customer data. Deleting an account removes its data.",
    "returns.md": "Returns are accepted for 30 days; the refund follows the return.",
}


@pytest.fixture(scope="module")
def service() -> Iterator[SearchService]:
    with SearchService() as svc:
        yield svc


def _client(svc: SearchService, key: str | None = None) -> typesense.Client:
    assert svc.port is not None
    return typesense.Client(
        {
            "api_key": key or svc.api_key,
            "nodes": [{"host": "127.0.0.1", "port": str(svc.port), "protocol": "http"}],
            "connection_timeout_seconds": 5,
            "num_retries": 0,
        }
    )


def _collection(client: typesense.Client) -> str:
    name = str(uuid.uuid4())
    client.collections.create({"name": name, "fields": SCHEMA})
    for source, text in DOCS.items():
        client.collections[name].documents.create(
            {
                "source": source,
                "id": "s" + uuid.uuid4().hex,
                "chunk_index": 0,
                "num_tokens": 0,
                "content": text,
                "text": text,
            }
        )
    return name


def _multi(client: typesense.Client, name: str, query: str, **common: str) -> dict:
    # Exactly the servers' `_typesense_multi_search` (keywords=[]).
    return client.multi_search.perform(
        {
            "searches": [
                {
                    "q": query,
                    "query_by": "embedding,text",
                    "sort_by": "_text_match:desc,_vector_distance:asc",
                },
                {"q": "", "query_by": "text", "sort_by": "_text_match:desc"},
            ]
        },
        {
            "collection": name,
            "group_by": "source",
            "exclude_fields": "embedding",
            "per_page": 10,
            "highlight_fields": "text",
            **common,
        },
    )


def test_collections_documents_and_the_multi_search_shape(service: SearchService) -> None:
    client = _client(service)
    name = _collection(client)
    info = client.collections[name].retrieve()
    assert (info["name"], info["num_documents"]) == (name, 4)
    with pytest.raises(typesense.exceptions.ObjectAlreadyExists):
        client.collections.create({"name": name, "fields": SCHEMA})
    with pytest.raises(typesense.exceptions.ObjectNotFound):
        client.collections[str(uuid.uuid4())].retrieve()

    result = _multi(client, name, "how long until my refund is paid")
    hybrid, keyword = result["results"]
    # Hybrid search: every document, grouped by source, each with a vector_distance;
    # the servers then sort by it: BM25 order (refunds.md has "refund" and "paid").
    groups = hybrid["grouped_hits"]
    assert sorted(g["group_key"][0] for g in groups) == sorted(DOCS)
    hits = [h for g in groups for h in g["hits"]]
    assert all("embedding" not in h["document"] and "vector_distance" in h for h in hits)
    order = [h["document"]["source"] for h in sorted(hits, key=lambda h: h["vector_distance"])]
    assert order[:2] == ["refunds.md", "returns.md"]
    assert {h["document"]["source"] for h in hits if h["vector_distance"] == 1.0} == {
        "shipping.md",
        "privacy.md",
    }  # no word of the query: the end of the order
    top = min(hits, key=lambda h: h["vector_distance"])
    assert top["document"]["text"] == DOCS["refunds.md"] and top["text_match"] > 0
    # The keyword search with no keywords finds nothing (its hits would be merged after).
    assert keyword["grouped_hits"] == [] and keyword["found"] == 0

    # filter_by as the servers build it from allowed sources.
    only = _multi(client, name, "refund", filter_by="source:=shipping.md || source:=privacy.md")
    assert {g["group_key"][0] for g in only["results"][0]["grouped_hits"]} == {
        "shipping.md",
        "privacy.md",
    }
    # Quoted keywords: phrases, all required.
    phrase = client.collections[name].documents.search(
        {"q": '"express shipping"', "query_by": "text"}
    )
    assert [h["document"]["source"] for h in phrase["hits"]] == ["shipping.md"]

    client.collections[name].delete()
    with pytest.raises(typesense.exceptions.ObjectNotFound):
        client.collections[name].retrieve()


def test_one_collection_per_init_keeps_concurrent_trials_apart(service: SearchService) -> None:
    client = _client(service)
    a, b = _collection(client), str(uuid.uuid4())
    client.collections.create({"name": b, "fields": SCHEMA})
    client.collections[b].documents.create({"source": "other.md", "text": "refund refund"})
    sources = {g["group_key"][0] for g in _multi(client, a, "refund")["results"][0]["grouped_hits"]}
    assert "other.md" not in sources
    [group] = _multi(client, b, "refund")["results"][0]["grouped_hits"]
    assert group["group_key"] == ["other.md"]
    # A search in a collection that does not exist is that search's error, as Typesense's.
    missing = _multi(client, str(uuid.uuid4()), "refund")["results"][0]
    assert missing["code"] == 404


def _raw(service: SearchService, headers: dict[str, str]) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", service.port, timeout=5)
    try:
        conn.request("GET", "/collections/x", headers=headers)
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def test_guards_key_host_origin(service: SearchService) -> None:
    with pytest.raises(typesense.exceptions.RequestUnauthorized):
        _client(service, key="Fake").collections["x"].retrieve()
    key = {"X-TYPESENSE-API-KEY": service.api_key}
    assert _raw(service, key)[0] == 404
    assert _raw(service, {**key, "Host": "evil.example:8108"})[0] == 403
    assert _raw(service, {**key, "Origin": "http://evil.example"})[0] == 403
    assert _raw(service, {**key, "Origin": f"http://127.0.0.1:{service.port}"})[0] == 404


def test_oversized_bodies_are_refused(service: SearchService) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", service.port, timeout=5)
    try:
        conn.putrequest("POST", "/collections")
        conn.putheader("X-TYPESENSE-API-KEY", service.api_key)
        conn.putheader("Content-Length", str(64 * 1024 * 1024))
        conn.endheaders()  # no body sent: refused on the header alone
        response = conn.getresponse()
        assert response.status == 413
    finally:
        conn.close()


def test_service_lifecycle_and_url_parsing() -> None:
    svc = SearchService().start()
    port = svc.target.url.rsplit(":", 1)[1]
    assert svc.target.env()["STATEBOX_TYPESENSE_URL"] == f"http://127.0.0.1:{port}"
    svc.stop()
    svc.stop()  # idempotent
    with pytest.raises(Exception, match="not running"):
        _ = svc.target
    assert parse_typesense_url("http://ts.internal:8108/") == "http://ts.internal:8108"
    with pytest.raises(ConfigError, match="expected http://HOST:PORT"):
        parse_typesense_url("ts.internal:8108")
