"""The task-id header reaches scripted models on loopback only, never a hosted provider."""

from __future__ import annotations

import pytest

from statebox.llm import TASK_HEADER, task_headers


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/v1",
        "http://127.8.9.10/v1",
        "http://localhost:11434/v1",
        "http://[::1]:9/v1",
    ],
)
def test_loopback_models_get_the_task_header(url: str) -> None:
    assert task_headers("retail.x.001", url) == {TASK_HEADER: "retail.x.001"}


@pytest.mark.parametrize(
    "url",
    [None, "https://api.openai.com/v1", "http://10.0.0.5:8000/v1", "https://127.0.0.1.example.com"],
)
def test_other_models_do_not(url: str | None) -> None:
    assert task_headers("retail.x.001", url) == {}
