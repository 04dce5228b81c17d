"""Reports: campaign summaries as data, terminal tables and a self-contained HTML page."""

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
    "DEFAULT_MAX_TRIALS",
    "METRIC_LABELS",
    "NOT_RECORDED",
    "SIGNATURE_MEANINGS",
    "CampaignRows",
    "CheckStrength",
    "DomainCard",
    "Floor",
    "SuiteCard",
    "build_suite_card",
    "format_false_rejection",
    "format_floor",
    "format_strength",
    "print_summary",
    "render_card_markdown",
    "render_html_report",
    "strength_lines",
    "summarize",
    "summarize_campaigns",
    "write_html_report",
]
