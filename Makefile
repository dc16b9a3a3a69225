# frugal — quick start:
#   make demo   installs dependencies if missing, builds, runs `frugal demo`: all four systems on
#               bundled data, a one-screen summary and frugal-report/index.html
#   make test   installs dependencies if missing, builds, runs every test (ctest)
# Other targets: build, bench, fuzz, clean.

BUILD   ?= build
JOBS    ?= 2
FRUGAL  := $(BUILD)/tools/frugal/frugal
FUZZ_SECONDS ?= 20

.PHONY: all deps configure build demo test bench fuzz clean

all: build

deps:
	@./scripts/install-deps.sh

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release

configure: $(BUILD)/build.ninja

build: deps configure
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	$(FRUGAL) demo --out frugal-report

test: build
	ctest --test-dir $(BUILD) -j $(JOBS) --output-on-failure

bench: build
	./bench/run.sh $(BUILD)

# libFuzzer targets, one per importer and file reader, built with clang in their own tree and
# run for FUZZ_SECONDS each. Skipped (with a note) where clang is missing.
fuzz: deps
	./fuzz/run.sh $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD) build-fuzz
