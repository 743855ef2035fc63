# SPDX-License-Identifier: Apache-2.0
# gpudoctor: the commands a user types. CMake + Ninja do the building.
#   make          install the missing Debian packages that building and running
#                 need (as root), build build/gpudoctor
#   make run      diagnose this machine, or the bundled demo scenario without a GPU
#   make test     also install what the tests use (no system service of theirs
#                 is started or enabled), then every unit, golden, e2e and
#                 component test, then again under AddressSanitizer + UBSan
#                 (the developer's suite, ~10 minutes); fails where a test
#                 leaves a process running or bytecode in the source tree
#   make test-all make test plus the deploy label (the .deb, a Debian root, the
#                 OCI image), with the package tools: what CI runs
#   make test-times  the per-test timing table of the last runs (docs/test-times.md)
#   make bench    the benchmarks in bench/
#   make fuzz     run every fuzz target for FUZZ_SECONDS each (default 60)
#   make golden   rewrite the golden outputs in tests/golden (review the diff)
#   make install  the binary, its man page, bash and zsh completion and the
#                 simulated libraries (PREFIX/libexec/gpudoctor) under
#                 DESTDIR/PREFIX (default /usr/local)
#   make deb      the Debian package (debhelper) in build-deb/
#   make image    the exporter's container image (OCI, from Debian packages) in build-deb/

BUILD       ?= build
BUILD_ASAN  ?= build-asan
CMAKE_FLAGS ?=
FUZZ_SECONDS ?= 60
PREFIX      ?= /usr/local
CTEST_FLAGS ?= --output-on-failure -j2
# make test leaves out the deploy label (package and image builds); make
# test-all runs every test.
SUITE_FLAGS ?= -LE deploy
# What scripts/install-deps.sh installs before the tests: test, or deploy
# (test-all: also the package and image tools).
TEST_DEPS   ?= test
# Every suite runs under this guard (tests/suite/suite_guard.py): no process
# of the tests outlives them, no bytecode lands in the source tree.
GUARD       := python3 tests/suite/suite_guard.py $(CURDIR) --

.PHONY: all deps deps-test deps-deploy build run test test-all test-plain test-asan test-times bench fuzz golden install deb image clean

all: build

# What building and running need; the tests' and the package's on demand.
deps:
	@bash scripts/install-deps.sh run
deps-test:
	@bash scripts/install-deps.sh $(TEST_DEPS)
deps-deploy:
	@bash scripts/install-deps.sh deploy

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

# A real diagnosis where an NVIDIA driver answers; otherwise the demo.
run: build
	@if $(BUILD)/gpudoctor info >/dev/null 2>&1; then \
	  $(BUILD)/gpudoctor check; status=$$?; \
	else \
	  echo "No NVIDIA driver answers on this machine: running the bundled demo scenario"; \
	  echo "examples/demo.json, a SIMULATED 8x H100 node (played 5x faster)."; echo; \
	  GPUDOCTOR_SIM_TIMESCALE=5 $(BUILD)/gpudoctor check --sim examples/demo.json --duration 10; status=$$?; \
	fi; \
	[ $$status -le 2 ]

# Both suites run, whatever the first one says, and the end lists the failed
# tests of each: one failure never hides the rest.
test-all:
	@$(MAKE) --no-print-directory test SUITE_FLAGS= TEST_DEPS=deploy

test: deps-test
	@stamp=$$(mktemp); plain=0; asan=0; \
	$(MAKE) --no-print-directory test-plain || plain=1; \
	$(MAKE) --no-print-directory test-asan || asan=1; \
	for suite in plain:$$plain:$(BUILD) asan:$$asan:$(BUILD_ASAN); do \
	  name=$${suite%%:*}; rest=$${suite#*:}; failed=$${rest%%:*}; dir=$${rest#*:}; \
	  log=$$dir/Testing/Temporary/LastTestsFailed.log; \
	  if [ "$$failed" = 0 ]; then echo "make test: $$name suite passed"; \
	  elif [ -n "$$(find "$$log" -newer "$$stamp" 2>/dev/null)" ]; then \
	    echo "make test: $$name suite FAILED:"; sed 's/^[0-9]*:/  /' "$$log"; \
	  else echo "make test: $$name suite FAILED (before its tests ran: see above)"; fi; \
	done; rm -f "$$stamp"; [ $$plain = 0 ] && [ $$asan = 0 ]

# Each suite: ctest, then why each skipped test was skipped (ctest shows
# Skipped, never the test's words; a skip that says nothing fails).
# Configured again first: the test packages (cmocka, ...) and NVIDIA's
# headers may have come after the build directory was made.
test-plain: build
	@cmake -S . -B $(BUILD) >/dev/null && ninja -C $(BUILD)
	@rc=0; $(GUARD) ctest --test-dir $(BUILD) $(CTEST_FLAGS) $(SUITE_FLAGS) --output-junit $(abspath $(BUILD))/Testing/junit.xml || rc=1; \
	python3 tests/skip_reasons.py $(BUILD)/Testing/junit.xml || rc=1; exit $$rc

$(BUILD_ASAN)/build.ninja: | deps
	cmake -S . -B $(BUILD_ASAN) -G Ninja -DGD_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug $(CMAKE_FLAGS)

test-asan: deps $(BUILD_ASAN)/build.ninja
	@cmake -S . -B $(BUILD_ASAN) >/dev/null
	ninja -C $(BUILD_ASAN)
	@rc=0; ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  $(GUARD) ctest --test-dir $(BUILD_ASAN) $(CTEST_FLAGS) $(SUITE_FLAGS) --output-junit $(abspath $(BUILD_ASAN))/Testing/junit.xml || rc=1; \
	python3 tests/skip_reasons.py $(BUILD_ASAN)/Testing/junit.xml || rc=1; exit $$rc

# Each test's time in the last plain and ASan runs, from ctest's own JUnit
# output, slowest first: a slow test is seen when it lands.
test-times:
	python3 scripts/test-times.py $(BUILD)/Testing/junit.xml $(BUILD_ASAN)/Testing/junit.xml > docs/test-times.md

bench: build
	bash bench/run.sh $(BUILD)

fuzz: deps-test
	bash tests/fuzz/run.sh $(FUZZ_SECONDS)

golden: build
	bash tests/golden/golden.sh $(BUILD)/gpudoctor update

# The prefix is given at install time: the binary finds its libexec folder
# relative to itself, so DESTDIR staging and relocated trees work.
install: build
	DESTDIR=$(DESTDIR) cmake --install $(BUILD) --prefix $(PREFIX)

deb: deps-deploy
	bash scripts/make-deb.sh build-deb

image: deb
	bash scripts/make-image.sh build-deb

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) build-deb
