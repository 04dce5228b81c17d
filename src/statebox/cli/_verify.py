"""``statebox verify`` and ``statebox rejudge``: replay a campaign's recorded calls."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from statebox.cli._app import SUITE_HELP, CampaignDomainOption, app, handled
from statebox.cli._commands import _registry, out_console
from statebox.errors import ConfigError

_INFORMATIONAL = ("statebox version", "git revision")
"""Manifest differences that change no verdict by themselves (the replay decides)."""


def _campaign(directory: Path, domain: list[str] | None) -> tuple[Any, list[Any], Any]:
    from statebox.records import read_manifest, read_results
    from statebox.runner import campaign_domains

    if not directory.is_dir():
        raise ConfigError(f"{directory}: no such campaign directory")
    manifest = read_manifest(directory)
    records = read_results(directory)
    if not records:
        raise ConfigError(f"{directory}: no trial records to replay")
    registry = campaign_domains(manifest, _registry(domain))
    return manifest, records, registry


@app.command()
@handled
def verify(
    directory: Annotated[Path, typer.Argument(help="Campaign directory.")],
    domain: CampaignDomainOption = None,
    tasks: Annotated[
        list[Path] | None,
        typer.Option(
            help="The campaign's task files, where they moved (their hash is still checked)."
        ),
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the findings as JSON.")] = False,
) -> None:
    """Rebuild every trial's world, replay its recorded calls, check results and verdicts."""
    from statebox.records import read_all_results
    from statebox.runner import record_problems, verify_campaign

    manifest, records, registry = _campaign(directory, domain)
    t0 = time.perf_counter()
    found = asyncio.run(verify_campaign(manifest, records, registry, task_paths=tasks))
    took = time.perf_counter() - t0
    # The records themselves: every planned trial once, nothing else, no disguised one.
    bad = record_problems(manifest, read_all_results(directory)) + found.mismatches
    blocking = [d for d in found.differences if not d.startswith(_INFORMATIONAL)]
    if json_out:
        typer.echo(
            json.dumps(
                {
                    "campaign_id": manifest.campaign_id,
                    "differences": found.differences,
                    "trials": len(found.trials),
                    "reproduced": len(found.trials) - len(found.mismatches),
                    "mismatches": [{"trial_id": t.trial_id, "problem": t.problem} for t in bad],
                    "system_errors_not_replayed": found.skipped,
                    "seconds": round(took, 3),
                },
                indent=2,
            )
        )
    else:
        for d in found.differences:
            out_console.print(f"differs: {d}")
        for t in bad:
            out_console.print(f"mismatch: {t.trial_id}: {t.problem}")
        out_console.print(
            f"verified {directory}: {len(found.trials) - len(found.mismatches)} of "
            f"{len(found.trials)} judged trials reproduced exactly; "
            f"{len(found.mismatches)} differ; {len(bad) - len(found.mismatches)} record "
            f"problems (missing, unplanned, repeated or disguised trials); "
            f"{len(found.skipped)} system errors not replayed (nothing was judged) "
            f"[{took:.2f} s]"
        )
    if bad or blocking:
        raise typer.Exit(1)


@app.command()
@handled
def rejudge(
    directory: Annotated[Path, typer.Argument(help="Campaign directory to re-judge.")],
    out: Annotated[Path, typer.Option(help="New campaign directory to write.")],
    suite: Annotated[
        str | None,
        typer.Option(help="Judge against this built-in suite's tasks now. " + SUITE_HELP),
    ] = None,
    tasks: Annotated[
        list[Path] | None, typer.Option(help="Judge against these task files or folders.")
    ] = None,
    judge: Annotated[
        str | None,
        typer.Option(help="Rubric judge model (openai:MODEL, anthropic:MODEL); none: unjudged."),
    ] = None,
    judge_base_url: Annotated[str | None, typer.Option(help="Judge model endpoint.")] = None,
    domain: CampaignDomainOption = None,
) -> None:
    """Re-score a campaign's transcripts against fixed or changed tasks; no agent model runs."""
    from statebox.runner import campaign_tasks, rejudge_campaign

    if suite is not None and tasks:
        raise ConfigError("give one of --suite and --tasks")
    if out.resolve() == directory.resolve():
        raise ConfigError("--out must be a new directory; the old campaign is never rewritten")
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out}: is a file, not a campaign directory")
    manifest, records, registry = _campaign(directory, domain)
    task_list = campaign_tasks(manifest, registry, suite=suite, task_paths=tasks)
    source = (
        f"suite:{registry.resolve_suite(suite)}"
        if suite is not None
        else ", ".join(str(p) for p in tasks)
        if tasks
        else manifest.task_source
    )
    rubric, label, setup = None, None, None
    if judge is not None:
        from statebox.judge import ModelRubricJudge
        from statebox.llm import ModelSetup
        from statebox.settings import Settings

        try:
            settings = Settings.model_validate({"judge": judge, "judge_base_url": judge_base_url})
        except ValueError as exc:
            raise ConfigError(f"settings: {exc}") from exc
        setup = ModelSetup(settings)
        config = setup.config("judge", judge)
        rubric, label = ModelRubricJudge(setup.hub, config), config.label

    async def go() -> Any:
        try:
            return await rejudge_campaign(
                manifest, records, task_list, registry, out,
                source=source, rubric=rubric, judge_label=label,
            )  # fmt: skip
        finally:
            if setup is not None:
                await setup.aclose()

    done = asyncio.run(go())
    for f in done.flips:
        out_console.print(f"flipped: {f.trial_id}: {f.was} -> {f.now} ({f.why})")
    for trial, why in done.inapplicable:
        out_console.print(f"left out: {trial}: {why}")
    out_console.print(
        f"rejudged {done.rejudged} trials into {out}: {len(done.flips)} verdicts flipped, "
        f"{len(done.inapplicable)} left out (listed above), "
        f"{len(done.not_judged)} system errors not re-judged"
    )
