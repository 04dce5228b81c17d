#!/usr/bin/env python3
"""Run a command in a network namespace of its own, with only the loopback interface up.

Usage: ``python scripts/loopback.py COMMAND [ARG ...]``

Inside, nothing can reach any address but loopback, whatever a library does: Ray, for
one, binds the machine's network address when it can see one and then talks to itself
over it; in a namespace with only ``lo`` it falls back to 127.0.0.1. The README's test
command and the ``bench/`` scripts that start servers, clients or Ray run through this.

As root, the command gets a new network namespace; as another user, a new user
namespace (the user's own uid and gid mapped to themselves, so files keep their owner)
that holds one. Where neither can be made (user namespaces disabled, a container
without the capability), one line on stderr says so and the command runs as it is.
The command sees ``STATEBOX_NETNS=loopback``, or ``STATEBOX_NETNS=unavailable: REASON``.
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import socket
import struct
import sys
from pathlib import Path

ENV = "STATEBOX_NETNS"
INSIDE = "loopback"

_CLONE_NEWUSER = 0x10000000
_CLONE_NEWNET = 0x40000000
_SIOCGIFFLAGS = 0x8913
_SIOCSIFFLAGS = 0x8914
_IFF_UP = 0x1


def _unshare(flags: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(flags) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def _map_self() -> None:
    """Map this user's uid and gid to themselves in the new user namespace."""
    uid, gid = os.getuid(), os.getgid()
    Path("/proc/self/setgroups").write_text("deny")  # required before an unprivileged gid_map
    Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1")
    Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1")


def _loopback_up() -> None:
    """Bring ``lo`` up (a new namespace starts with it down), as ``ip link set lo up`` does."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        req = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(s, _SIOCGIFFLAGS, req))[1]
        fcntl.ioctl(s, _SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | _IFF_UP))


def enter() -> str:
    """Move this process into a loopback-only network namespace.

    Call it while the process has one thread (a user namespace refuses threaded callers).

    Returns:
        The value for ``STATEBOX_NETNS``: ``loopback``, or ``unavailable: REASON``.
    """
    if sys.platform != "linux":
        return f"unavailable: network namespaces are Linux-only (this is {sys.platform})"
    try:
        if os.geteuid() == 0:
            _unshare(_CLONE_NEWNET)
        else:
            _unshare(_CLONE_NEWUSER | _CLONE_NEWNET)
            _map_self()
        _loopback_up()
    except OSError as exc:
        return f"unavailable: {exc.strerror or exc}"
    return INSIDE


def run(argv: list[str]) -> None:
    """Exec ``argv`` inside a loopback-only namespace (or as it is, with a notice)."""
    state = os.environ.get(ENV)
    if state != INSIDE:
        state = enter()
        if state != INSIDE:
            print(
                f"loopback: no network namespace could be made ({state.split(': ', 1)[1]}); "
                "running with the machine's network",
                file=sys.stderr,
            )
        os.environ[ENV] = state
    os.execvp(argv[0], argv)


def ensure(script: str) -> None:
    """Re-run the calling script through this wrapper unless it already runs inside.

    Args:
        script: The calling script's ``__file__``.
    """
    if ENV not in os.environ:
        run([sys.executable, script, *sys.argv[1:]])


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    run(sys.argv[1:])
