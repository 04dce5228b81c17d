"""Records: trial, error and manifest models, and the campaign directory's files."""

from statebox.records._io import (
    ERRORS_FILE,
    MANIFEST_FILE,
    RESULTS_FILE,
    ResultsWriter,
    TornLineWarning,
    read_errors,
    read_manifest,
    read_results,
    write_manifest,
)
from statebox.records._record import (
    SCHEMA_VERSION,
    AgentInfo,
    ErrorRecord,
    Manifest,
    Timings,
    TrialRecord,
    TrialStatus,
    trial_id,
)

__all__ = [
    "ERRORS_FILE",
    "MANIFEST_FILE",
    "RESULTS_FILE",
    "SCHEMA_VERSION",
    "AgentInfo",
    "ErrorRecord",
    "Manifest",
    "ResultsWriter",
    "Timings",
    "TornLineWarning",
    "TrialRecord",
    "TrialStatus",
    "read_errors",
    "read_manifest",
    "read_results",
    "trial_id",
    "write_manifest",
]
