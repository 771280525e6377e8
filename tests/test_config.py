"""[tool.pypto-migrate] in pyproject.toml, through real subprocesses: found by walking up,
overridden by the command line, a bad one named."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import FIXTURES
from test_ci_output import KERNEL, cli, text



def rules_used(done) -> set[str]:
    return {e["rule"] for e in json.loads(done.stdout)["edits"]}


def test_found_by_walking_up_and_overridden_by_the_command_line(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.pypto-migrate]\nignore = ["PTO001"]\n')
    deep = tmp_path / "models" / "sub"
    deep.mkdir(parents=True)
    (deep / "pyproject.toml").write_text("[project]\nname = 'x'\n")  # no table: the walk goes on
    (deep / "k.py").write_text(KERNEL)
    done = cli("check", "--format", "json", "models/sub", cwd=tmp_path)
    assert rules_used(done) == set(), "PTO001 ignored by the configuration"
    assert [f["rule"] for f in json.loads(done.stdout)["findings"]] == ["API"], "the view left for a person"
    assert rules_used(cli("check", "--format", "json", "k.py", cwd=deep)) == set()
    overridden = cli("check", "--format", "json", "--ignore", "PTO002", "models/sub", cwd=tmp_path)
    assert overridden.returncode == 1 and rules_used(overridden) == {"PTO001"}
    (tmp_path / "pyproject.toml").write_text('[tool.pypto-migrate]\nselect = ["view-to-slice"]\n')
    assert rules_used(cli("check", "--format", "json", "models", cwd=tmp_path)) == {"PTO001"}
    elsewhere = tmp_path.parent / f"{tmp_path.name}-other"
    elsewhere.mkdir()
    (elsewhere / "k.py").write_text(KERNEL)
    assert cli("check", "k.py", cwd=elsewhere).returncode == 1, "no configuration: every rule"


def test_exclude_while_walking_and_with_force_exclude(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.pypto-migrate]\nexclude = ["generated", "legacy/*.py"]\n')
    for name in ("generated/a/k.py", "legacy/old.py", "models/k.py", "models/generated/k.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(KERNEL)
    done = cli("check", "--format", "json", ".", cwd=tmp_path)
    assert [f["file"] for f in json.loads(done.stdout)["files"]] == ["models/k.py"]
    named = cli("check", "--format", "json", "legacy/old.py", cwd=tmp_path)
    assert [f["file"] for f in json.loads(named.stdout)["files"]] == ["legacy/old.py"], "a named file is taken"
    forced = cli("check", "--force-exclude", "legacy/old.py", "models/k.py", "--format", "json", cwd=tmp_path)
    assert [f["file"] for f in json.loads(forced.stdout)["files"]] == ["models/k.py"]
    piped = cli("run", "--write", "--force-exclude", "-", "--stdin-filename", "generated/x.py", cwd=tmp_path,
                stdin=KERNEL.encode())
    assert piped.returncode == 0 and piped.stdout == KERNEL.encode(), "excluded: passed through as it came"


def test_a_bad_configuration_is_an_error_naming_the_file(tmp_path):
    (tmp_path / "k.py").write_text(KERNEL)
    pyproject = tmp_path / "pyproject.toml"
    cases = {
        '[tool.pypto-migrate]\nselct = ["PTO001"]\n': "pyproject.toml: [tool.pypto-migrate]: unknown key 'selct'",
        '[tool.pypto-migrate]\nselect = "PTO001"\n': "pyproject.toml: [tool.pypto-migrate] select: expected a list of strings",
        '[tool.pypto-migrate]\nselect = ["PTO999"]\n': "pyproject.toml: [tool.pypto-migrate]: unknown rule PTO999",
        '[tool.pypto-migrate]\ninput = {n = "1-2"}\n': "pyproject.toml: [tool.pypto-migrate] input: n = '1-2': expected \"LOW:HIGH\"",
        '[tool.pypto-migrate]\nselect = ["a" "b"]\n': "pyproject.toml:2:15: not valid TOML",
        '[tool.pypto-migrate]\nselect = [\n': "pyproject.toml:3:1: not valid TOML",
    }
    for content, message in cases.items():
        pyproject.write_text(content)
        for command in ("check", "run"):
            done = cli(command, "k.py", cwd=tmp_path)
            err = text(done, "stderr")
            assert done.returncode == 2 and str(tmp_path / message) in err, (content, err)
            assert "Traceback" not in err and len(err.splitlines()) == 1


def test_verify_sizes_from_the_configuration(tmp_path):
    """The decode front reads its cache out of bounds unless seq_lens is bounded; a project-wide
    `set` a kernel does not have is skipped, while the same typo on the command line is an error."""
    name = "deepseek_v3_2_decode_front.py"
    before = tmp_path / name
    before.write_text((FIXTURES / "2026-03" / "before" / name).read_text().replace("# pypto-migrate: verify --input seq_lens=4:16\n", ""))
    shutil.copy(FIXTURES / "2026-03" / "after" / name, tmp_path / "after.py")
    after = tmp_path / "after.py"
    after.write_text(after.read_text().replace("# pypto-migrate: verify --input seq_lens=4:16\n", ""))
    unbounded = cli("verify", name, "after.py", cwd=tmp_path)
    assert unbounded.returncode == 1 and "out of bounds" in text(unbounded)
    (tmp_path / "pyproject.toml").write_text('[tool.pypto-migrate]\nset = {NOT_IN_THIS_KERNEL = 3}\ninput = {seq_lens = "4:16"}\n')
    bounded = cli("verify", name, "after.py", cwd=tmp_path)
    assert bounded.returncode == 0 and text(bounded).startswith("equivalent"), text(bounded)
    typo = cli("verify", "--set", "NOT_IN_THIS_KERNEL=3", name, "after.py", cwd=tmp_path)
    assert typo.returncode == 2
    written = cli("run", "--verify", "--write", name, cwd=tmp_path)
    assert written.returncode == 0 and "verified: equivalent" in text(written, "stderr")
