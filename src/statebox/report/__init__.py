"""Reports: campaign summaries as data and as terminal tables."""

from statebox.report._summary import summarize
from statebox.report._table import METRIC_LABELS, print_summary

__all__ = ["METRIC_LABELS", "print_summary", "summarize"]
