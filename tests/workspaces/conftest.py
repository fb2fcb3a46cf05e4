"""Fixture workspaces are data for the tests, not tests: pytest must not collect them.

(`py_project/tests/test_greeting.py` is a real test of the fixture project,
run only inside a copy of that project.)
"""

collect_ignore_glob = ["*"]
