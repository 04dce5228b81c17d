"""Reports: campaign summaries as data, terminal tables and a self-contained HTML page."""

from statebox.report._ablation import (
    COMPLEXITY,
    AblationConfig,
    analyze_ablation,
    policy_decisions,
    print_ablation,
    welch_t_test,
)
from statebox.report._campaign_card import CARD_METRICS, render_campaign_card
from statebox.report._card import (
    CheckStrength,
    DomainCard,
    Floor,
    SuiteCard,
    build_suite_card,
    card_tasks,
    format_false_rejection,
    format_floor,
    format_strength,
    render_card_markdown,
    shape_markdown,
    strength_lines,
)
from statebox.report._html import DEFAULT_MAX_TRIALS, render_html_report, write_html_report
from statebox.report._shape_card import (
    SUITE_TARGETS,
    THINKINGBOX_V1,
    THINKINGBOX_V1_SOURCE,
    ShapeTable,
    build_shape_table,
    shape_rows,
)
from statebox.report._summary import (
    CampaignRows,
    compared_environment_diff,
    environment_difference,
    summarize,
    summarize_campaigns,
)
from statebox.report._table import METRIC_LABELS, SIGNATURE_MEANINGS, print_summary
from statebox.report._users import NOT_RECORDED

__all__ = [
    "CARD_METRICS",
    "COMPLEXITY",
    "DEFAULT_MAX_TRIALS",
    "METRIC_LABELS",
    "NOT_RECORDED",
    "SIGNATURE_MEANINGS",
    "SUITE_TARGETS",
    "THINKINGBOX_V1",
    "THINKINGBOX_V1_SOURCE",
    "AblationConfig",
    "CampaignRows",
    "CheckStrength",
    "DomainCard",
    "Floor",
    "ShapeTable",
    "SuiteCard",
    "analyze_ablation",
    "build_shape_table",
    "build_suite_card",
    "card_tasks",
    "compared_environment_diff",
    "environment_difference",
    "format_false_rejection",
    "format_floor",
    "format_strength",
    "policy_decisions",
    "print_ablation",
    "print_summary",
    "render_campaign_card",
    "render_card_markdown",
    "render_html_report",
    "shape_markdown",
    "shape_rows",
    "strength_lines",
    "summarize",
    "summarize_campaigns",
    "welch_t_test",
    "write_html_report",
]
