"""``statebox run --executor ray``: the worker recipe the CLI hands to `RayExecutor`.

Each Ray worker rebuilds the run's model side from the same resolved `Settings` the
driver used (flags, env, file), so the agent, user and judge are the ones the driver
planned with. API keys are not shipped: a worker reads them from its own environment
(the variables the models file names), as the driver does. Imported only by ``run``
when it is asked for Ray.
"""

from __future__ import annotations

import importlib.util
import ipaddress
import socket
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from statebox.errors import ConfigError
from statebox.runner import RayExecutor, WorkerKit
from statebox.settings import Settings

__all__ = ["CliSetup", "local_ray_notice", "ray_executor"]


class CliSetup(NamedTuple):
    """The CLI's worker recipe: registry, user and judge as ``statebox run`` builds them."""

    settings: Settings
    """The run's resolved settings."""
    domain_refs: tuple[str, ...]
    """``--domain`` references, file paths made absolute."""
    agent_specs: tuple[str, ...]
    """The run's agent specs (a user or judge on an agent's model shares its endpoint)."""

    def __call__(self) -> WorkerKit:
        """Build the registry, simulated user and rubric judge in a worker."""
        from statebox.cli._models import run_models
        from statebox.registry import default_registry, load_domain_ref

        roles = run_models(self.settings, self.agent_specs)
        registry = default_registry(self.settings, roles.setup)
        for ref in self.domain_refs:
            registry.register_domain(load_domain_ref(ref))
        return WorkerKit(registry, roles.users, roles.rubric, roles.setup.aclose)


def _absolute(ref: str) -> str:
    # Ray workers run in their own working directory: a relative file.py must not move.
    target, colon, attr = ref.rpartition(":")
    if target.endswith(".py"):
        return f"{Path(target).resolve()}:{attr}"
    if not colon and ref.endswith(".py"):
        return str(Path(ref).resolve())
    return ref


def _check_reachable(address: str, timeout_s: float = 5.0) -> None:
    """Refuse a cluster address nothing answers at (Ray would wait on it for minutes).

    Raises:
        ConfigError: Nothing listens at the address (or at the cluster ``auto`` names).
    """
    target = address
    if address == "auto":
        current = Path(tempfile.gettempdir()) / "ray" / "ray_current_cluster"
        if not current.is_file():
            raise ConfigError(
                "--ray-address auto: no Ray cluster started on this machine "
                "(ray start --head, or leave out --ray-address for a local Ray)"
            )
        target = current.read_text().strip()
    host, _, port = target.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return  # a form we cannot probe: Ray itself will say
    try:
        socket.create_connection((host, int(port)), timeout=timeout_s).close()
    except OSError as exc:
        raise ConfigError(
            f"--ray-address {address}: no Ray cluster answers at {host}:{port} ({exc}); "
            "start one with ray start --head, or leave out --ray-address for a local Ray"
        ) from None


def ray_executor(
    settings: Settings,
    domain_refs: Sequence[str],
    agent_specs: Sequence[str],
    address: str | None,
    workers: int | None,
) -> RayExecutor:
    """The executor of ``statebox run --executor ray``.

    Args:
        settings: The run's resolved settings.
        domain_refs: ``--domain`` references.
        agent_specs: The run's agent specs.
        address: ``--ray-address`` (None: a local Ray started for this run).
        workers: ``--ray-workers`` (None: one per cluster CPU).

    Raises:
        ConfigError: A human user (one terminal cannot serve a cluster).
    """
    if settings.user == "human":
        raise ConfigError("--user human needs --executor local")
    if importlib.util.find_spec("ray") is None:
        raise ConfigError('--executor ray needs Ray: pip install -e ".[ray]" (the ray extra)')
    if address is not None:
        _check_reachable(address)
    setup = CliSetup(settings, tuple(_absolute(r) for r in domain_refs), tuple(agent_specs))
    return RayExecutor(setup, address=address, workers=workers)


def local_ray_notice(node_ip: str | None = None) -> str | None:
    """The line to print when a local Ray would listen beyond loopback, else None.

    A Ray started by ``ray.init()`` binds the address it routes from (the machine's
    network address), not 127.0.0.1, and opens its ports there; only where no such
    address exists (a loopback-only network namespace) does it use 127.0.0.1.

    Args:
        node_ip: The address Ray would use (None: ask Ray).
    """
    if node_ip is None:
        import ray.util

        node_ip = str(ray.util.get_node_ip_address())  # type: ignore[no-untyped-call]
    try:
        if ipaddress.ip_address(node_ip).is_loopback:
            return None
    except ValueError:
        pass
    return (
        f"note: the local Ray listens on this machine's network address {node_ip}, not "
        "127.0.0.1 (its ports are open on that interface); to keep Ray on a private "
        "network, start it there (ray start --head --node-ip-address=PRIVATE_IP) and "
        "pass --ray-address PRIVATE_IP:6379"
    )


def executor_for(
    kind: str,
    settings: Settings,
    domain_refs: Sequence[str],
    agent_specs: Sequence[str],
    address: str | None,
    workers: int | None,
) -> RayExecutor | None:
    """The executor ``--executor`` names: None for ``local``, a `RayExecutor` for ``ray``.

    Raises:
        ConfigError: Another name, or Ray options with the local executor.
    """
    if kind == "local":
        if address is not None or workers is not None:
            raise ConfigError("--ray-address and --ray-workers need --executor ray")
        return None
    if kind == "ray":
        return ray_executor(settings, domain_refs, agent_specs, address, workers)
    raise ConfigError(f"unknown executor {kind!r}; choose local or ray")
