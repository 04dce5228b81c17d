"""The campaign runner: plan, concurrency, resume and error capture."""

from statebox.runner._campaign import Campaign, CampaignResult, UserFactory, run_campaign
from statebox.runner._progress import NullProgress, ProgressSink

__all__ = [
    "Campaign",
    "CampaignResult",
    "NullProgress",
    "ProgressSink",
    "UserFactory",
    "run_campaign",
]
