"""The judge: golden replay, effect comparison, checks, verdicts, validation and mutants."""

from statebox.judge._compare import Comparison, Discrepancy, compare
from statebox.judge._judge import (
    Judge,
    failure_signature,
    termination_check,
    weak_evaluator_flags,
)
from statebox.judge._lint import (
    IdentifierProblem,
    SolvabilityProblem,
    lint_identifiers,
    lint_solvability,
)
from statebox.judge._model_rubric import ModelRubricJudge, parse_judgement
from statebox.judge._rubric import RubricAnswer, RubricJudge, parse_yes_no
from statebox.judge._validate import (
    MutantResult,
    TaskValidation,
    static_problems,
    task_problems,
    validate_task,
)
from statebox.judge._verdict import CheckResult, FailureSignature, Verdict, WeakEvaluatorFlags

__all__ = [
    "CheckResult",
    "Comparison",
    "Discrepancy",
    "FailureSignature",
    "IdentifierProblem",
    "Judge",
    "ModelRubricJudge",
    "MutantResult",
    "RubricAnswer",
    "RubricJudge",
    "SolvabilityProblem",
    "TaskValidation",
    "Verdict",
    "WeakEvaluatorFlags",
    "compare",
    "failure_signature",
    "lint_identifiers",
    "lint_solvability",
    "parse_judgement",
    "parse_yes_no",
    "static_problems",
    "task_problems",
    "termination_check",
    "validate_task",
    "weak_evaluator_flags",
]
