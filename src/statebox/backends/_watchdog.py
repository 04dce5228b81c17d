"""Stops a throwaway PostgreSQL whose owner died without stopping it.

Run as a script (``python -I _watchdog.py PID START FOLDER``, never imported), with
its standard input the read end of a pipe only the owning process holds open. The
owner closes it in `PostgresServer.stop`; if the owner is killed instead (SIGKILL, an
OOM kill, a CI timeout), the kernel closes it. Either way the read returns, and if
process PID is still the server started at START (its ``/proc`` start time, so a
reused PID is never signalled) it gets PostgreSQL's fast shutdown, then SIGKILL, and
its folder is removed.
"""

import os
import shutil
import signal
import sys
import time


def _start_time(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def main() -> None:
    pid, start, folder = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal's Ctrl-C is the owner's
    while sys.stdin.buffer.read(4096):
        pass
    if _start_time(pid) == start:
        os.kill(pid, signal.SIGINT)  # fast shutdown
        deadline = time.monotonic() + 30
        while _start_time(pid) == start and time.monotonic() < deadline:
            time.sleep(0.05)
        if _start_time(pid) == start:
            os.kill(pid, signal.SIGKILL)
    # The owner removes the folder itself when it stops the server; this is for a dead one.
    if os.path.basename(folder).startswith("statebox-pg-"):
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
