"""statebox's stand-in for the ``thinkingbox`` package, seen only by check subprocesses.

ThinkingBox test files import ``Judge`` and ``TestContext`` from ``thinkingbox.common``
and ``Text`` from ``thinkingbox.common.chat_types``. statebox puts this folder first on
the check subprocess's ``sys.path`` so those imports resolve here; statebox itself never
imports it as ``thinkingbox``.
"""
