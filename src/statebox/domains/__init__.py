"""Domains: business backends. Built-in ones are subpackages, found through entry points.

Importing this package loads no domain; `statebox.registry` finds them.
"""

from statebox.domains._domain import Domain, SeedRows, version_key

__all__ = ["Domain", "SeedRows", "version_key"]
