"""pypto-migrate beside LibCST's own floor: whole processes, medians of paired runs, peak memory.

  python benchmarks/bench_migrate.py            # everything (about 15 minutes on 2 cores)
  python benchmarks/bench_migrate.py --quick    # fewer runs, sizes up to 1 MB only

Printed as a markdown table (the README's). Each row runs two commands as separate
processes, alternately (A B A B ...), so that load from elsewhere falls on both alike; the
figures are the medians of the runs, the ratio is A's median over B's. Peak memory is the
largest sum of resident memory of the process and its workers, sampled every 20 ms.

- DeepSeek: `pypto-migrate run` (dry run, no cache) on the four DeepSeek v3.2 kernels, against
  a script that parses and prints the same files with LibCST.
- Tree: `pypto-migrate check --jobs J` on ~500 files, cold (empty cache) and warm (unchanged
  tree), against `python -m libcst.tool codemod -j J` running a rename-only codemod (written
  by this script into the temporary folder) in dry-run mode (-u) over the same tree.
- Sizes: `pypto-migrate run` on one generated kernel file of 0.5 to 5 MB, at the first
  step's target and at the newest (the default, which runs every step in turn), against
  LibCST's parse and print of the same file (its peak memory is the floor any LibCST tool
  starts from); the file's time per MB should not grow with its size. These rows are CPU seconds
  (user and system, one process each): on a shared machine a run of minutes waits for a
  core for much of its wall-clock time, and the wait is not the tool's.

The table ends with the two ratios the README quotes: the tree's cold/warm, and DeepSeek's
ours/LibCST. The package, the standard library, LibCST and click are byte-compiled first
(into the temporary folder), as installed packages are, so that PYTHONDONTWRITEBYTECODE does
not time compilation on either side.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import build_tree, deepseek_files, kernel_file  # noqa: E402

PY = sys.executable
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from codemods.rulebook.loading import steps  # noqa: E402

# The rows measure the first step's migration, as they have since the bench began (the
# default target was that step until the newest became the default): the figures stay
# comparable from run to run. The road to the newest step (the default target) runs every
# step in turn: the generated-kernel rows are measured at both.
TOOL = [PY, "-m", "codemods"]
PINNED = ["--target", steps()[0]]

PARSE_PRINT = """
import sys, libcst
for path in sys.argv[1:]:
    text = open(path, encoding="utf-8").read()
    assert libcst.parse_module(text).code == text
"""
RENAME_CODEMOD = '''
import libcst as cst
from libcst.codemod import VisitorBasedCodemodCommand


class RenameCommand(VisitorBasedCodemodCommand):
    DESCRIPTION = "pl.view -> pl.slice: a rename and nothing else"

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.Attribute:
        if updated_node.attr.value == "view":
            return updated_node.with_changes(attr=cst.Name("slice"))
        return updated_node
'''


@dataclass
class Sample:
    seconds: float
    peak_mb: float
    cpu: float = 0.0  # user + system seconds of the process and the children it waited for


@dataclass
class Runs:
    samples: list[Sample] = field(default_factory=list)

    @property
    def time(self) -> float:
        return statistics.median(s.seconds for s in self.samples)

    @property
    def cpu(self) -> float:
        return statistics.median(s.cpu for s in self.samples)

    @property
    def memory(self) -> float:
        return statistics.median(s.peak_mb for s in self.samples)


def _tree_rss_mb(root: int) -> float:
    """Resident memory of a process and all its descendants, in MB."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            ppid, pages = int(fields[1]), int(fields[21])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
        rss[int(entry)] = pages
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack.extend(children.get(pid, ()))
    return total * os.sysconf("SC_PAGE_SIZE") / 1e6


def measure(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> Sample:
    peak = [0.0]
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def sample() -> None:
        while proc.poll() is None:
            peak[0] = max(peak[0], _tree_rss_mb(proc.pid))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    proc.wait()
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    sampler.join()
    return Sample(seconds, peak[0], after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime)


def paired(a: list[str], b: list[str], cwd: Path, repeat: int, env=None) -> tuple[Runs, Runs]:
    ra, rb = Runs(), Runs()
    for _ in range(repeat):
        ra.samples.append(measure(a, cwd, env))
        rb.samples.append(measure(b, cwd, env))
    return ra, rb


def row(what: str, ours: Runs, theirs: Runs, their_name: str, cpu: bool = False) -> str:
    a, b = (ours.cpu, theirs.cpu) if cpu else (ours.time, theirs.time)
    return (f"| {what} | {a:.2f} s | {b:.2f} s ({their_name}) | {a / b:.2f}x "
            f"| {ours.memory:.0f} MB | {theirs.memory:.0f} MB |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per measurement (medians of these)")
    parser.add_argument("--jobs", type=int, default=2, help="--jobs of the tree runs (both tools)")
    parser.add_argument("--sizes", default="0.5,0.7,1,2,5", help="generated kernel sizes in MB")
    parser.add_argument("--size-repeat", type=int, default=1, help="runs per generated size")
    parser.add_argument("--quick", action="store_true", help="--repeat 3 --sizes 0.5,1")
    parser.add_argument("--parts", default="deepseek,tree,sizes", help="which rows to measure")
    parser.add_argument("--targets", default=f"{steps()[0]},{steps()[-1]}", help="the targets of the generated-kernel rows")
    args = parser.parse_args()
    if args.quick:
        args.repeat, args.sizes = 3, "0.5,1"
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    lines = [
        f"Machine: {os.cpu_count()} cores; medians of {args.repeat} paired runs (sizes: {args.size_repeat}); "
        "whole processes, Python start-up included.",
        "",
        "| measurement | pypto-migrate | LibCST | ratio | memory (ours) | memory (LibCST) |",
        "|---|---|---|---|---|---|",
    ]
    with tempfile.TemporaryDirectory(prefix="pypto-bench-") as tmp_name:
        tmp = Path(tmp_name)
        (tmp / "parse_print.py").write_text(PARSE_PRINT)
        (tmp / "bench_codemod.py").write_text(RENAME_CODEMOD)
        cache = tmp / "cache"
        env["PYPTO_MIGRATE_CACHE_DIR"] = str(cache)
        # Byte-compiled, as an installed package is: a checkout run with PYTHONDONTWRITEBYTECODE
        # would compile every module of ours again in every process. The bytecode goes to the
        # temporary folder, never into the checkout; a bytecode folder is looked up for every
        # module, so the standard library, LibCST and click are compiled into it too (without
        # them both sides compiled those from source in every run, LibCST's side most).
        env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
        subprocess.run([PY, "-m", "compileall", "-q", str(ROOT / "codemods")], env=env, check=True, stdout=subprocess.DEVNULL)
        # (the standard library's own tests hold files that do not compile, on purpose)
        subprocess.run([PY, "-m", "compileall", "-q", "-j", "0", *_libraries()], env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        parts = set(args.parts.split(","))
        ratios: list[str] = []
        if "deepseek" in parts:
            files = [str(p) for p in deepseek_files()]
            ours, theirs = paired([*TOOL, "run", *PINNED, "--no-cache", "--jobs", "1", *files],
                                  [PY, str(tmp / "parse_print.py"), *files], tmp, args.repeat, env)
            lines.append(row(f"`run`, {len(files)} DeepSeek files", ours, theirs, "parse+print"))
            ratios.append(f"DeepSeek, ours/LibCST parse+print: {ours.time / theirs.time:.2f}x")
        if "tree" in parts:
            lines.extend(_tree_rows(tmp, env, args, ratios))
        for mb in (float(s) for s in args.sizes.split(",")) if "sizes" in parts else ():
            path = tmp / f"kernel_{mb}MB.py"
            path.write_text(kernel_file(int(mb * 1_000_000)), encoding="utf-8")
            for target in args.targets.split(","):
                ours, theirs = paired([*TOOL, "run", "--target", target, "--no-cache", "--max-file-size", "0", "--jobs", "1", str(path)],
                                      [PY, str(tmp / "parse_print.py"), str(path)], tmp, args.size_repeat, env)
                lines.append(row(f"`run --target {target}`, generated kernel of {mb:g} MB, CPU", ours, theirs, "parse+print", cpu=True))
                print(f"  {mb:g} MB at {target} done", file=sys.stderr)
    print("\n".join(lines))
    if ratios:
        print("\nRatios: " + "; ".join(ratios))


def _libraries() -> list[str]:
    import sysconfig

    import click
    import libcst

    return [sysconfig.get_paths()["stdlib"], os.path.dirname(libcst.__file__), os.path.dirname(click.__file__)]


def _tree_rows(tmp: Path, env: dict[str, str], args, ratios: list[str]) -> list[str]:
    rows: list[str] = []
    tree = tmp / "tree"
    counts = build_tree(tree)
    print(f"tree: {sum(counts.values())} files ({', '.join(f'{v} {k}' for k, v in counts.items())})", file=sys.stderr)
    jobs = str(args.jobs)
    check = [*TOOL, "check", *PINNED, "--jobs", jobs, "."]
    # --unified-diff: a dry run, as `check` is (its context must not be 0, which LibCST reads as "write").
    codemod = [PY, "-m", "libcst.tool", "codemod", "-x", f"--jobs={jobs}", "--unified-diff=3", "--no-format", "--hide-progress",
               "--hide-generated-warnings", "--hide-blacklisted-warnings", "bench_codemod.RenameCommand", "."]
    codemod_env = dict(env, PYTHONPATH=str(tmp) + os.pathsep + env["PYTHONPATH"])

    def clean_cache() -> None:
        subprocess.run([*TOOL, "cache", "clean"], cwd=tree, env=env, capture_output=True)

    cold, lib = Runs(), Runs()
    warm = Runs()
    for _ in range(args.repeat):
        clean_cache()
        cold.samples.append(measure(check, tree, env))
        warm.samples.append(measure(check, tree, env))
        lib.samples.append(measure(codemod, tree, codemod_env))
    rows.append(row(f"`check --jobs {jobs}`, cold, {sum(counts.values())} files", cold, lib, "codemod rename"))
    rows.append(row(f"`check --jobs {jobs}`, warm (unchanged tree)", warm, lib, "codemod rename"))
    rows.append(f"| warm against cold | {warm.time:.2f} s | {cold.time:.2f} s (cold) | {cold.time / warm.time:.1f}x faster | | |")
    ratios.append(f"tree, cold/warm: {cold.time / warm.time:.1f}x")
    return rows


if __name__ == "__main__":
    main()
