"""``statebox tasks validate --thinkingbox DATASET``: call-level mutation testing.

It runs a ThinkingBox dataset's mutants through its own servers; the printing of
call-level results is shared with ``--call-level`` on statebox's own suites.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from typing import Any

import typer
from rich.table import Table

from statebox.cli._app import err_console
from statebox.cli._commands import out_console
from statebox.cli._thinkingbox import TbOptions, open_dataset

__all__ = ["print_call_level", "run_tb_validate"]


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def print_call_level(results: Sequence[Any], title: str, *, survivors_shown: int = 25) -> None:
    """The strength table (per domain and operator) and the survivor table by field."""
    from statebox.judge._call_mutants import OPERATORS, strength_table, survivor_table

    table = Table(title=f"call-level check strength: {title}")
    table.add_column("domain")
    for op in OPERATORS:
        table.add_column(f"{op} (killed/real)")
    table.add_column("strength")
    table.add_column("equivalent")
    for row in strength_table(results):
        cells = []
        for op in OPERATORS:
            k, s = row.by_operator[op]
            cells.append(f"{_pct(k / (k + s)) if k + s else '—'} ({k}/{k + s})")
        table.add_row(row.domain, *cells, _pct(row.strength), str(row.equivalent))
    out_console.print(table)
    survivors = survivor_table(results)
    if survivors:
        st = Table(title=f"survivors by field ({sum(n for _, n, _, _ in survivors)} field hits)")
        for col in ("field", "survivors", "operators", "example"):
            st.add_column(col)
        for field, n, ops, example in survivors[:survivors_shown]:
            st.add_row(field, str(n), ops, example[:120])
        out_console.print(st)
        if len(survivors) > survivors_shown:
            out_console.print(
                f"... {len(survivors) - survivors_shown} more fields (--json for all)"
            )


def run_tb_validate(
    options: TbOptions, *, concurrency: int, max_alter: int, json_out: bool
) -> None:
    """Mutation-test a ThinkingBox dataset; exit 1 when a task could not be judged."""
    from statebox.judge._call_mutants import strength_table
    from statebox.thinkingbox._mutants import CaseValidation, validate_thinkingbox

    t0 = time.monotonic()
    run = open_dataset(options, log_dir=None)
    done = [0]
    total = len(run.tasks)

    def progress(case: CaseValidation) -> None:
        done[0] += 1
        if done[0] % 25 == 0 or done[0] == total:
            err_console.print(f"validated {done[0]}/{total} tasks", highlight=False)

    async def go() -> list[CaseValidation]:
        try:
            return await validate_thinkingbox(
                run, concurrency=concurrency, max_alter_per_call=max_alter, on_case=progress
            )
        finally:
            await run.aclose()

    cases = asyncio.run(go())
    elapsed = time.monotonic() - t0
    results = [m for c in cases for m in c.mutants]
    bad = [c for c in cases if c.problems]
    overall = strength_table(results)[-1]
    if json_out:
        typer.echo(
            json.dumps(
                {
                    "tasks": len(cases),
                    "with_problems": len(bad),
                    "check_strength": overall.strength,
                    "killed": overall.killed,
                    "survived": overall.survived,
                    "equivalent": overall.equivalent,
                    "seconds": round(elapsed, 1),
                    "cases": [
                        {
                            "task_id": c.task_id,
                            "domain": c.domain,
                            "problems": list(c.problems),
                            "unstable_fields": list(c.unstable),
                            "mutants": [m.model_dump() for m in c.mutants],
                        }
                        for c in cases
                    ],
                },
                indent=2,
            )
        )
    else:
        print_call_level(results, f"{len(cases)} ThinkingBox tasks")
        out_console.print(
            f"check strength over the dataset: {_pct(overall.strength)} ({overall.killed} "
            f"killed, {overall.survived} survived, {overall.equivalent} equivalent) in "
            f"{elapsed:.0f} s",
            highlight=False,
        )
        for c in bad[:10]:
            err_console.print(f"{c.task_id}: {'; '.join(c.problems)[:400]}", style="yellow")
    if bad:
        err_console.print(f"{len(bad)} of {len(cases)} task(s) could not be judged", style="red")
        raise typer.Exit(1)
