"""The campaign runner: plan, concurrency, resume, error capture and external environments."""

from statebox.runner._campaign import (
    Campaign,
    CampaignResult,
    UserFactory,
    campaign_verdict_settings,
    run_campaign,
    verdict_changes,
)
from statebox.runner._environment import (
    ChecksTasks,
    DeclaresWrites,
    Environment,
    Portable,
    TrialJudge,
)
from statebox.runner._executor import TrialExecutor
from statebox.runner._progress import NullProgress, ProgressSink
from statebox.runner._ray import RayExecutor
from statebox.runner._ray_worker import RegistrySetup, WorkerKit, WorkerSetup

__all__ = [
    "Campaign",
    "CampaignResult",
    "ChecksTasks",
    "DeclaresWrites",
    "Environment",
    "NullProgress",
    "Portable",
    "ProgressSink",
    "RayExecutor",
    "RegistrySetup",
    "TrialExecutor",
    "TrialJudge",
    "UserFactory",
    "WorkerKit",
    "WorkerSetup",
    "campaign_verdict_settings",
    "run_campaign",
    "verdict_changes",
]
