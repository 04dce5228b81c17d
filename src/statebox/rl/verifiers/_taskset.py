"""The fields of verifiers' ``OpenEnvConfig`` for a running statebox OpenEnv server.

verifiers 0.4.0 pins ``mcp==2.0.0``, which cannot be installed beside statebox's
``mcp<2``, so this builds the config's fields as a plain dict (what the config
validates) instead of importing verifiers.
"""

from __future__ import annotations

from typing import Any

from statebox.errors import ConfigError

__all__ = ["VERIFIERS_VERSION", "openenv_taskset"]

VERIFIERS_VERSION = "0.4.0"
"""The verifiers release whose OpenEnv taskset (``verifiers/v1/tasksets/openenv``) this follows."""


def openenv_taskset(
    base_url: str,
    split: str = "train",
    *,
    token: str | None = None,
    timeout_s: float = 10.0,
) -> dict[str, Any]:
    """``{"base_url", "resets"}`` for ``OpenEnvConfig``: one reset per task of ``split``.

    The task ids come from the server's own task API (``POST /statebox/tasks``), so the
    taskset is exactly what the server serves; a test split is served only by a server
    started with ``--allow-test-split``.

    Args:
        base_url: The OpenEnv mount, e.g. ``http://127.0.0.1:8000/openenv``.
        split: The split (``train`` by default).
        token: The server's OpenEnv token, if it has one.
        timeout_s: HTTP timeout.

    Raises:
        ConfigError: The server is unreachable, does not serve the split, or has no task in it.
    """
    import httpx

    url = base_url.rstrip("/")
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        r = httpx.post(
            f"{url}/statebox/tasks", json={"split": split}, headers=headers, timeout=timeout_s
        )
    except httpx.HTTPError as exc:
        raise ConfigError(f"statebox OpenEnv server {url}: {exc}") from exc
    if r.status_code != 200:
        raise ConfigError(f"statebox OpenEnv server {url}: split {split!r}: {r.text[:200]}")
    ids = [t["id"] for t in r.json().get("tasks", [])]
    if not ids:
        raise ConfigError(f"statebox OpenEnv server {url}: no {split} tasks")
    return {"base_url": url, "resets": [{"task_id": i} for i in ids]}
