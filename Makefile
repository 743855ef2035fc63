# gpudoctor: the commands a user types. CMake + Ninja do the building.
#   make          install missing Debian packages (as root), build build/gpudoctor
#   make run      diagnose this machine, or the bundled demo scenario without a GPU
#   make test     every test, then again under AddressSanitizer + UBSan
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

.PHONY: all deps build run test test-plain test-asan bench fuzz golden install deb image clean

all: build

deps:
	@bash scripts/install-deps.sh

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

test: test-plain test-asan

test-plain: build
	ctest --test-dir $(BUILD) $(CTEST_FLAGS)

$(BUILD_ASAN)/build.ninja: | deps
	cmake -S . -B $(BUILD_ASAN) -G Ninja -DGD_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug $(CMAKE_FLAGS)

test-asan: deps $(BUILD_ASAN)/build.ninja
	ninja -C $(BUILD_ASAN)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir $(BUILD_ASAN) $(CTEST_FLAGS)

bench: build
	bash bench/run.sh $(BUILD)

fuzz: deps
	bash tests/fuzz/run.sh $(FUZZ_SECONDS)

golden: build
	bash tests/golden/golden.sh $(BUILD)/gpudoctor update

# The prefix is given at install time: the binary finds its libexec folder
# relative to itself, so DESTDIR staging and relocated trees work.
install: build
	DESTDIR=$(DESTDIR) cmake --install $(BUILD) --prefix $(PREFIX)

deb: deps
	bash scripts/make-deb.sh build-deb

image: deb
	bash scripts/make-image.sh build-deb

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) build-deb
