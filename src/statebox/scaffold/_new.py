"""``statebox domain new``: write a pip-installable domain package from the templates.

The templates are package data beside this module (``template/``, files ending in
``.tmpl``); ``__module__`` in a path is the package's name. Placeholders are
``{{name}}``, ``{{title}}`` and ``{{statebox_version}}``.
"""

from __future__ import annotations

import importlib.util
import keyword
import re
from pathlib import Path

import statebox
from statebox.errors import ConfigError

__all__ = ["TEMPLATE_DIR", "check_domain_name", "new_domain"]

TEMPLATE_DIR = Path(__file__).parent / "template"
"""Where the templates are."""

_NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")  # a module, a folder and a distribution name
_SUFFIX = ".tmpl"


def check_domain_name(name: str) -> None:
    """Refuse a name that cannot be the new package's module and domain name.

    Raises:
        ConfigError: Not a lowercase identifier, a Python keyword, or the name of a module
            that is importable here already (the new package would shadow it, or be
            shadowed).
    """
    if not _NAME.match(name) or keyword.iskeyword(name):
        raise ConfigError(
            f"domain name {name!r}: use a lowercase identifier (letters, digits, _; at most "
            "64), such as 'my_desk'"
        )
    try:
        found = importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        found = True
    if found:
        raise ConfigError(
            f"domain name {name!r}: a module of that name is importable already; the new "
            "package would shadow it (choose another name)"
        )
    from statebox.registry import installed_domain_names

    if name in installed_domain_names():
        raise ConfigError(
            f"domain name {name!r}: an installed domain has that name already (its suite "
            "and task ids would clash; choose another name)"
        )
    canonical = _canonical(name)
    taken = next((d for d in _distributions() if _canonical(d) == canonical), None)
    if taken is not None:
        # pip would replace that distribution with the new package (pytest_xdist).
        raise ConfigError(
            f"domain name {name!r}: the installed distribution {taken!r} has that name; "
            "installing the new package would replace it (choose another name)"
        )


def _canonical(name: str) -> str:
    """A distribution name as pip compares it (PEP 503: runs of -_. are one, any case)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _distributions() -> list[str]:
    from importlib.metadata import distributions

    return [d.metadata["Name"] for d in distributions() if d.metadata["Name"]]


def new_domain(name: str, directory: Path) -> list[Path]:
    """Write the domain package ``name`` into ``directory``.

    Args:
        name: The domain's name: its module, distribution and entry-point name.
        directory: Where the project goes; it must not exist or be empty.

    Returns:
        The files written, sorted.

    Raises:
        ConfigError: A bad name (`check_domain_name`), or a ``directory`` that is a file
            or not empty.
    """
    check_domain_name(name)
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise ConfigError(f"{directory}: exists and is not empty; choose a new --dir")
    values = {
        "{{name}}": name,
        "{{title}}": name.replace("_", " ").title(),
        "{{statebox_version}}": statebox.__version__,
    }
    written = []
    for source in sorted(TEMPLATE_DIR.rglob(f"*{_SUFFIX}")):
        relative = source.relative_to(TEMPLATE_DIR).as_posix().replace("__module__", name)
        target = directory / relative.removesuffix(_SUFFIX)
        text = source.read_text(encoding="utf-8")
        for key, value in values.items():
            text = text.replace(key, value)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"{target}: cannot write it: {exc.strerror or exc}") from exc
        written.append(target)
    return sorted(written)
