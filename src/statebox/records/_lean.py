"""The lean results reader behind `read_trial_rows`: typed, one C decode per line.

Each line is decoded by msgspec straight into the small typed structs below, which
name only the fields a `TrialRow` holds; the decoder checks their types and skips
every other field without building Python objects for it. pydantic's
``model_validate_json`` of the full `TrialRecord` costs about 20× more per line, and
``json.loads`` of a lean cut about 4×: over 200,000 records that is most of a report.

The transcript, the bulk of a line, is cut out before decoding: records are written in
field order (``... verdict, termination, transcript, timings, ... approvals``), so the
bytes from the first ``,"transcript":`` to the last ``,"timings":`` are left out. Inside
JSON strings a quote is always escaped, so these keys cannot match inside a value; one
used as a key of a nested object (a table column named ``transcript``) sits deeper
than the record's own keys, the cut leaves brackets unbalanced, the decode fails, and
the whole line is decoded instead, as it is for any other layout. A line that fails
both ways is not JSON, not of this schema version, or not a record: the caller names
the file and line.
"""

from __future__ import annotations

import gc
from pathlib import Path
from typing import NamedTuple

import msgspec

from statebox.records._io import TrialRow
from statebox.records._record import TrialStatus

__all__ = ["BadLine", "read_rows"]

_TRANSCRIPT_KEY = b',"transcript":'
_TIMINGS_KEY = b',"timings":'
_BLOCK_BYTES = 1 << 23


class _Flags(msgspec.Struct, gc=False):
    clean_termination: bool
    called_mutating_tool: bool
    last_tool_ok: bool


class _Check(msgspec.Struct, gc=False):
    skipped: bool = False


class _Entry(msgspec.Struct, gc=False):
    """A comparison entry: an object, only counted (its fields are skipped)."""


class _Comparison(msgspec.Struct, gc=False):
    missing: tuple[_Entry, ...] = ()
    wrong: tuple[_Entry, ...] = ()
    extra: tuple[_Entry, ...] = ()


class _Verdict(msgspec.Struct, gc=False):
    checks: tuple[_Check, ...]
    comparison: _Comparison
    signature: str | None
    flags: _Flags
    unrecovered_error: str | None = None


class _Audit(msgspec.Struct, gc=False):
    user_turns: int = 0
    ungrounded_turns: int = 0
    volunteered_turns: int = 0


class _User(msgspec.Struct, gc=False):
    behaviour: str
    audit: _Audit = msgspec.field(default_factory=_Audit)


class _Approvals(msgspec.Struct, gc=False):
    held: int = 0
    refused: int = 0


class _Line(msgspec.Struct, gc=False):
    trial_id: str
    task_id: str
    domain: str
    agent_id: str
    status: TrialStatus
    verdict: _Verdict | None
    schema_version: object = None
    cost_usd: float = 0.0
    user: _User | None = None
    approvals: _Approvals | None = None


_decode = msgspec.json.Decoder(_Line).decode
_SYSTEM_ERROR = TrialStatus.SYSTEM_ERROR


class BadLine(NamedTuple):
    """The first line `read_rows` could not read (the caller names file and line).

    Attributes:
        line: 1-based line number.
        raw: The line's bytes.
        last: The file's last line, with no newline after it (possibly torn).
        reason: What the decoder said (``schema_version``: decoded, another version).
    """

    line: int
    raw: bytes
    last: bool
    reason: str


def _row(d: _Line) -> TrialRow:
    v = d.verdict
    u = d.user
    a = d.approvals
    status = d.status
    if v is None:
        signature = "system_error" if status is _SYSTEM_ERROR else None
        judged = missing = wrong = extra = clean = mutating = last_ok = skipped = False
        unrecovered = None
    else:
        signature = v.signature or ("system_error" if status is _SYSTEM_ERROR else None)
        judged = True
        c, f = v.comparison, v.flags
        missing, wrong, extra = bool(c.missing), bool(c.wrong), bool(c.extra)
        clean, mutating, last_ok = f.clean_termination, f.called_mutating_tool, f.last_tool_ok
        skipped = any(check.skipped for check in v.checks)
        unrecovered = v.unrecovered_error
    return TrialRow(
        d.trial_id,
        d.task_id,
        d.domain,
        d.agent_id,
        status,
        signature,
        judged,
        missing,
        wrong,
        extra,
        clean,
        mutating,
        last_ok,
        skipped,
        d.cost_usd,
        None if u is None else u.behaviour,
        0 if u is None else u.audit.user_turns,
        0 if u is None else u.audit.ungrounded_turns,
        0 if u is None else u.audit.volunteered_turns,
        unrecovered,
        0 if a is None else a.held,
        0 if a is None else a.refused,
    )


def read_rows(path: Path, version: int) -> tuple[list[TrialRow], BadLine | None]:
    """Every line's row in file order (blank lines skipped), up to the first bad line.

    Returns:
        The rows, and the first line that decodes neither cut nor whole or whose
        ``schema_version`` is not ``version`` (None: every line was read).
    """
    # Rows are tuples the collector tracks; its passes over 200,000 of them while they
    # are built cost about a fifth of the read, and they form no cycles.
    paused = gc.isenabled()
    gc.disable()
    try:
        return _read(path, version)
    finally:
        if paused:
            gc.enable()


def _read(path: Path, version: int) -> tuple[list[TrialRow], BadLine | None]:
    rows: list[TrialRow] = []
    append = rows.append
    number = 0
    with path.open("rb") as f:
        carry = b""
        while True:
            block = f.read(_BLOCK_BYTES)
            at_end = not block
            # At the end, what is left is a last line with no newline after it.
            buf = (carry + b"\n" if carry else b"") if at_end else carry + block
            find, rfind = buf.find, buf.rfind
            pos = 0
            while (nl := find(b"\n", pos)) >= 0:
                number += 1
                d = None
                cut = find(_TRANSCRIPT_KEY, pos, nl)
                if cut > pos:
                    tail = rfind(_TIMINGS_KEY, cut, nl)
                    if tail > cut:
                        try:
                            d = _decode(buf[pos:cut] + buf[tail:nl])
                        except msgspec.DecodeError:
                            d = None  # another layout, or a bad line: decoded whole below
                if d is None:
                    raw = buf[pos:nl]
                    try:
                        d = _decode(raw)
                    except msgspec.DecodeError as exc:
                        pos = nl + 1
                        if raw.strip():
                            return rows, BadLine(number, raw, at_end, str(exc))
                        continue
                if d.schema_version != version:
                    return rows, BadLine(number, buf[pos:nl], at_end, "schema_version")
                append(_row(d))
                pos = nl + 1
            if at_end:
                return rows, None
            carry = buf[pos:]
