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

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
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
            f"domain name {name!r}: use a lowercase identifier (letters, digits, _), "
            "such as 'my_desk'"
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
