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
from statebox.runner._mitigations import (
    BUILTIN_APPROVERS,
    MitigatedFactory,
    Mitigations,
    check_approval_gate,
    trial_mitigations,
)
from statebox.runner._progress import NullProgress, ProgressSink
from statebox.runner._ray import RayExecutor
from statebox.runner._ray_worker import RegistrySetup, WorkerKit, WorkerSetup
from statebox.runner._rejudge import Flip, Rejudged, rejudge_campaign
from statebox.runner._replay import (
    Replayed,
    comparable_verdict,
    first_difference,
    recorded_actions,
    replay_trial,
)
from statebox.runner._verify import (
    TrialCheck,
    VerifyReport,
    campaign_domains,
    campaign_limits,
    campaign_policy_mode,
    campaign_tasks,
    external_source,
    manifest_differences,
    record_problems,
    verify_campaign,
)

__all__ = [
    "BUILTIN_APPROVERS",
    "Campaign",
    "CampaignResult",
    "ChecksTasks",
    "DeclaresWrites",
    "Environment",
    "Flip",
    "MitigatedFactory",
    "Mitigations",
    "NullProgress",
    "Portable",
    "ProgressSink",
    "RayExecutor",
    "RegistrySetup",
    "Rejudged",
    "Replayed",
    "TrialCheck",
    "TrialExecutor",
    "TrialJudge",
    "UserFactory",
    "VerifyReport",
    "WorkerKit",
    "WorkerSetup",
    "campaign_domains",
    "campaign_limits",
    "campaign_policy_mode",
    "campaign_tasks",
    "campaign_verdict_settings",
    "check_approval_gate",
    "comparable_verdict",
    "external_source",
    "first_difference",
    "manifest_differences",
    "record_problems",
    "recorded_actions",
    "rejudge_campaign",
    "replay_trial",
    "run_campaign",
    "trial_mitigations",
    "verdict_changes",
    "verify_campaign",
]
