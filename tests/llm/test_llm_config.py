"""Models file, pricing file, role resolution, retry classification."""

from __future__ import annotations

from pathlib import Path

import pytest

from statebox.errors import ConfigError
from statebox.llm import (
    ModelCall,
    ModelSetup,
    Usage,
    load_models_file,
    load_pricing,
    parse_model_spec,
    retry_after_s,
    should_retry,
)
from statebox.settings import Settings


class _Resp:
    def __init__(self, headers: dict[str, str]) -> None:
        self.headers = headers


class _StatusError(Exception):
    def __init__(self, status: int, headers: dict[str, str] | None = None) -> None:
        self.status_code = status
        self.response = _Resp(headers or {})


def test_parse_model_spec_keeps_file_parameters_for_the_same_provider() -> None:
    base = parse_model_spec("openai:gpt-4o").model_copy(
        update={"temperature": 0.2, "base_url": "http://h/v1", "api_key_env": "K"}
    )
    same = parse_model_spec("openai:gpt-4o-mini", base)
    assert (same.model, same.temperature, same.base_url, same.key_env) == (
        "gpt-4o-mini",
        0.2,
        "http://h/v1",
        "K",
    )
    other = parse_model_spec("anthropic:claude-x", base)
    assert (other.base_url, other.key_env) == (None, "ANTHROPIC_API_KEY")
    with pytest.raises(ConfigError, match="openai:MODEL"):
        parse_model_spec("gpt-4o")
    with pytest.raises(ConfigError):
        parse_model_spec("mistral:large")


def test_models_and_pricing_files(tmp_path: Path) -> None:
    models = tmp_path / "models.yaml"
    models.write_text(
        "agent: {provider: openai, model: gpt-4o, temperature: 0.0, seed: 7}\n"
        "judge: {provider: anthropic, model: claude-x}\n"
        "retry: {max_attempts: 4, initial_wait_s: 0.5, max_wait_s: 8}\n"
    )
    pricing = tmp_path / "pricing.yaml"
    pricing.write_text(
        "models:\n"
        "  openai:gpt-4o: {input_usd_per_mtok: 2.5, output_usd_per_mtok: 10, as_of: 2026-11-30}\n"
        "  claude-x: {input_usd_per_mtok: 3, cached_input_usd_per_mtok: 0.3,"
        " output_usd_per_mtok: 15, as_of: 2026-11-01}\n"
    )
    f = load_models_file(models)
    assert f.agent is not None and f.agent.seed == 7 and f.user is None
    table = load_pricing(pricing)
    gpt = table.price("openai", "gpt-4o")
    claude = table.price("anthropic", "claude-x")  # a bare name matches any provider
    assert gpt is not None and claude is not None and table.price("openai", "x") is None
    # cached input without a cached price costs the input price
    assert gpt.cost_usd(1000, 500, 0) == pytest.approx(1000 * 2.5 / 1e6)
    assert claude.cost_usd(1000, 500, 100) == pytest.approx((500 * 3 + 500 * 0.3 + 1500) / 1e6)

    setup = ModelSetup(
        Settings(models_file=models, agent_base_url="http://local/v1", model_max_attempts=2)
    )
    agent = setup.config("agent", "openai:gpt-4o-mini")
    assert (agent.model, agent.seed, agent.base_url) == ("gpt-4o-mini", 7, "http://local/v1")
    assert setup.config("judge").label == "anthropic:claude-x"
    assert (setup.retry.max_attempts, setup.retry.max_wait_s) == (2, 8)
    with pytest.raises(ConfigError, match="no user model"):
        setup.config("user")

    bad = tmp_path / "bad.yaml"
    bad.write_text("agent: {provider: openai, model: m, temprature: 1}\n")
    with pytest.raises(ConfigError, match="temprature"):
        load_models_file(bad)


def test_retry_classification_and_retry_after() -> None:
    assert should_retry(_StatusError(429)) and should_retry(_StatusError(503))
    assert not should_retry(_StatusError(400)) and not should_retry(_StatusError(401))
    assert should_retry(ConnectionError()) and not should_retry(ValueError())
    assert retry_after_s(_StatusError(429, {"retry-after": "3"})) == 3.0
    assert retry_after_s(_StatusError(429, {"retry-after-ms": "250"})) == 0.25
    assert retry_after_s(_StatusError(429)) is None


def test_usage_sums_calls_and_counts_unpriced() -> None:
    calls = [
        ModelCall(role="agent", model="openai:m", input_tokens=10, output_tokens=2, cost_usd=0.5,
                  priced=True),
        ModelCall(role="agent", model="openai:m", input_tokens=5, cached_input_tokens=3,
                  reasoning_tokens=1, output_tokens=4),
    ]  # fmt: skip
    u = Usage.of(calls)
    assert (u.calls, u.input_tokens, u.cached_input_tokens, u.output_tokens) == (2, 15, 3, 6)
    assert (u.reasoning_tokens, u.cost_usd, u.unpriced_calls) == (1, 0.5, 1)


def test_secret_is_read_on_demand_and_never_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOME_KEY", "sk-abc")
    key = Settings.secret("SOME_KEY")
    assert key is not None and key.get_secret_value() == "sk-abc"
    assert "sk-abc" not in str(key) and "sk-abc" not in str(Settings().redacted())
    monkeypatch.setenv("SOME_KEY", "")
    assert Settings.secret("SOME_KEY") is None
