"""%gpubench: the IPython magic, registered on a stand-in for IPython's shell."""

import gpubench
from gpubench import _magic


class Shell:
    def __init__(self):
        self.user_ns = {}
        self.magics = {}

    def register_magic_function(self, function, kind, name):
        self.magics[(kind, name)] = function


def test_options_then_statement():
    settings, statement = _magic._parse("--l2 warm --max-time 0.1 total = sum(values)")
    assert settings == {"l2": "warm", "max_time": 0.1, "min_time": 0.05}
    assert statement == "total = sum(values)"


def test_line_and_cell_magics_time_the_statement_in_the_users_namespace():
    shell = Shell()
    gpubench.load_ipython_extension(shell)
    assert set(shell.magics) == {("line", "gpubench"), ("cell", "gpubench")}
    assert shell.magics[("line", "gpubench")].needs_local_scope
    calls = []
    shell.user_ns.update(values=list(range(100)), note=calls.append)
    results = shell.magics[("line", "gpubench")]("--min-samples 3 --max-time 0.1 note(sum(values))")
    record = results[0]
    assert record["device"] == "cpu" and record["status"] == "ok"
    assert len(calls) >= 3 and set(calls) == {4950}
    cell = shell.magics[("cell", "gpubench")]("--min-samples 3 --max-time 0.1", "x = sum(values)\nnote(x)")
    assert cell[0]["status"] == "ok" and cell[0]["statistics"]["count"] >= 3
