# `make demo`: install into .venv and print the dry-run diff of the shipped DeepSeek kernels.
# `make test`: the whole test suite.
# `make real`: the scoreboard of the real corpus (../shared/corpus) through migrate, the compiler and verify.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# The pinned pypto compiler, where this checkout sits beside the project's shared folder;
# never vendored, and everything works without it (--compile then says how to install it).
PYPTO_WHEEL := $(firstword $(wildcard ../shared/oracle/pypto-*.whl))

.PHONY: install demo test bench real clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

$(BIN)/.pypto: $(PYPTO_WHEEL) | $(BIN)/.installed
	$(if $(PYPTO_WHEEL),$(BIN)/python -m pip install --quiet $(PYPTO_WHEEL))
	touch $@

install: $(BIN)/.installed $(if $(PYPTO_WHEEL),$(BIN)/.pypto)

demo: install
	$(BIN)/pypto-migrate run fixtures/before/deepseek_v3_2_*.py

test: install
	$(BIN)/python -m pytest -q -p no:cacheprovider

bench: install
	$(BIN)/python benchmarks/bench_migrate.py $(ARGS)

real: install
	$(BIN)/python benchmarks/real_corpus.py $(ARGS)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
