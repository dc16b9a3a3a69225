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
	@mkdir -p $(BUILD)/demo
	@echo "== graph: ResNet-50 (bundled ONNX), training step at batch 32"
	$(FRUGAL) graph show models/resnet50.onnx --batch 32 --train --optimizer momentum
	@echo "== Ceer: GPT-2 large training iteration on a V100, then on 8 V100s (p3.16xlarge)"
	$(FRUGAL) predict models/hf/gpt2_large.json --gpu V100-PCIE-32GB --batch 1 --seq 1024 --top 5
	$(FRUGAL) predict models/hf/gpt2_large.json --instance p3.16xlarge --batch 1 --seq 1024 --top 0
	@echo "== Ceer: cheapest cloud configuration to train ResNet-50 on ImageNet (90 epochs) in 24 h"
	$(FRUGAL) advise models/resnet50.onnx --batch 64 --samples 1281167 --epochs 90 --deadline 24 --top 5
	@echo "== Ceer: cheapest plan to pre-train Llama-2-7B on 2 T tokens (bf16; TP x PP x DP, ZeRO, checkpointing searched)"
	$(FRUGAL) advise models/hf/llama2_7b.json --batch 1 --seq 4096 --tokens 2e12 --global-batch 1024 --precision amp-bf16 --providers aws --max-instances 32 --top 5
	@echo "== Ceer: serving Llama-2-70B in fp16 on 8 A100s (tensor parallel): prefill, per-token decode, KV cache"
	$(FRUGAL) predict models/hf/llama2_70b.json --instance p4de.24xlarge --tp 8 --infer --prompt 512 --generate 128 --batch 8 --precision fp16
	@echo "== Pesto: GNMT training step (profiled) across 4 GPUs"
	$(FRUGAL) place models/graphs/gnmt_training.json --gpus 4 --time-limit 10 --out $(BUILD)/demo/placement.json --trace $(BUILD)/demo/trace.json
	@echo "== G-Share: FGD's fragmentation experiment on Alibaba's GPU-sharing trace (3 seeds)"
	$(FRUGAL) share frag --policy best-fit,fgd,gshare --seeds 42-44
	@echo "== G-Share: a day of inference services and training jobs sharing A100s, every sharing policy"
	$(FRUGAL) share simulate --workload mixed --seed 1 --gpu A100-SXM4-80GB --policy all
	@echo "== SmartCache: a text-tokenisation pipeline's I/O, cache at 1% and 10% of its footprint"
	$(FRUGAL) cache gen --preset text -o $(BUILD)/demo/text.frt
	$(FRUGAL) cache simulate $(BUILD)/demo/text.frt --policy lru,s3fifo,lrb,smartcache,belady --size 1%,10%

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
