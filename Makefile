# Thin wrapper around scripts/bootstrap, CMake and ctest. Everything real is in CMakeLists.txt.
#   make test    install what is missing, configure, build, run every test (what CI runs)
#   make run     build and show oriopt's main job on a real kernel (scripts/demo), then saxpy.ori
#   make bench   build and run the benchmarks
#   make fuzz    build the libFuzzer harnesses with clang into build-fuzz/ (fuzz-smoke: a short run)
BUILD ?= build
FUZZ_BUILD ?= build-fuzz
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=
CTEST_ARGS ?=
FUZZ_SECONDS ?= 30
BENCH_ARGS ?=
GENERATOR := $(if $(shell command -v ninja 2>/dev/null),Ninja,Unix Makefiles)

# Steps run in the order written, even under make -j (cmake --build parallelises the build).
.NOTPARALLEL:
.DEFAULT_GOAL := build
.PHONY: bootstrap configure build test run bench fuzz fuzz-configure fuzz-smoke clean help

help:
	@sed -n '2,5p' $(firstword $(MAKEFILE_LIST))

bootstrap:
	bash scripts/bootstrap

# The generator is chosen when a build directory is first made and kept afterwards.
configure:
	@if [ -f $(BUILD)/CMakeCache.txt ]; then \
	  echo cmake -S . -B $(BUILD) $(CMAKE_ARGS); cmake -S . -B $(BUILD) $(CMAKE_ARGS); \
	else \
	  echo cmake -S . -B $(BUILD) -G \"$(GENERATOR)\" $(CMAKE_ARGS); \
	  cmake -S . -B $(BUILD) -G "$(GENERATOR)" $(CMAKE_ARGS); \
	fi

build: configure
	cmake --build $(BUILD) -j $(JOBS)

test: bootstrap configure build
	ctest --test-dir $(BUILD) --output-on-failure -j2 $(CTEST_ARGS)
	$(MAKE) --no-print-directory fuzz-smoke

run: bootstrap configure build
	bash scripts/demo $(BUILD)
	$(BUILD)/bin/oriopt --summary examples/saxpy.ori
	$(BUILD)/bin/oriopt --run --threads 4 --param n=4 --param a=2.0 \
	  --buffer x=@examples/saxpy-x.bin --buffer y=@examples/saxpy-y.bin --dump-buffer y \
	  examples/saxpy.ori

bench: build
	$(BUILD)/bin/oriopt_bench $(BENCH_ARGS)

# The libFuzzer targets are built by .clusterfuzzlite/build.sh, the script OSS-Fuzz and
# ClusterFuzzLite run, here with libFuzzer's flags and no Docker (docs/campaigns.md): the targets,
# their seed corpora (.zip) and dictionaries land in $(FUZZ_BUILD)/out.
FUZZ_OUT := $(abspath $(FUZZ_BUILD))/out
FUZZ_FLAGS ?= -O1 -fno-omit-frame-pointer -gline-tables-only -fsanitize=address,undefined \
  -fno-sanitize-recover=all -fsanitize=fuzzer-no-link
FUZZ_PIPELINE_SECONDS ?= 20

fuzz-configure: bootstrap

fuzz: fuzz-configure
	CC=clang CXX=clang++ CFLAGS="$(FUZZ_FLAGS)" CXXFLAGS="$(FUZZ_FLAGS)" LIB_FUZZING_ENGINE=-fsanitize=fuzzer \
	  OUT=$(FUZZ_OUT) WORK=$(abspath $(FUZZ_BUILD)) JOBS=$(JOBS) \
	  CMAKE_LAUNCHER=$$(command -v ccache || true) bash .clusterfuzzlite/build.sh
	@echo "fuzz: targets are in $(FUZZ_OUT)/ (run e.g. $(FUZZ_OUT)/fuzz_NAME -dict=$(FUZZ_OUT)/fuzz_NAME.dict -max_total_time=60)"

# A bounded libFuzzer run of each target (part of `make test`): the PTX parser seeded with the
# shared corpus and its saved crashes, the .ori parser with fuzz/corpus/ori and the examples, the
# pipeline (--impl=both) with those, the small PTX kernels of tests/filetests/ptx-run and its saved
# findings (fuzz/corpus/pipeline-crashes). A crash, leak or timeout fails the run and leaves the input in $(FUZZ_BUILD)/crashes/.
fuzz-smoke: fuzz
	mkdir -p $(FUZZ_BUILD)/work/ptx $(FUZZ_BUILD)/work/ori $(FUZZ_BUILD)/work/pipeline $(FUZZ_BUILD)/crashes
	$(FUZZ_OUT)/fuzz_ptx_parser -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
	  -dict=$(FUZZ_OUT)/fuzz_ptx_parser.dict \
	  -artifact_prefix=$(FUZZ_BUILD)/crashes/ $(FUZZ_BUILD)/work/ptx ../shared/corpus/ptx fuzz/corpus/ptx-crashes
	$(FUZZ_OUT)/fuzz_ori_parser -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
	  -dict=$(FUZZ_OUT)/fuzz_ori_parser.dict \
	  -artifact_prefix=$(FUZZ_BUILD)/crashes/ $(FUZZ_BUILD)/work/ori fuzz/corpus/ori examples
	$(FUZZ_OUT)/fuzz_pipeline -max_total_time=$(FUZZ_PIPELINE_SECONDS) -timeout=25 -max_len=4096 -rss_limit_mb=2048 \
	  -dict=$(FUZZ_OUT)/fuzz_pipeline.dict \
	  -artifact_prefix=$(FUZZ_BUILD)/crashes/ $(FUZZ_BUILD)/work/pipeline fuzz/corpus/ori examples tests/filetests/ptx-run \
	  fuzz/corpus/pipeline-crashes

clean:
	rm -rf $(BUILD) $(FUZZ_BUILD)
