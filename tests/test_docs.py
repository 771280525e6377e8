"""Every example in README.md, ARCHITECTURE.md and docs/*.md runs, as a user would run it.

What counts as an example, read off the Markdown itself:
- a ```sh block: each line (backslash continuations joined) is a shell command;
- a ```console block: each `$ ` line is a command, and the lines up to the next one are
  exactly what it prints;
- a ```yaml block: each `run: pypto-migrate ...` step (a CI workflow's);
- a ```toml block that is a `[tool.pypto-migrate]` table: it must be a configuration the tool
  accepts, and the ```sh blocks after it on the same page run under it;
- a ```python block: an excerpt of the fixtures; its `# before` part must stand, line for
  line, in a file of fixtures/2026-03/before, the rest in one of fixtures/2026-03/after.
A block that cannot run says so in the page, `<!-- not run: reason -->` on the line before it.

Commands run in a folder of their own, beside a `shared` that is the project's `../shared`
where that exists: `fixtures/` is ours, `models/` holds the four DeepSeek v3.2 kernels of
fixtures/2026-03/before, `old.py`/`new.py` one of them and its migration. A command exits 0, or 1
where that is its documented meaning (`check`: something would change or needs review); any
other code, or a traceback, fails the example. Examples with `--compile` need pypto, those
reading `../shared` need it: they skip without, and fail without under CI=true.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from codemods.rulebook.loading import choose_rules, load_rules
from needs import corpus_or_skip, pypto_or_skip

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", ROOT / "ARCHITECTURE.md", *sorted((ROOT / "docs").glob("*.md"))]
NOT_RUN = re.compile(r"<!--\s*not run:\s*(?P<reason>.*?)\s*-->")
FENCE = re.compile(r"^```(?P<lang>[\w-]*)\s*$")
RUN_STEP = re.compile(r"^\s*(?:-\s+)?run:\s+(?P<cmd>pypto-migrate\b.*)$")
DEEPSEEK = ("decode_back", "decode_front", "prefill_back", "prefill_front")


@dataclass
class Block:
    page: Path
    line: int  # of the opening fence, 1-based
    lang: str
    text: str
    not_run: str | None  # the reason, when the page says it cannot run
    config: str | None  # the last `[tool.pypto-migrate]` table above it on the page

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    lines = page.read_text(encoding="utf-8").splitlines()
    out: list[Block] = []
    config = None
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m or not m.group("lang") and not _opens(lines, i):
            i += 1
            continue
        start = i
        i += 1
        while i < len(lines) and lines[i].rstrip() != "```":
            i += 1
        text = "\n".join(lines[start + 1:i]) + "\n"
        before = next((lines[j] for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        reason = NOT_RUN.search(before)
        block = Block(page, start + 1, m.group("lang"), text, reason and reason.group("reason"), config)
        if block.lang == "toml" and text.lstrip().startswith("[tool.pypto-migrate]"):
            config = text
        out.append(block)
        i += 1
    return out


def _opens(lines: list[str], i: int) -> bool:
    """A bare ``` opens a block when an even number of fences precede it."""
    return sum(1 for line in lines[:i] if FENCE.match(line)) % 2 == 0


def commands(block: Block) -> list[tuple[str, str | None]]:
    """(command, expected output or None) in the order the page gives them."""
    if block.lang == "sh":
        joined = block.text.replace("\\\n", " ")
        return [(line, None) for line in joined.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    if block.lang == "console":
        out: list[tuple[str, list[str]]] = []
        for line in block.text.splitlines():
            if line.startswith("$ "):
                out.append((line[2:], []))
            elif out:
                out[-1][1].append(line)
        return [(cmd, "\n".join(lines)) for cmd, lines in out]
    if block.lang == "yaml":
        return [(m.group("cmd"), None) for m in map(RUN_STEP.match, block.text.splitlines()) if m]
    return []


ALL = [b for page in PAGES if page.exists() for b in blocks(page)]
RUNNABLE = [b for b in ALL if commands(b) and not b.not_run]
EXCERPTS = [b for b in ALL if b.lang == "python" and not b.not_run]
CONFIGS = [b for b in ALL if b.lang == "toml" and b.text.lstrip().startswith("[tool.pypto-migrate]")]


def test_the_pages_have_examples_and_few_are_left_out():
    assert len(RUNNABLE) >= 10 and EXCERPTS and CONFIGS  # the reader still finds them
    left_out = [b for b in ALL if b.not_run is not None]
    assert all(b.not_run for b in left_out), "a `not run` comment must say why"
    assert len(left_out) <= 6, [b.name for b in left_out]  # a few, each with its reason
    shell = [b for b in ALL if b.lang in ("sh", "console") and not b.not_run]
    assert all(commands(b) for b in shell), "a shell block with no command in it"


@pytest.fixture
def world(tmp_path):
    """A folder to run examples in, beside a `shared` that is the project's where it exists."""
    here = tmp_path / "project"
    shutil.copytree(ROOT / "fixtures", here / "fixtures")
    (here / "models").mkdir()
    for part in DEEPSEEK:
        shutil.copy(ROOT / f"fixtures/2026-03/before/deepseek_v3_2_{part}.py", here / "models")
    shutil.copy(ROOT / "fixtures/2026-03/before/deepseek_v3_2_decode_front.py", here / "old.py")
    shutil.copy(ROOT / "fixtures/2026-03/after/deepseek_v3_2_decode_front.py", here / "new.py")
    if (ROOT.parent / "shared").is_dir():
        (tmp_path / "shared").symlink_to(ROOT.parent / "shared")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "pypto-migrate"
    tool.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m codemods "$@"\n')
    tool.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("PYPTO_MIGRATE_CACHE_DIR", "FORCE_COLOR")}
    # The results cache goes where a user's would: the project folder.
    env |= {"PATH": f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    return here, env


def shell(command: str, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=600)


def allowed_exits(command: str) -> set[int]:
    words = command.split()
    if words[:2] == ["pypto-migrate", "check"] and "--exit-zero" not in words:
        return {0, 1}
    return {0}


@pytest.mark.parametrize("block", RUNNABLE, ids=[b.name for b in RUNNABLE])
def test_example_runs(block, world):
    here, env = world
    if "--compile" in block.text:
        pypto_or_skip()
    if "../shared" in block.text:
        corpus_or_skip()
    if block.config is not None:
        (here / "pyproject.toml").write_text(block.config, encoding="utf-8")
    for command, expected in commands(block):
        result = shell(command, here, env)
        said = f"{block.name}: `{command}` exited {result.returncode}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        assert "Traceback" not in result.stderr, said
        if expected is None:
            assert result.returncode in allowed_exits(command), said
        else:  # shown with its output: exactly that, and no usage or setup error (2)
            assert result.returncode in (0, 1, 3), said
            assert (result.stdout + result.stderr).strip("\n") == expected.strip("\n"), said


@pytest.mark.parametrize("block", CONFIGS, ids=[b.name for b in CONFIGS])
def test_configuration_example_is_accepted_and_applied(block, world):
    here, env = world
    (here / "pyproject.toml").write_text(block.text, encoding="utf-8")
    result = shell("pypto-migrate check --format json models/", here, env)
    assert result.returncode == 1 and "pyproject.toml" not in result.stderr, result.stderr

    table = tomllib.loads(block.text)["tool"]["pypto-migrate"]
    chosen = {r.id for r in choose_rules(load_rules(), table.get("select"), table.get("ignore")).rules}
    report = json.loads(result.stdout)
    fired = {e["rule"] for e in report["edits"]} | {f["rule"] for f in report["findings"] if f["level"] == "review"}
    assert fired and fired <= chosen, (fired, chosen)


def _runs(needle: list[str], folder: Path) -> bool:
    for path in folder.rglob("*.py"):
        hay = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
        for i in range(len(hay) - len(needle) + 1):
            if hay[i:i + len(needle)] == needle:
                return True
    return False


@pytest.mark.parametrize("block", EXCERPTS, ids=[b.name for b in EXCERPTS])
def test_python_example_is_what_the_fixtures_hold(block):
    """Code shown as before and after is the fixtures' own, so it changes when they do."""
    parts: dict[str, list[str]] = {"after": []}
    side = "after"
    for line in block.text.splitlines():
        label = re.match(r"#\s*(before|after)\b", line.strip())
        if label:
            side = label.group(1)
            parts.setdefault(side, [])
        elif line.strip():
            parts[side].append(line.strip())
    for side, lines in parts.items():
        if lines:
            assert _runs(lines, ROOT / "fixtures" / "2026-03" / side), \
                f"{block.name}: its {side} lines are in no file of fixtures/2026-03/{side}"


def test_make_demo_recipe_runs(world):
    """`make demo` installs the tool alone (no compiler: issue 36.6), then runs one command; that
    command is run here."""
    here, env = world
    recipe = (ROOT / "Makefile").read_text(encoding="utf-8").split("\ndemo:", 1)[1].split("\n\n", 1)[0]
    assert recipe.splitlines()[0].split() == ["$(BIN)/.tool"], "the demo needs the tool's venv and nothing more"
    command = next(line.strip() for line in recipe.splitlines()[1:] if "pypto-migrate" in line)
    result = shell(command.replace("$(BIN)/", ""), here, env)
    assert result.returncode == 0, result.stderr
    assert all(f"+++ b/fixtures/2026-03/before/deepseek_v3_2_{part}.py" in result.stdout for part in DEEPSEEK)
