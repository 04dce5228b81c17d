"""``statebox tasks card``: print (or write) the suite card."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

import typer
from rich.table import Table

from statebox.cli._app import SUITE_HELP, DomainOption, err_console, handled, tasks_app
from statebox.cli._commands import _registry, out_console, selected_suites
from statebox.cli._tasks import CacheOption, JobsOption, NoCacheOption, run_validation
from statebox.errors import ConfigError

CardFormat = Literal["table", "markdown", "json"]


@tasks_app.command("card")
@handled
def card(
    suite: Annotated[
        str | None, typer.Option(help=SUITE_HELP + " Default: all, or --domain's own.")
    ] = None,
    fmt: Annotated[CardFormat, typer.Option("--format", help="table, markdown or json.")] = "table",
    validate: Annotated[
        bool,
        typer.Option(
            "--validate/--no-validate", help="Measure check strength by validating every task."
        ),
    ] = True,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write the markdown or json to this file."),
    ] = None,
    domain: DomainOption = None,
    jobs: JobsOption = None,
    cache: CacheOption = None,
    no_cache: NoCacheOption = False,
) -> None:
    """Print the suite card (tasks, families, splits, check strength, floors, field policies).

    Also the false-rejection rate, read-only and rubric tasks, golden calls per task,
    frozen clocks, licence and intended use.
    """
    from statebox.report import (
        THINKINGBOX_V1_SOURCE,
        build_suite_card,
        card_tasks,
        format_false_rejection,
        format_floor,
        format_strength,
        render_card_markdown,
        shape_rows,
        strength_lines,
    )

    registry = _registry(domain)
    validations = None
    refs = selected_suites(registry, suite, given=False) or registry.resolve_suites("all")
    if len(refs) > 1:
        raise ConfigError(
            "a suite card covers one suite; with several --domain give --suite "
            f"(one of {', '.join(str(r) for r in refs)})"
        )
    ref, tasks = card_tasks(registry, refs[0])
    if validate:
        err_console.print("validating every task (--no-validate skips; results are cached)")
        validations = run_validation(registry, tasks, jobs, cache, no_cache)
    suite_card = build_suite_card(registry, ref, validate=validate, validations=validations)
    if fmt == "table" and output is not None:
        fmt = "markdown"
    if fmt == "markdown" or fmt == "json":
        if fmt == "markdown":
            text = render_card_markdown(suite_card)
        else:
            data = suite_card.model_dump(mode="json")
            data["tasks"] = suite_card.tasks
            total = suite_card.check_strength
            data["check_strength"] = None if total is None else total.strength
            data["false_rejection_rate"] = None if total is None else total.false_rejection_rate
            text = json.dumps(data, indent=2) + "\n"
        if output is not None:
            output.parent.mkdir(parents=True, exist_ok=True)
            output.write_text(text, encoding="utf-8")
            err_console.print(f"wrote {output}")
        else:
            typer.echo(text, nl=False)
        return
    table = Table(
        title=f"suite card: {suite_card.suite} ({suite_card.bench}, both splits, "
        f"{suite_card.tasks} tasks)"
    )
    for col in (
        "domain",
        "tasks",
        "families",
        "test/train",
        "read-only",
        "rubric",
        "user-fact",
        "refusal",
        "golden calls mean [min, max]",
        "check strength",
        "false rejection",
        "noop passes",
        "refuse passes",
        "invalid",
        "clock",
    ):
        table.add_column(col)
    for d in suite_card.domains:
        table.add_row(
            d.domain,
            str(d.tasks),
            str(len(d.families)),
            f"{d.splits.get('test', 0)}/{d.splits.get('train', 0)}",
            str(d.read_only),
            str(d.rubric),
            str(d.user_fact),
            str(d.refusal),
            f"{d.golden_calls_mean:.2f} [{d.golden_calls_min}, {d.golden_calls_max}]",
            format_strength(d.check_strength),
            format_false_rejection(d.check_strength),
            format_floor(d.check_strength, "noop"),
            format_floor(d.check_strength, "refuse"),
            "not run" if d.check_strength is None else str(d.check_strength.invalid_tasks),
            ", ".join(d.clocks),
        )
    out_console.print(table)
    if suite_card.shape is not None:
        rows = shape_rows(suite_card.shape)
        marks = "✓ met, ✗ missed" if suite_card.shape.targets is not None else "no targets"
        shape = Table(title=f"suite shape: statebox-bench {suite_card.shape.version} ({marks})")
        for col in rows[0]:
            shape.add_column(col)
        for row in rows[1:]:
            shape.add_row(*row)
        out_console.print(shape)
        out_console.print(THINKINGBOX_V1_SOURCE, highlight=False)
    fam = Table(title="tasks per family")
    for col in ("domain", "family", "tasks"):
        fam.add_column(col)
    for d in suite_card.domains:
        for f, n in d.families.items():
            fam.add_row(d.domain, f, str(n))
    out_console.print(fam)
    fields = Table(title="field policies (columns left out of comparison)")
    for col in ("domain", "column", "reason"):
        fields.add_column(col)
    for d in suite_card.domains:
        for e in d.field_policy:
            fields.add_row(d.domain, f"{e.table}.{e.column}", e.reason)
    out_console.print(fields)
    out_console.print(f"total: {suite_card.tasks} tasks in {len(suite_card.domains)} domains")
    total = suite_card.check_strength
    for line in strength_lines(total) if total is not None else ["check strength: not run"]:
        out_console.print(line, highlight=False)
    out_console.print(f"licence and intended use: {suite_card.intended_use}")
