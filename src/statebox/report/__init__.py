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
    format_false_rejection,
    format_floor,
    format_strength,
    render_card_markdown,
    strength_lines,
)
from statebox.report._html import DEFAULT_MAX_TRIALS, render_html_report, write_html_report
from statebox.report._summary import CampaignRows, summarize, summarize_campaigns
from statebox.report._table import METRIC_LABELS, SIGNATURE_MEANINGS, print_summary
from statebox.report._users import NOT_RECORDED

__all__ = [
    "CARD_METRICS",
    "COMPLEXITY",
    "DEFAULT_MAX_TRIALS",
    "METRIC_LABELS",
    "NOT_RECORDED",
    "SIGNATURE_MEANINGS",
    "AblationConfig",
    "CampaignRows",
    "CheckStrength",
    "DomainCard",
    "Floor",
    "SuiteCard",
    "analyze_ablation",
    "build_suite_card",
    "format_false_rejection",
    "format_floor",
    "format_strength",
    "policy_decisions",
    "print_ablation",
    "print_summary",
    "render_campaign_card",
    "render_card_markdown",
    "render_html_report",
    "strength_lines",
    "summarize",
    "summarize_campaigns",
    "welch_t_test",
    "write_html_report",
]
