"""Your own domain: scaffold a package (`new_domain`) and lint a domain (`check_domain`).

``statebox domain new NAME`` writes a pip-installable project from the templates in
``template/``; ``statebox domain check REF`` runs `check_domain`. Both are described in
the README's "Your own domain" section.
"""

from statebox.scaffold._check import DomainCheck, Finding, check_domain
from statebox.scaffold._new import TEMPLATE_DIR, check_domain_name, new_domain

__all__ = [
    "TEMPLATE_DIR",
    "DomainCheck",
    "Finding",
    "check_domain",
    "check_domain_name",
    "new_domain",
]
