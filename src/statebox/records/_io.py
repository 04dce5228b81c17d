"""Reading and writing a campaign directory.

``results.jsonl`` and ``errors.jsonl`` are append-only, one record per line, flushed
after each line, so a killed campaign loses at most the line being written. A torn
last line (no newline, not valid JSON) is tolerated by readers and cut off by
`ResultsWriter` before it appends again. ``manifest.json`` is written whole: temp
file, fsync, rename.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import warnings
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import IO, Any, NamedTuple, TypeVar

from pydantic import BaseModel, ValidationError

from statebox.errors import ResultsFormatError
from statebox.records._record import (
    SCHEMA_VERSION,
    ErrorRecord,
    Manifest,
    TrialRecord,
    TrialStatus,
    latest_per_trial,
)
from statebox.settings import Settings

__all__ = [
    "ERRORS_FILE",
    "MANIFEST_FILE",
    "RESULTS_FILE",
    "ResultsWriter",
    "TornLineWarning",
    "TrialRow",
    "find_trial",
    "read_errors",
    "read_manifest",
    "read_result_dicts",
    "read_results",
    "read_trial_rows",
    "scrub_secrets",
    "trial_row",
    "write_manifest",
]

RESULTS_FILE = "results.jsonl"
ERRORS_FILE = "errors.jsonl"
MANIFEST_FILE = "manifest.json"

M = TypeVar("M", bound=BaseModel)


class TornLineWarning(UserWarning):
    """The last line of a JSONL file was cut short (a killed writer); it was skipped."""


def _check_version(data: object, path: Path, line: int | None) -> None:
    version = data.get("schema_version") if isinstance(data, dict) else None
    if version != SCHEMA_VERSION:
        raise ResultsFormatError(
            f"schema_version {version!r} is not {SCHEMA_VERSION}; "
            "upgrade statebox to read newer results",
            path=path,
            line=line,
            version=version if isinstance(version, int) else None,
        )


def _read_jsonl(path: Path, model: type[M]) -> list[M]:
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    out: list[M] = []
    for i, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        last = i == len(lines)  # no newline after it: possibly torn
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            if last:
                warnings.warn(f"{path}:{i}: torn last line skipped", TornLineWarning, stacklevel=3)
                break
            raise ResultsFormatError(f"not JSON: {exc}", path=path, line=i) from exc
        _check_version(data, path, i)
        try:
            out.append(model.model_validate(data))
        except ValidationError as exc:
            raise ResultsFormatError(f"invalid record: {exc}", path=path, line=i) from exc
    return out


def read_results(directory: Path) -> list[TrialRecord]:
    """The latest record of every trial of a campaign directory (`latest_per_trial`).

    Raises:
        ResultsFormatError: A line that is not JSON (other than a torn last line), an
            unknown ``schema_version``, or an invalid record; names file and line.
    """
    # Append-only: a re-run trial (--retry-errors) has several lines; the last one wins.
    return latest_per_trial(_read_jsonl(Path(directory) / RESULTS_FILE, TrialRecord))


def read_all_results(directory: Path) -> list[TrialRecord]:
    """Every record line of a campaign directory, in file order (re-runs included).

    Raises:
        ResultsFormatError: As `read_results`.
    """
    return _read_jsonl(Path(directory) / RESULTS_FILE, TrialRecord)


class TrialRow(NamedTuple):
    """What metrics and reports read of one trial record: no transcript, no effects.

    Attributes:
        trial_id: ``<task id>/<agent id>/<trial>``.
        task_id: Task id.
        domain: Task domain.
        agent_id: Agent configuration id.
        status: passed, failed or system_error.
        signature: Failure signature value; ``"system_error"`` for a system error
            without a verdict; None for a passed trial.
        judged: Whether the trial has a verdict.
        missing: The verdict lists missing effects.
        wrong: The verdict lists wrong values.
        extra: The verdict lists extra effects.
        clean_termination: Weak-evaluator flag (False without a verdict).
        called_mutating_tool: Weak-evaluator flag (False without a verdict).
        last_tool_ok: Weak-evaluator flag (False without a verdict).
        skipped_checks: Some check was not evaluated (a rubric with no judge model).
        cost_usd: Model spend of the trial in US dollars.
        user_behaviour: The campaign's user behaviour (None: not recorded).
        user_turns: Follow-up user turns audited for grounding.
        ungrounded_turns: Of those, turns stating an ungrounded value.
        volunteered_turns: Of those, turns volunteering a fact not asked for.
        unrecovered_error: Class of the last tool error the agent did not recover from
            (None: none, or a record from before error classes).
        approvals_held: Calls an approval gate held.
        approvals_refused: Of those, refused by the approver.
    """

    trial_id: str
    task_id: str
    domain: str
    agent_id: str
    status: TrialStatus
    signature: str | None
    judged: bool
    missing: bool
    wrong: bool
    extra: bool
    clean_termination: bool
    called_mutating_tool: bool
    last_tool_ok: bool
    skipped_checks: bool
    cost_usd: float
    user_behaviour: str | None = None
    user_turns: int = 0
    ungrounded_turns: int = 0
    volunteered_turns: int = 0
    unrecovered_error: str | None = None
    approvals_held: int = 0
    approvals_refused: int = 0


def _approval_fields(approvals: Any) -> tuple[int, int]:
    """(held, refused) of a row from a record's ``approvals`` (a dict or the model)."""
    if approvals is None:
        return 0, 0
    if isinstance(approvals, dict):
        return int(approvals.get("held", 0)), int(approvals.get("refused", 0))
    return approvals.held, approvals.refused


def _user_fields(user: Any) -> tuple[str | None, int, int, int]:
    """The user columns of a row from a record's ``user`` (a dict or a `UserInfo`)."""
    if user is None:
        return None, 0, 0, 0
    if isinstance(user, dict):
        audit = user.get("audit") or {}
        return (
            str(user["behaviour"]),
            int(audit.get("user_turns", 0)),
            int(audit.get("ungrounded_turns", 0)),
            int(audit.get("volunteered_turns", 0)),
        )
    a = user.audit
    return user.behaviour, a.user_turns, a.ungrounded_turns, a.volunteered_turns


def trial_row(record: TrialRecord) -> TrialRow:
    """The `TrialRow` of a full record."""
    v = record.verdict
    behaviour, turns, ungrounded, volunteered = _user_fields(record.user)
    held, refused = _approval_fields(record.approvals)
    signature = (
        v.signature.value
        if v is not None and v.signature is not None
        else ("system_error" if record.status == TrialStatus.SYSTEM_ERROR else None)
    )
    return TrialRow(
        trial_id=record.trial_id,
        task_id=record.task_id,
        domain=record.domain,
        agent_id=record.agent_id,
        status=record.status,
        signature=signature,
        judged=v is not None,
        missing=bool(v and v.comparison.missing),
        wrong=bool(v and v.comparison.wrong),
        extra=bool(v and v.comparison.extra),
        clean_termination=bool(v and v.flags.clean_termination),
        called_mutating_tool=bool(v and v.flags.called_mutating_tool),
        last_tool_ok=bool(v and v.flags.last_tool_ok),
        skipped_checks=bool(v and any(c.skipped for c in v.checks)),
        cost_usd=record.cost_usd,
        user_behaviour=behaviour,
        user_turns=turns,
        ungrounded_turns=ungrounded,
        volunteered_turns=volunteered,
        unrecovered_error=v.unrecovered_error if v is not None else None,
        approvals_held=held,
        approvals_refused=refused,
    )


_TRIAL_ID = re.compile(rb'"trial_id":("(?:[^"\\\\]|\\\\.)*")')
_BLOCK_BYTES = 1 << 23


def _block_lines(path: Path) -> Iterator[tuple[int, bytes, int, int, bool]]:
    """Yield ``(line number, buffer, start, end, last)`` for each line of a file.

    The file is read in blocks and each line is a slice ``buffer[start:end]`` of one,
    so callers copy out only the bytes they need; ``last`` marks a final line with no
    newline after it (possibly torn).
    """
    line = 0
    with path.open("rb") as f:
        carry = b""
        while block := f.read(_BLOCK_BYTES):
            buf = carry + block
            pos = 0
            while (nl := buf.find(b"\n", pos)) >= 0:
                line += 1
                yield line, buf, pos, nl, False
                pos = nl + 1
            carry = buf[pos:]
        if carry:
            yield line + 1, carry, 0, len(carry), True


def read_trial_rows(directory: Path) -> list[TrialRow]:
    """The `TrialRow` of every trial of a campaign, without transcripts (`latest_per_trial`).

    Much faster and leaner than `read_results` on large campaigns: each line is decoded
    in C into typed structs holding only a row's fields, with the transcript cut out
    first (`statebox.records._lean`); no pydantic model is built. Only the fields a
    `TrialRow` holds are checked, against the types of `TrialRecord`.

    Raises:
        ResultsFormatError: A line that is not JSON (other than a torn last line), an
            unknown ``schema_version``, or a record missing a needed field, holding one
            of the wrong type or an unknown status; names file and line.
    """
    from statebox.records._lean import read_rows  # msgspec: only when a report reads

    path = Path(directory) / RESULTS_FILE
    if not path.exists():
        return []
    rows, bad = read_rows(path, SCHEMA_VERSION)
    if bad is not None:
        try:
            data = json.loads(bad.raw)
        except ValueError as exc:
            if not bad.last:
                raise ResultsFormatError(f"not JSON: {exc}", path=path, line=bad.line) from exc
            warnings.warn(
                f"{path}:{bad.line}: torn last line skipped", TornLineWarning, stacklevel=2
            )
        else:
            _check_version(data, path, bad.line)
            raise ResultsFormatError(f"invalid record: {bad.reason}", path=path, line=bad.line)
    return latest_per_trial(rows)  # a re-run trial's last line wins (see read_results)


def read_result_dicts(directory: Path, trial_ids: Collection[str]) -> dict[str, dict[str, Any]]:
    """Whole results lines as plain dicts (transcripts included) for the given trials.

    Args:
        directory: The campaign directory.
        trial_ids: Trials to return; other lines are skipped after reading their id.

    Returns:
        Trial id → the line's JSON object (the last line of a re-run trial), for the
        ids found.

    Raises:
        ResultsFormatError: As `read_trial_rows`, for the lines returned.
    """
    path = Path(directory) / RESULTS_FILE
    wanted = set(trial_ids)
    out: dict[str, dict[str, Any]] = {}
    if not path.exists() or not wanted:
        return out
    for line, buf, start, end, last in _block_lines(path):
        m = _TRIAL_ID.search(buf, start, min(end, start + 4096))
        if m is not None and json.loads(m.group(1)) not in wanted:
            continue
        try:
            data = json.loads(buf[start:end])
        except ValueError as exc:
            if last or not buf[start:end].strip():
                continue
            raise ResultsFormatError(f"not JSON: {exc}", path=path, line=line) from exc
        _check_version(data, path, line)
        if data.get("trial_id") in wanted:
            out[data["trial_id"]] = data
    return out


def find_trial(directory: Path, trial_id: str) -> TrialRecord | None:
    """The latest record of one trial, parsing only the lines that can hold it.

    Lines are screened for the id as it appears in JSON before any is parsed, so one
    trial of a large campaign is found without validating every record.

    Raises:
        ResultsFormatError: A candidate line is malformed or of an unknown version.
    """
    path = Path(directory) / RESULTS_FILE
    if not path.exists():
        return None
    needle = json.dumps(trial_id).encode()
    found: TrialRecord | None = None
    with path.open("rb") as f:
        for number, raw in enumerate(f, start=1):
            if needle not in raw:
                continue
            try:
                data = json.loads(raw)
            except json.JSONDecodeError as exc:
                if not raw.endswith(b"\n"):  # torn last line: skipped, as readers do
                    break
                raise ResultsFormatError(f"not JSON: {exc}", path=path, line=number) from exc
            _check_version(data, path, number)
            if data.get("trial_id") != trial_id:
                continue
            try:
                found = TrialRecord.model_validate(data)
            except ValidationError as exc:
                raise ResultsFormatError(f"invalid record: {exc}", path=path, line=number) from exc
    return found


def read_errors(directory: Path) -> list[ErrorRecord]:
    """Every error record of a campaign directory (see `read_results` for errors)."""
    return _read_jsonl(Path(directory) / ERRORS_FILE, ErrorRecord)


def read_manifest(directory: Path) -> Manifest:
    """The campaign's manifest.

    Raises:
        ResultsFormatError: Missing, not JSON, unknown version or invalid.
    """
    path = Path(directory) / MANIFEST_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ResultsFormatError("no manifest: not a campaign directory", path=path) from exc
    except json.JSONDecodeError as exc:
        raise ResultsFormatError(f"not JSON: {exc}", path=path) from exc
    _check_version(data, path, None)
    try:
        return Manifest.model_validate(data)
    except ValidationError as exc:
        raise ResultsFormatError(f"invalid manifest: {exc}", path=path) from exc


def write_manifest(directory: Path, manifest: Manifest) -> None:
    """Write manifest.json atomically (temp file, fsync, rename)."""
    directory.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".manifest.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(manifest.model_dump_json(indent=2))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, directory / MANIFEST_FILE)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _mend_tail(path: Path) -> None:
    """Make the file end at a line boundary without losing a record.

    A last line that parses (a complete record whose newline was lost) gets its newline;
    one that does not (torn mid-write) is cut — exactly what readers skip, so resume
    re-runs that trial and no other.
    """
    if not path.exists() or path.stat().st_size == 0:
        return
    with path.open("rb+") as f:
        data = f.read()
        if data.endswith(b"\n"):
            return
        cut = data.rfind(b"\n") + 1
        try:
            json.loads(data[cut:])
        except ValueError:
            f.truncate(cut)
        else:
            f.write(b"\n")


_SECRET_PATTERNS = re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}|\b(?i:bearer)\s+[A-Za-z0-9._~+/\-]{8,}")
"""Credential shapes an endpoint may echo back in an error (OpenAI-style keys, bearer
tokens), scrubbed whatever their source."""


def scrub_secrets(text: str, secrets: Sequence[str]) -> str:
    """``text`` with every known secret value and credential-shaped token redacted."""
    for value in secrets:
        if value in text:
            text = text.replace(value, "[redacted]")
    # Each pattern needs "sk-" or (any case) "bearer": a plain search rules both out at a
    # fraction of the regex's cost over a whole record.
    if "sk-" not in text and "bearer" not in text.lower():
        return text
    return _SECRET_PATTERNS.sub("[redacted]", text)


class ResultsWriter:
    """Appends trial and error records to a campaign directory, one flushed line each.

    Args:
        directory: The campaign directory (created if missing).
    """

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.directory = directory
        for name in (RESULTS_FILE, ERRORS_FILE):
            _mend_tail(directory / name)
        # An endpoint may echo a key back in an error message: nothing stored keeps it.
        self._secrets = Settings.secret_values()
        self._results: IO[str] = (directory / RESULTS_FILE).open("a", encoding="utf-8")
        self._errors: IO[str] = (directory / ERRORS_FILE).open("a", encoding="utf-8")

    def write(self, record: TrialRecord) -> None:
        """Append one trial record and flush (secrets scrubbed)."""
        self._results.write(scrub_secrets(record.model_dump_json(), self._secrets) + "\n")
        self._results.flush()

    def write_error(self, record: ErrorRecord) -> None:
        """Append one error record and flush (secrets scrubbed)."""
        self._errors.write(scrub_secrets(record.model_dump_json(), self._secrets) + "\n")
        self._errors.flush()

    def close(self) -> None:
        """Close both files."""
        self._results.close()
        self._errors.close()

    def __enter__(self) -> ResultsWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
