# bayesnb: one command sets up from nothing and runs the tests (`make test`).
PYTHON ?= $(shell command -v python3.12 >/dev/null 2>&1 && python3.12 -c 'import sys' 2>/dev/null && echo python3.12 || ls -d $$HOME/.pyenv/versions/3.12*/bin/python3.12 2>/dev/null | tail -1)
VENV   ?= .venv
PY      = $(VENV)/bin/python

.PHONY: setup test demo bench clean

# Python writes the bytecode of what it imports, as it does by default, even where the environment says not to:
# otherwise every new interpreter (each test worker and subprocess) compiles its imports again (~1.2 s for
# bayesnb and JAX). The modules are compiled on first import, not all at install (uv's --compile-bytecode
# spent ~11 s on ~8,400 files, a third of them the dependencies' own test suites).
unexport PYTHONDONTWRITEBYTECODE

# uv (from PyPI) resolves the same versions as pip, faster.
$(VENV)/.installed: pyproject.toml
	@test -n "$(PYTHON)" || { echo "bayesnb needs Python 3.12+: install python3.12 or set PYTHON=/path/to/python3.12"; exit 1; }
	@echo "Installing bayesnb and its dependencies into $(VENV) (first run only; a few minutes) ..."
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check uv
	$(PY) -m uv pip install --python $(PY) -e ".[test,plot,docs,dask]"
	touch $@

setup: $(VENV)/.installed

test: setup
	$(PY) -m pytest -n 2 -q

demo: setup
	$(VENV)/bin/bayesnb demo

bench: setup
	$(PY) benchmarks/bench_20news.py

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
