"""statebox: grade business AI agents by the database they leave behind.

`import statebox` is cheap: it loads no SDKs and does no I/O. Public names live in
the subpackages (``statebox.world``, ``statebox.tools``, ``statebox.tasks``, ...).
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("statebox")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
