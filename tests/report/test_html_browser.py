"""The HTML report in a real headless browser (Debian's chromium), with no network.

chromium is a test requirement (``.ci/run`` installs it); without it this test fails
rather than skips, so a CI image that lacks it is noticed.
"""

import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import quote

import pytest
from campaign_factory import write_campaign

from statebox.metrics import BootstrapSpec
from statebox.records import read_trial_rows
from statebox.report import CampaignRows, summarize_campaigns, write_html_report

CHARTS = (
    "chart-retention",
    "chart-curves",
    "chart-heatmap",
    "chart-pareto",
    "chart-signatures",
    "chart-behaviours",
)


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.fail("chromium is not installed: apt-get install -y chromium (.ci/run does this)")
    return path


def dump_dom(url: str, profile: Path) -> tuple[str, str]:
    result = subprocess.run(
        [
            chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={profile}",
            # Any request that leaves the file would go to a closed port and fail.
            "--proxy-server=http://127.0.0.1:9",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=10000",
            "--dump-dom",
            url,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout, result.stderr


def section(dom: str, element_id: str) -> str:
    start = dom.index(f'id="{element_id}"')
    end = dom.find("</section>", start)
    return dom[start:end]


@pytest.mark.slow
def test_report_renders_charts_and_opens_a_trial_offline(tmp_path: Path) -> None:
    tasks = {
        f"retail.t{i}": ("retail" if i % 2 else "bank", 4, c) for i, c in enumerate([4, 3, 0, 4, 2])
    }
    write_campaign(
        tmp_path / "one",
        {"model-a": tasks},
        cost_per_trial_usd={"model-a": 0.02},
        user_behaviour="cooperative",
        ungrounded_tasks=["retail.t3"],
    )
    write_campaign(
        tmp_path / "two",
        {"model-b": {t: (d, n, max(0, c - 1)) for t, (d, n, c) in tasks.items()}},
        cost_per_trial_usd={"model-b": 0.004},
        user_behaviour="misremembers",
    )
    campaigns = [
        CampaignRows(n, tmp_path / n, read_trial_rows(tmp_path / n)) for n in ("one", "two")
    ]
    summary = summarize_campaigns(campaigns, spec=BootstrapSpec(resamples=200))
    page = write_html_report(summary, campaigns, tmp_path / "report.html")
    failed = next(r for r in campaigns[0].rows if r.signature == "wrong_state_update")
    key = f"one|{failed.trial_id}"

    dom, log = dump_dom(f"{page.as_uri()}#trial={quote(key, safe='')}", tmp_path / "profile")

    assert 'data-ready="1"' in dom, "the page script did not finish"
    assert re.search(r'id="page-errors" data-count="0">\s*</pre>', dom), section(dom, "page-errors")
    assert "Uncaught" not in log and "ERR_" not in log
    for chart in CHARTS:
        assert 'class="main-svg"' in section(dom, chart), f"{chart} did not render"
    # Two entries in the retention chart: two groups of bars, pass@1 beside observed k/k.
    assert section(dom, "chart-retention").count('class="point"') == 4
    detail = section(dom, "trial-detail")
    assert f'data-open-trial="{failed.trial_id}"' in detail
    assert "Please move 40 from A1 to A2." in detail
    assert "golden (expected) (1)" in detail and "actual (1)" in detail
    assert '"balance":50' in detail and '"balance":60' in detail  # actual beside golden
    assert 'class="diff-wrong"' in detail
    trials = section(dom, "trial-list")
    trials = trials[: trials.index('id="trial-detail"')]
    assert trials.count("data-trial=") == 8  # the task's four trials in each campaign
    assert trials.count("model-a #") == 4 and trials.count("model-b #") == 4
    # Users: pass@1 and k/k per behaviour, the audit's shares, and the browser filter.
    users = section(dom, "users")
    assert "cooperative · model-a" in users and "misremembers · model-b" in users
    assert "1 (0.050)" in users  # one ungrounded turn of 20 audited in campaign one
    flagged, _ = dump_dom(f"{page.as_uri()}#user=ungrounded", tmp_path / "profile2")
    listed = section(flagged, "task-list")
    listed = listed[: listed.index('id="trial-pane"')]
    assert listed.count("data-task=") == 1 and 'data-task="retail.t3"' in listed
