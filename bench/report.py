"""Time and peak memory of the full report over 200,000 synthetic trial records.

    python bench/report.py [--trials-total 200000] [--keep DIR]

Writes one campaign of synthetic but schema-valid results (10 agents × 1,000 tasks ×
20 trials over 5 domains; each line carries a verdict and a transcript padded to
about the size of a real retail trial, ~4.5 KB), then, in a fresh process, times:

1. reading the rows (`read_trial_rows`: streamed, transcripts not parsed),
2. the summary with every interval (`summarize_campaigns`, 2,000 bootstrap resamples
   per group and figure set, the pass@k / pass^k curve for every k),
3. the terminal tables,
4. the HTML report (2,000 trials embedded in the trial browser).

CPU time (``time.process_time`` of the measuring process) is printed beside each wall
time: on a shared machine it moves less with load than wall time does.

Peak memory is the measuring process's own high-water resident set (``VmHWM``), with
the size after imports printed beside it. Not ``ru_maxrss``: Linux carries that across
``exec`` from the parent, so a report started by a big process would report the
parent's peak.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
AGENTS, TASKS, DOMAINS = 10, 1000, 5


def _templates() -> dict[str, str]:
    sys.path.insert(0, str(ROOT / "tests" / "report"))
    from campaign_factory import make_trial

    out = {}
    shapes: dict[str, tuple[bool, bool, int]] = {
        "pass": (True, False, 0),
        "fail0": (False, False, 0),
        "fail1": (False, False, 1),
        "fail2": (False, False, 2),
        "error": (False, True, 0),
    }
    for name, (passed, error, shape) in shapes.items():
        r = make_trial("@T@", "@D@", "@A@", 0, passed, system_error=error, shape=shape)
        # Pad the transcript to the size of a real retail trial (median ~4.6 KB a line).
        r = r.model_copy(update={"transcript": r.transcript * (1 if error else 9)})
        line = r.model_dump_json()
        line = line.replace('"@T@/@A@/0"', '"@ID@"').replace('"trial":0,', '"trial":@I@,')
        out[name] = line.replace('"cost_usd":0.0', '"cost_usd":@C@')
    return out


def generate(directory: Path, total: int) -> None:
    """Write ``total`` trial records (rounded to whole agent × task blocks)."""
    directory.mkdir(parents=True, exist_ok=True)
    tpl = _templates()
    rng = random.Random(0)
    trials = max(1, total // (AGENTS * TASKS))
    difficulty = [rng.random() for _ in range(TASKS)]
    with (directory / "results.jsonl").open("w", encoding="utf-8") as f:
        for a in range(AGENTS):
            agent, skill, cost = f"agent-{a}", 0.3 + 0.07 * a, 0.001 * (a + 1)
            for t in range(TASKS):
                task, domain = f"bench.d{t % DOMAINS}.task-{t:04d}", f"d{t % DOMAINS}"
                p = min(0.98, max(0.02, skill + 0.5 - difficulty[t]))
                for i in range(trials):
                    roll = rng.random()
                    kind = "pass" if roll < p else ("error" if roll > 0.995 else f"fail{i % 3}")
                    line = (
                        tpl[kind]
                        .replace("@ID@", f"{task}/{agent}/{i}")
                        .replace("@I@", str(i))
                        .replace("@T@", task)
                        .replace("@D@", domain)
                        .replace("@A@", agent)
                        .replace("@C@", str(cost))
                    )
                    f.write(line + "\n")


def peak_rss_mib() -> float:
    """This process's own peak resident set in MiB (VmHWM; ru_maxrss where /proc lacks it)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def inherited_maxrss_mib() -> float:
    """``ru_maxrss`` in MiB: on Linux, at least the peak of the process that exec'd us."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def read_floor_s(directory: Path) -> float:
    """Seconds to read the results file's lines and nothing more (the I/O floor)."""
    t0 = time.perf_counter()
    with (directory / "results.jsonl").open("rb") as f:
        for _ in f:
            pass
    return time.perf_counter() - t0


def measure(directory: Path) -> dict[str, float]:
    """Run every report stage once; return seconds per stage and memory in MiB."""
    import numpy  # noqa: F401  (imported by the summary; counted with the imports)
    from rich.console import Console

    from statebox.metrics import BootstrapSpec
    from statebox.records import read_trial_rows
    from statebox.report import (
        CampaignRows,
        print_summary,
        summarize_campaigns,
        write_html_report,
    )

    base_mib = peak_rss_mib()
    c = time.process_time()
    floor = read_floor_s(directory)
    floor_cpu = time.process_time() - c
    t0, c0 = time.perf_counter(), time.process_time()
    rows = read_trial_rows(directory)
    t1, c1 = time.perf_counter(), time.process_time()
    campaigns = [CampaignRows(directory.name, directory, rows)]
    summary = summarize_campaigns(campaigns, spec=BootstrapSpec())
    t2, c2 = time.perf_counter(), time.process_time()
    with open("/dev/null", "w") as sink:
        print_summary(summary, Console(file=sink, width=200))
    t3, c3 = time.perf_counter(), time.process_time()
    peak_summary_mib = peak_rss_mib()
    html = write_html_report(summary, campaigns, directory / "report.html")
    t4 = time.perf_counter()
    return {
        "trials": len(rows),
        "read_rows_s": t1 - t0,
        "summary_s": t2 - t1,
        "table_s": t3 - t2,
        "report_total_s": t3 - t0,
        "read_rows_cpu_s": c1 - c0,
        "summary_cpu_s": c2 - c1,
        "table_cpu_s": c3 - c2,
        "report_total_cpu_s": c3 - c0,
        "read_floor_cpu_s": floor_cpu,
        "html_s": t4 - t3,
        "html_mib": html.stat().st_size / 2**20,
        "read_floor_s": floor,
        "file_mib": (directory / "results.jsonl").stat().st_size / 2**20,
        "rss_after_imports_mib": base_mib,
        "inherited_maxrss_mib": inherited_maxrss_mib(),
        "peak_rss_report_mib": peak_summary_mib,
        "peak_rss_with_html_mib": peak_rss_mib(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials-total", type=int, default=200_000)
    parser.add_argument("--keep", type=Path, help="generate into (or reuse) this folder")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        directory = args.keep or Path(tmp) / "bench-campaign"
        if not (directory / "results.jsonl").exists():
            t = time.perf_counter()
            generate(directory, args.trials_total)
            size = (directory / "results.jsonl").stat().st_size / 2**20
            print(f"generated {directory} ({size:.0f} MiB) in {time.perf_counter() - t:.1f} s")
        # A fresh process, so peak memory counts the report and nothing else.
        out = subprocess.run(
            [sys.executable, __file__, "--measure", str(directory)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        r = json.loads(out)
        print(f"trials: {r['trials']}")
        print(f"read rows: {r['read_rows_s']:.2f} s ({r['read_rows_cpu_s']:.2f} s CPU)")
        print(
            f"summary with intervals and curves: {r['summary_s']:.2f} s "
            f"({r['summary_cpu_s']:.2f} s CPU)"
        )
        print(f"terminal tables: {r['table_s']:.2f} s ({r['table_cpu_s']:.2f} s CPU)")
        print(
            f"full report (read + summary + tables): {r['report_total_s']:.2f} s "
            f"({r['report_total_s'] / r['read_floor_s']:.1f}x reading the file's "
            f"{r['file_mib']:.0f} MiB alone, {r['read_floor_s']:.2f} s); CPU "
            f"{r['report_total_cpu_s']:.2f} s "
            f"({r['report_total_cpu_s'] / r['read_floor_cpu_s']:.1f}x the read's "
            f"{r['read_floor_cpu_s']:.2f} s)"
        )
        print(f"HTML report: {r['html_s']:.2f} s more, {r['html_mib']:.1f} MiB file")
        print(
            f"peak RSS: {r['peak_rss_report_mib']:.0f} MiB for the report "
            f"({r['rss_after_imports_mib']:.0f} MiB after imports), "
            f"{r['peak_rss_with_html_mib']:.0f} MiB with the HTML; the file is "
            f"{r['file_mib']:.0f} MiB"
        )


if __name__ == "__main__":
    main()
