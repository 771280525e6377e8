# `make demo`: install the tool alone into .venv and print the dry-run diff of the shipped DeepSeek
#   kernels; no compiler (6 s on a fresh clone, README). The compilers come from `make install`,
#   which test, bench, real and fuzz run first.
# `make test`: the whole test suite.
# `make fuzz N=... SEED=...`: the differential run of generated kernels (kernelgen/, docs/fuzz.md).
# `make real`: the scoreboard of the real corpus (../shared/corpus) through migrate, the compiler and verify;
#   then the version upgrade: each pypto-lib snapshot and DeepSeek migrated to 2026-08, judged by that compiler;
#   then the strict check against that compiler on pypto's own tree of 2026-08-21 (accept/reject agreement).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# The pinned pypto compiler, where this checkout sits beside the project's shared folder;
# never vendored, and everything works without it (--compile then says how to install it).
PYPTO_WHEEL := $(firstword $(wildcard ../shared/oracle/pypto-*.whl))
# The newest compiler (pypto of 2026-08-21) for --target 2026-08, in a venv of its own beside
# .venv: it cannot share one with the 2026-03 wheel (same file name, and it needs torch).
# torch is pinned: that CPU build is in pip's local find-links; unpinned pulls CUDA wheels.
PYPTO_HEAD_WHEEL := $(firstword $(wildcard ../shared/oracle-head/pypto-*.whl))
HEAD_VENV := $(VENV)-head
TORCH := torch==2.13.0
# The compiler of 2026-05-26, the oracle of spring-2026 sources in `make fuzz` and the fuzz
# tests (../shared/oracle-eras): a venv of its own too; --no-deps, since the wheel's unpinned
# torch requirement would pull CUDA wheels, then the pinned CPU torch.
PYPTO_ERA_WHEEL := $(firstword $(wildcard ../shared/oracle-eras/2026-05-26/pypto-*.whl))
ERA_VENV := $(VENV)-era-2026-05
N ?= 60
SEED ?= 0
JOBS ?= 2

.PHONY: install demo test bench real fuzz clean

# The tool alone: what `make demo` needs. The compilers' venvs hold torch (2 GB) and take a minute.
# Half of a fresh install's time is spent where the demo has no use for it: copying pip into
# the venv (the Python that makes it installs into it: `pip --python`, pip 22.3 or later; else
# the venv gets its own pip) and byte-compiling all of numpy, libcst and rich up front
# (--no-compile: a module is compiled when first imported, and most never are).
$(BIN)/.tool: pyproject.toml
	$(PYTHON) -m venv --without-pip $(VENV)
	$(PYTHON) -m pip --python $(BIN)/python install --quiet --no-compile -e . 2>/dev/null \
	  || { $(BIN)/python -m ensurepip --default-pip >/dev/null && $(BIN)/python -m pip install --quiet --no-compile -e .; }
	touch $@

$(BIN)/.installed: $(BIN)/.tool
	$(BIN)/python -m pip --version >/dev/null 2>&1 || $(BIN)/python -m ensurepip --default-pip >/dev/null
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

$(BIN)/.pypto: $(PYPTO_WHEEL) | $(BIN)/.installed
	$(if $(PYPTO_WHEEL),$(BIN)/python -m pip install --quiet $(PYPTO_WHEEL))
	touch $@

$(HEAD_VENV)/bin/.pypto: $(PYPTO_HEAD_WHEEL)
	$(PYTHON) -m venv $(HEAD_VENV)
	$(HEAD_VENV)/bin/python -m pip install --quiet $(PYPTO_HEAD_WHEEL) $(TORCH)
	touch $@

$(ERA_VENV)/bin/.pypto: $(PYPTO_ERA_WHEEL)
	$(PYTHON) -m venv $(ERA_VENV)
	$(ERA_VENV)/bin/python -m pip install --quiet --no-deps $(PYPTO_ERA_WHEEL)
	$(ERA_VENV)/bin/python -m pip install --quiet numpy $(TORCH)
	touch $@

install: $(BIN)/.installed $(if $(PYPTO_WHEEL),$(BIN)/.pypto) $(if $(PYPTO_HEAD_WHEEL),$(HEAD_VENV)/bin/.pypto) $(if $(PYPTO_ERA_WHEEL),$(ERA_VENV)/bin/.pypto)

demo: $(BIN)/.tool
	$(BIN)/pypto-migrate run fixtures/2026-03/before/deepseek_v3_2_*.py

# The tests that need the newest compiler find its Python here (tests/needs.py).
export PYPTO_HEAD_PYTHON := $(if $(PYPTO_HEAD_WHEEL),$(abspath $(HEAD_VENV))/bin/python)
export PYPTO_ERA_2026_05_PYTHON := $(if $(PYPTO_ERA_WHEEL),$(abspath $(ERA_VENV))/bin/python)

test: install
	$(BIN)/python -m pytest -q -p no:cacheprovider

bench: install
	$(BIN)/python benchmarks/bench_migrate.py $(ARGS)

real: install
	$(BIN)/python benchmarks/real_corpus.py $(ARGS)
	$(BIN)/python benchmarks/real_versions.py $(ARGS)
	$(BIN)/python benchmarks/strict_agreement.py $(ARGS)

# `make fuzz N=300 SEED=1`: generated kernels of every era through the tool, both compilers and
# verify; new failure classes shrunk into fixtures/fuzz/ (docs/fuzz.md).
fuzz: install
	$(BIN)/python -m kernelgen.fuzz --n $(N) --seed $(SEED) --jobs $(JOBS) $(ARGS)

clean:
	rm -rf $(VENV) $(HEAD_VENV) $(ERA_VENV) build *.egg-info .pytest_cache .hypothesis
