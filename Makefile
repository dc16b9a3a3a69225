# frugal — quick start:
#   make demo   installs dependencies if missing, builds, runs frugal on bundled models
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
	$(FRUGAL) graph show models/resnet50.onnx --batch 32 --train --optimizer momentum
	$(FRUGAL) graph show models/hf/gpt2_large.json --seq 1024 --batch 1 --train
	$(FRUGAL) catalog list --gpus

test: build
	ctest --test-dir $(BUILD) -j $(JOBS) --output-on-failure

bench: build
	./bench/run.sh $(BUILD)

# libFuzzer targets, one per importer, built with clang in their own tree and
# run for FUZZ_SECONDS each. Skipped (with a note) where clang is missing.
fuzz: deps
	./fuzz/run.sh $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD) build-fuzz
