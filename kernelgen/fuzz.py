"""`make fuzz N=... SEED=...`: generate N kernels over the eras, judge each at each target,
shrink every new failure class to a minimal kernel and keep it under fixtures/fuzz/.

    python -m kernelgen.fuzz --n 300 --seed 1 --jobs 2 [--shrink 8] [--eras feb,mar,spring]

Each era's share of N is split into `--jobs` shards; a shard is one hypothesis run (seeded
from SEED, the era and the shard) in a process of its own with its own compiler servers. A
shard never stops at a failure: it records every verdict. Then, for each failure class not
already in fixtures/fuzz/catalogue.toml, the shard that met it is replayed with shrinking on
(the same seed regenerates the same kernels up to the first one of that class, since every
earlier example passes both times), and the minimal kernel is written as a fixture.

The last line is the issue's: `fuzz: N kernels, A accepted, M marked at the compiler's line,
S silent rejections, V verify mismatches, E internal errors, C second-run changes; ops
covered K of T`, where N counts migrations (a kernel once per target), not counting kernels
whose own compiler refused them (said on the line before), and T is the op names of the
2026-03 and 2026-08 API tables.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import re
import sys
import time
import zlib
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from .gen import ERAS, REAL_ERAS, Kernel

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "fuzz"
CATALOGUE = FIXTURES / "catalogue.json"


@dataclass
class Shard:
    era: str
    n: int
    seed: int
    exclude: tuple[str, ...] = ()  # idioms left out (to see what failures they hide)
    # The era's shards split the table's ops between them (`part` of `parts`): each judges for
    # coverage only the kernels that bring an op of its own part, so that two shards of an era
    # do not each spend their judgments finding the same ops, and draw further instead.
    part: int = 0
    parts: int = 1


# Op-directed selection (NNSmith steers its generator toward operators not yet covered): of the
# kernels hypothesis draws, a shard judges every one that writes a table op it has not judged
# yet, and one in SELECT_STRIDE of the others, until it has judged its n. Drawing a kernel
# takes milliseconds and judging one up to a second, so the rare ops of long op lists are
# reached within N without any production knowing of coverage. The judged kernels are still
# hypothesis's, in its order: a replay of the shard (shrinking) draws the same sequence.
SELECT_STRIDE = 32  # 16 until 2026-11-29; with the ops split between an era's shards, 354-356 -> 358-361 of 394 on three seeds
CANDIDATES = 40  # kernels drawn per kernel judged, at most (25 until the ops were split: then an era with few ops could run out of draws before N)


class _Enough(Exception):
    pass


def _selected(shard: Shard, judge, table: set[str]):
    table = {op for op in table if zlib.crc32(op.encode()) % shard.parts == shard.part}
    seen: set[str] = set()
    drawn, judged = [0], [0]

    def on_kernel(kernel: Kernel) -> None:
        if judged[0] >= shard.n:
            raise _Enough
        drawn[0] += 1
        ops = kernel.ops() & table
        if not ops - seen and drawn[0] % SELECT_STRIDE:
            return
        judged[0] += 1
        seen.update(ops)
        judge(kernel)

    try:
        _hypothesis_run(shard, on_kernel, shrink=False, examples=shard.n * CANDIDATES)
    except _Enough:
        pass
    except Exception as exc:  # noqa: BLE001 - hypothesis's wrapper of _Enough (a failing example)
        if not isinstance(getattr(exc, "__cause__", None), _Enough) and "_Enough" not in repr(exc):
            raise


def _hypothesis_run(shard: Shard, on_kernel, shrink: bool, examples: int | None = None):
    from hypothesis import HealthCheck, Phase, given, seed, settings

    from .gen import kernels

    phases = [Phase.generate, Phase.shrink] if shrink else [Phase.generate]

    strategy = kernels(shard.era)
    if shard.exclude:
        strategy = strategy.filter(lambda k: not any(i.startswith(shard.exclude) for i in k.idioms))

    @seed(shard.seed)
    @settings(max_examples=examples or shard.n, database=None, phases=phases, deadline=None,
              suppress_health_check=list(HealthCheck), report_multiple_bugs=False)
    @given(strategy)
    def run(kernel: Kernel) -> None:
        on_kernel(kernel)

    run()


def run_shard(shard: Shard) -> dict:
    if shard.era in REAL_ERAS:
        return run_seed_shard(shard)
    from .compilers import Compilers
    from .harness import judge_all

    compilers = Compilers()
    records, examples, ops = [], {}, Counter()
    try:
        def on_kernel(kernel: Kernel) -> None:
            verdicts = judge_all(kernel, compilers)
            if not verdicts or verdicts[0].category != "source-refused":
                ops.update(kernel.ops())
            for v in verdicts:
                records.append((v.era, v.target, v.category, v.key() if v.category != "accepted" else ""))
                if v.category not in ("accepted", "newer") and v.key() not in examples:
                    examples[v.key()] = {"text": kernel.text, "detail": v.detail, "migrated": v.migrated,
                                         "era": v.era, "target": v.target, "category": v.category}

        _selected(shard, on_kernel, table_ops())
    finally:
        compilers.close()
    return {"shard": shard.__dict__, "records": records, "examples": examples, "ops": dict(ops)}


def run_seed_shard(shard: Shard) -> dict:
    """A shard of a seed era: the shard's units of ../shared/corpus, each judged as it is (the
    tool must leave what its own compiler accepts as the target's code, byte for byte) and then
    mutated (`kernelgen.seeds`). Records as run_shard's; `seeds` counts the units tried, those
    their compiler accepted as they are, and the mutants made."""
    from .compilers import Compilers
    from .harness import judge_all
    from .seeds import CORPUS, drawn, units

    compilers = Compilers()
    records, examples, ops = [], {}, Counter()
    seeds = Counter()
    if not units(shard.era):
        return {"shard": shard.__dict__, "records": records, "examples": examples, "ops": {},
                "seeds": dict(seeds), "missing": f"no seeds of {shard.era} under {CORPUS}"}

    def record(kernel: Kernel, verdicts, where: str, mutations: list[str]) -> None:
        for v in verdicts:
            # a mutant its compiler refuses is the mutation's fault, counted and not listed as a class
            records.append((v.era, v.target, v.category, v.key() if v.category not in ("accepted", "source-refused") else ""))
            if v.category not in ("accepted", "newer", "source-refused") and v.key() not in examples:
                examples[v.key()] = {"text": kernel.text, "detail": v.detail, "migrated": v.migrated, "era": v.era,
                                     "target": v.target, "category": v.category, "where": where,
                                     "mutations": mutations}

    def on_seed(kernel: Kernel, unit) -> bool:
        seeds["tried"] += 1
        verdicts = judge_all(kernel, compilers)
        if verdicts and verdicts[0].category == "source-refused":
            return False
        seeds["accepted"] += 1
        for v in verdicts:  # the seed as its authors wrote it: judged, but not one of the n mutants
            records.append((f"{v.era}/seed", v.target, v.category, v.key() if v.category != "accepted" else ""))
            if v.category not in ("accepted", "newer") and v.key() not in examples:
                examples[v.key()] = {"text": kernel.text, "detail": v.detail, "migrated": v.migrated, "era": v.era,
                                     "target": v.target, "category": v.category, "where": unit.where,
                                     "mutations": []}
        return True

    try:
        for kernel, unit, said in drawn(shard.era, shard.n, shard.seed, shard.part, shard.parts, on_seed):
            seeds["mutants"] += 1
            verdicts = judge_all(kernel, compilers)
            if verdicts and verdicts[0].category != "source-refused":
                ops.update(kernel.ops())
                seeds["mutants accepted"] += 1
                seeds["mutants edited"] += sum(v.migrated != kernel.text for v in verdicts
                                               if v.target == "2026-08" and shard.era == "aug-real")
                seeds["markers"] += sum(v.markers for v in verdicts)
            record(kernel, verdicts, unit.where, said)
    finally:
        compilers.close()
    return {"shard": shard.__dict__, "records": records, "examples": examples, "ops": dict(ops), "seeds": dict(seeds)}


class _Found(Exception):
    pass


def shrink(shard: Shard, key: str, seconds: float, text: str = "") -> Kernel | None:
    """The smallest kernel of that failure class hypothesis finds within `seconds` (shrinking
    stops making progress once the time is up), or None if the class did not come back."""
    from .compilers import Compilers
    from .harness import judge_all

    compilers = Compilers()
    smallest: list[Kernel] = []
    start = time.monotonic()

    def on_kernel(kernel: Kernel) -> None:
        if not smallest and text and kernel.text != text:
            return  # the replay up to the kernel that met the class: nothing to judge before it
        if smallest and time.monotonic() - start > seconds:
            # time is up: only the smallest found so far still fails, so hypothesis ends on it
            if kernel.text == smallest[-1].text:
                raise _Found(key)
            return
        if any(v.key() == key for v in judge_all(kernel, compilers)):
            if not smallest or len(kernel.text) <= len(smallest[-1].text):
                smallest.append(kernel)
            raise _Found(key)

    try:
        _hypothesis_run(shard, on_kernel, shrink=True, examples=shard.n * CANDIDATES)
    except Exception:  # noqa: BLE001 - _Found, or hypothesis's report of it (flaky, grouped)
        pass
    finally:
        compilers.close()
    return smallest[-1] if smallest else None


def _shrink_job(args) -> tuple[str, dict | None]:
    shard, key, seconds, text = args
    found = shrink(Shard(**shard), key, seconds, text)
    return key, (None if found is None else {"text": found.text, "era": found.era})


def catalogue() -> list[dict]:
    return json.loads(CATALOGUE.read_text(encoding="utf-8")) if CATALOGUE.is_file() else []


def known_keys() -> set[str]:
    return {entry["key"] for entry in catalogue()}


def _slug(key: str) -> str:
    head, _, rest = key.partition(": ")
    era_target, _, category = head.partition(" ")
    words = re.findall(r"[a-z]+", rest.lower())[:6]
    return "_".join([era_target.replace(">", "_to_").replace("-", ""), category.replace("-", "_"), *words])[:90]


def keep_fixture(key: str, text: str, example: dict) -> Path:
    """Write the minimal kernel as fixtures/fuzz/<slug>.py and list it in the catalogue."""
    FIXTURES.mkdir(parents=True, exist_ok=True)
    path = FIXTURES / f"{_slug(key)}.py"
    n = 2
    while path.exists():
        path = FIXTURES / f"{_slug(key)}_{n}.py"
        n += 1
    path.write_text(text, encoding="utf-8")
    entries = catalogue()
    entries.append({"key": key, "file": path.name, "era": example["era"], "target": example["target"],
                    "category": example["category"], "detail": example["detail"].strip().splitlines()[0][:300]})
    CATALOGUE.write_text(json.dumps(entries, indent=2) + "\n", encoding="utf-8")
    return path


def rejudge() -> int:
    """Judge each kept kernel at its target again: a fixed one leaves the catalogue (its file
    stays, a regression test), a changed failure gets its new class and message."""
    from .compilers import Compilers
    from .harness import judge

    compilers = Compilers()
    kept = []
    try:
        for entry in catalogue():
            kernel = Kernel(entry["era"], (FIXTURES / entry["file"]).read_text(encoding="utf-8"))
            verdict = judge(kernel, entry["target"], compilers)
            if not verdict.failed:
                print(f"fixed: {entry['file']}")
                continue
            entry.update(key=verdict.key(), category=verdict.category,
                         detail=verdict.detail.strip().splitlines()[0][:300])
            print(f"{entry['file']}: {entry['key']}")
            kept.append(entry)
    finally:
        compilers.close()
    CATALOGUE.write_text(json.dumps(kept, indent=2) + "\n", encoding="utf-8")
    return 0


def table_ops() -> set[str]:
    from codemods.rulebook.loading import load_api

    names: set[str] = set()
    for step in ("2026-03", "2026-08"):
        names |= set(load_api(None, step).ops)
    return names


def summary(results: list[dict], total_ops: set[str]) -> tuple[list[str], Counter]:
    by = defaultdict(Counter)
    keys = Counter()
    for result in results:
        for era, target, category, key in result["records"]:
            by[(era, target)][category] += 1
            if key and category not in ("marked", "newer"):
                keys[key] += 1
    seeds = Counter()
    for result in results:
        seeds.update(result.get("seeds", {}))
    lines = ["era     target   kernels  accepted  marked  newer  silent  verify  internal  second-run  harm  unsaid  "
             "source-refused"]
    total = Counter()
    for (era, target), c in sorted(by.items()):
        n = sum(c.values()) - c["source-refused"]
        total += c
        lines.append(f"{era:<7} {target:<8} {n:>7}  {c['accepted']:>8}  {c['marked']:>6}  {c['newer']:>5}  {c['silent']:>6}  "
                     f"{c['verify']:>6}  {c['internal']:>8}  {c['second-run']:>10}  {c['harm']:>4}  {c['unsaid']:>6}  "
                     f"{c['source-refused']:>14}")
    covered = set()
    for result in results:
        covered |= set(result["ops"])
    covered &= total_ops
    n = sum(total.values()) - total["source-refused"]
    for result in results:
        if result.get("missing"):
            lines.append(f"seeds: {result['missing']} (the seed eras read ../shared/corpus: nothing judged)")
    if seeds:
        lines.append(f"seeds: {seeds['tried']} real units tried, {seeds['accepted']} accepted as they are by their own "
                     f"compiler; {seeds['mutants']} mutants made, {seeds['mutants accepted']} accepted by their own "
                     f"compiler, {seeds['mutants edited']} of those (2026-08 code) edited by the tool, "
                     f"{seeds['markers']} review markers")
    if total["source-refused"]:
        lines.append(f"generator: {total['source-refused']} migrations of kernels their own era's compiler refused (left out)")
    lines.append(f"fuzz: {n} kernels, {total['accepted']} accepted, {total['marked']} marked at the compiler's line, "
                 f"{total['silent']} silent rejections, {total['verify']} verify mismatches, {total['internal']} internal "
                 f"errors, {total['second-run']} second-run changes, {total['harm']} edits of code the target accepts, "
                 f"{total['newer']} newer than the target left and said, {total['unsaid']} left unsaid; "
                 f"ops covered {len(covered)} of {len(total_ops)}")
    return lines, keys


def shards_for(n: int, seed: int, jobs: int, eras: tuple[str, ...], exclude: tuple[str, ...] = ()) -> list[Shard]:
    shards = []
    for i, era in enumerate(eras):
        share = n // len(eras) + (1 if i < n % len(eras) else 0)
        parts = max(1, min(jobs, share))
        for j in range(parts):
            size = share // parts + (1 if j < share % parts else 0)
            if size:
                shards.append(Shard(era, size, seed * 1000 + i * 10 + j, exclude, j, parts))
    return shards


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m kernelgen.fuzz", description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=60, help="kernels, spread evenly over the eras")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--eras", default=",".join(ERAS),
                    help=f"comma-separated, of {', '.join(ERAS + REAL_ERAS)} (the last two: real kernels of "
                         "../shared/corpus mutated, kernelgen/seeds.py)")
    ap.add_argument("--seeds", choices=("grammar", "real", "both"), default="grammar",
                    help="real: the seed eras only (= --eras aug-real,spring-real); both: those after the eras")
    ap.add_argument("--shrink", type=int, default=8, help="new failure classes to shrink and keep (0: none)")
    ap.add_argument("--shrink-seconds", type=float, default=120.0)
    ap.add_argument("--show", action="store_true", help="print one example of each failure class")
    ap.add_argument("--exclude", default="", help="idioms to leave out, comma-separated (e.g. namespaced,helper): "
                                                  "what failures do the frequent ones hide?")
    ap.add_argument("--rejudge", action="store_true",
                    help="judge every kept kernel again and rewrite the catalogue (drop the ones now right)")
    a = ap.parse_args(argv)
    if a.rejudge:
        return rejudge()
    eras = tuple(e for e in a.eras.split(",") if e)
    if a.seeds == "real":
        eras = REAL_ERAS
    elif a.seeds == "both":
        eras = tuple(dict.fromkeys(eras + REAL_ERAS))
    started = time.monotonic()
    shards = shards_for(a.n, a.seed, a.jobs, eras, tuple(x for x in a.exclude.split(",") if x))
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(a.jobs) as pool:
        results = pool.map(run_shard, shards, chunksize=1)
    lines, keys = summary(results, table_ops())
    known = known_keys()
    first_seen: dict[str, tuple[dict, dict]] = {}
    for result in results:
        for key, example in result["examples"].items():
            first_seen.setdefault(key, (result["shard"], example))
    print(f"{len(shards)} shards, {time.monotonic() - started:.0f} s")
    if keys:
        print("failure classes (count, class; * = new, not in fixtures/fuzz/catalogue.json):")
        for key, count in keys.most_common():
            print(f"  {count:>4} {'*' if key not in known else ' '} {key}")
            if a.show:
                print("      " + first_seen[key][1]["text"].replace("\n", "\n      "))
    # A mutant of a real kernel is the corpus's text: it is never written into fixtures/ (its
    # minimal kernel is written by hand, docs/fuzz.md); its seed and mutations say where it came from.
    real = [k for k, _ in keys.most_common() if k not in known and first_seen[k][1].get("where")]
    for key in real:
        example = first_seen[key][1]
        print(f"seed class, shrink by hand: {key}\n    from {example['where']}"
              f"{' with ' + '; '.join(example['mutations']) if example['mutations'] else ' as it is'}")
    new = [k for k, _ in keys.most_common() if k not in known and k not in real][: a.shrink]
    if new:
        jobs = [(first_seen[k][0], k, a.shrink_seconds, first_seen[k][1]["text"]) for k in new]
        with ctx.Pool(a.jobs) as pool:
            for key, found in pool.imap_unordered(_shrink_job, jobs):
                example = first_seen[key][1]
                text = found["text"] if found else example["text"]
                path = keep_fixture(key, text, example)
                print(f"kept {path.relative_to(ROOT)}{'' if found else ' (not shrunk: the class did not come back)'}")
    for line in lines:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
