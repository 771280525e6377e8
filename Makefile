# `make demo`: install into .venv and print the dry-run diff of the shipped DeepSeek kernels.
# `make test`: the whole test suite.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: install demo test bench clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

install: $(BIN)/.installed

demo: install
	$(BIN)/pypto-migrate run fixtures/before/deepseek_v3_2_*.py

test: install
	$(BIN)/python -m pytest -q -p no:cacheprovider

bench: install
	$(BIN)/python benchmarks/bench_migrate.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
