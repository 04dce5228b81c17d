"""Host names a loopback server answers to: the DNS-rebinding check every server makes.

A page in a browser can point a name it controls at 127.0.0.1; its requests then carry
that name in ``Host``. A server that answers only its loopback names and the address it
is bound to (plus names an operator lists) cannot be reached that way.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

__all__ = ["LOOPBACK_HOSTS", "allowed_hosts", "host_name"]

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
"""Host names a loopback server answers to by default."""


def host_name(value: str) -> str:
    """The host of a ``Host`` header value or an origin, lower-cased, without port."""
    value = value.strip().lower()
    if "://" in value:
        value = urlsplit(value).netloc.rpartition("@")[2]
    if value.startswith("["):  # [::1]:8000
        return value[1:].partition("]")[0]
    if value.count(":") == 1:
        return value.partition(":")[0]
    return value


def allowed_hosts(bound: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """Loopback names, the bound address (unless a wildcard) and ``extra``, lower-cased."""
    hosts = set(LOOPBACK_HOSTS) | {host_name(h) for h in extra}
    if bound not in ("0.0.0.0", "::", ""):
        hosts.add(host_name(bound))
    return frozenset(hosts)
