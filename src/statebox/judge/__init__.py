"""The judge: golden replay, effect comparison, checks, verdicts, validation and mutants."""

from statebox.judge._align import IdMap, align_inserts
from statebox.judge._changes import (
    ColumnChange,
    RowChange,
    TableChanges,
    golden_changes,
    table_changes,
)
from statebox.judge._checks import (
    Query,
    StateMatch,
    invariant_checks,
    match_state,
    reply_checks,
    selected_rows,
    text_checks,
)
from statebox.judge._compare import Comparison, Discrepancy, compare
from statebox.judge._environment import (
    JUDGE_VERSION,
    environment_diff,
    environment_hash,
    environment_parts,
)
from statebox.judge._judge import (
    Judge,
    StateJudge,
    agent_messages,
    failure_signature,
    termination_check,
    unrecovered_error,
    weak_evaluator_flags,
)
from statebox.judge._lint import (
    IdentifierProblem,
    SolvabilityProblem,
    lint_identifiers,
    lint_solvability,
)
from statebox.judge._model_rubric import ModelRubricJudge, parse_judgement
from statebox.judge._mutants import OPERATORS, MutantResult
from statebox.judge._probes import PROBES, ProbeResult
from statebox.judge._rubric import RubricAnswer, RubricJudge, parse_yes_no
from statebox.judge._shape import (
    DomainShape,
    ShapeTargets,
    SuiteShape,
    TaskShape,
    suite_shape,
    task_shape,
    task_signature,
)
from statebox.judge._suite import default_cache_dir, validate_suite
from statebox.judge._text import find_fact, normalise, respell
from statebox.judge._validate import (
    BASELINES,
    TaskCheck,
    TaskValidation,
    YesJudge,
    check_judged_task,
    check_task,
    judged_task_problems,
    static_problems,
    task_problems,
    validate_judged_task,
    validate_task,
)
from statebox.judge._verdict import (
    CheckResult,
    FailureSignature,
    StateHashes,
    Verdict,
    WeakEvaluatorFlags,
)

__all__ = [
    "BASELINES",
    "JUDGE_VERSION",
    "OPERATORS",
    "PROBES",
    "CheckResult",
    "ColumnChange",
    "Comparison",
    "Discrepancy",
    "DomainShape",
    "FailureSignature",
    "IdMap",
    "IdentifierProblem",
    "Judge",
    "ModelRubricJudge",
    "MutantResult",
    "ProbeResult",
    "Query",
    "RowChange",
    "RubricAnswer",
    "RubricJudge",
    "ShapeTargets",
    "SolvabilityProblem",
    "StateHashes",
    "StateJudge",
    "StateMatch",
    "SuiteShape",
    "TableChanges",
    "TaskCheck",
    "TaskShape",
    "TaskValidation",
    "Verdict",
    "WeakEvaluatorFlags",
    "YesJudge",
    "agent_messages",
    "align_inserts",
    "check_judged_task",
    "check_task",
    "compare",
    "default_cache_dir",
    "environment_diff",
    "environment_hash",
    "environment_parts",
    "failure_signature",
    "find_fact",
    "golden_changes",
    "invariant_checks",
    "judged_task_problems",
    "lint_identifiers",
    "lint_solvability",
    "match_state",
    "normalise",
    "parse_judgement",
    "parse_yes_no",
    "reply_checks",
    "respell",
    "selected_rows",
    "static_problems",
    "suite_shape",
    "table_changes",
    "task_problems",
    "task_shape",
    "task_signature",
    "termination_check",
    "text_checks",
    "unrecovered_error",
    "validate_judged_task",
    "validate_suite",
    "validate_task",
    "weak_evaluator_flags",
]
