# Thin wrapper around scripts/bootstrap, CMake and ctest. Everything real is in CMakeLists.txt.
#   make test    install what is missing, configure, build, run every test (what CI runs)
#   make run     build and run oriopt on examples/saxpy.ori
#   make bench   build and run the benchmarks
#   make fuzz    build the libFuzzer harnesses with clang into build-fuzz/
BUILD ?= build
FUZZ_BUILD ?= build-fuzz
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=
CTEST_ARGS ?=
BENCH_ARGS ?=
GENERATOR := $(if $(shell command -v ninja 2>/dev/null),Ninja,Unix Makefiles)

# Steps run in the order written, even under make -j (cmake --build parallelises the build).
.NOTPARALLEL:
.DEFAULT_GOAL := build
.PHONY: bootstrap configure build test run bench fuzz clean help

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

run: bootstrap configure build
	$(BUILD)/bin/oriopt --summary examples/saxpy.ori
	$(BUILD)/bin/oriopt --run --threads 4 --param n=4 --param a=2.0 \
	  --buffer x=@examples/saxpy-x.bin --buffer y=@examples/saxpy-y.bin --dump-buffer y \
	  examples/saxpy.ori

bench: build
	$(BUILD)/bin/oriopt_bench $(BENCH_ARGS)

fuzz: bootstrap
	@if [ -f $(FUZZ_BUILD)/CMakeCache.txt ]; then \
	  cmake -S . -B $(FUZZ_BUILD) -DORIOPT_LIBFUZZER=ON $(CMAKE_ARGS); \
	else \
	  CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -G "$(GENERATOR)" \
	    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DORIOPT_LIBFUZZER=ON $(CMAKE_ARGS); \
	fi
	cmake --build $(FUZZ_BUILD) -j $(JOBS)
	@echo "fuzz: harnesses are in $(FUZZ_BUILD)/bin/ (run e.g. $(FUZZ_BUILD)/bin/fuzz_NAME -max_total_time=60)"

clean:
	rm -rf $(BUILD) $(FUZZ_BUILD)
