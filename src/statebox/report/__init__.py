"""Reports: campaign summaries as data, terminal tables and a self-contained HTML page."""

from statebox.report._card import (
    DomainCard,
    SuiteCard,
    build_suite_card,
    format_strength,
    render_card_markdown,
)
from statebox.report._html import DEFAULT_MAX_TRIALS, render_html_report, write_html_report
from statebox.report._summary import CampaignRows, summarize, summarize_campaigns
from statebox.report._table import METRIC_LABELS, print_summary
from statebox.report._users import NOT_RECORDED

__all__ = [
    "DEFAULT_MAX_TRIALS",
    "METRIC_LABELS",
    "NOT_RECORDED",
    "CampaignRows",
    "DomainCard",
    "SuiteCard",
    "build_suite_card",
    "format_strength",
    "print_summary",
    "render_card_markdown",
    "render_html_report",
    "summarize",
    "summarize_campaigns",
    "write_html_report",
]
