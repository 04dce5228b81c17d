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
import tempfile
import warnings
from pathlib import Path
from typing import IO, TypeVar

from pydantic import BaseModel, ValidationError

from statebox.errors import ResultsFormatError
from statebox.records._record import SCHEMA_VERSION, ErrorRecord, Manifest, TrialRecord

__all__ = [
    "ERRORS_FILE",
    "MANIFEST_FILE",
    "RESULTS_FILE",
    "ResultsWriter",
    "TornLineWarning",
    "read_errors",
    "read_manifest",
    "read_results",
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
    """Every trial record of a campaign directory, in file order.

    Raises:
        ResultsFormatError: A line that is not JSON (other than a torn last line), an
            unknown ``schema_version``, or an invalid record; names file and line.
    """
    return _read_jsonl(Path(directory) / RESULTS_FILE, TrialRecord)


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
        self._results: IO[str] = (directory / RESULTS_FILE).open("a", encoding="utf-8")
        self._errors: IO[str] = (directory / ERRORS_FILE).open("a", encoding="utf-8")

    def write(self, record: TrialRecord) -> None:
        """Append one trial record and flush."""
        self._results.write(record.model_dump_json() + "\n")
        self._results.flush()

    def write_error(self, record: ErrorRecord) -> None:
        """Append one error record and flush."""
        self._errors.write(record.model_dump_json() + "\n")
        self._errors.flush()

    def close(self) -> None:
        """Close both files."""
        self._results.close()
        self._errors.close()

    def __enter__(self) -> ResultsWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
