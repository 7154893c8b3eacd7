#!/bin/bash -eu
# Builds oriopt's libFuzzer targets the way OSS-Fuzz and ClusterFuzzLite do (docs/campaigns.md):
# with the engine's $CC, $CXX, $CFLAGS, $CXXFLAGS and $LIB_FUZZING_ENGINE, into $OUT, each target
# with its seed corpus ($OUT/NAME_seed_corpus.zip) and dictionary ($OUT/NAME.dict):
#   fuzz_ptx_parser   the PTX reader          seeds: the shared corpus, tests/filetests PTX, saved crashes
#   fuzz_ori_parser   the .ori reader         seeds: fuzz/corpus/ori, examples, tests/filetests .ori
#   fuzz_pipeline     --pipeline=ptxas -O3 --impl=both on what the reader accepts   seeds: both, and
#                     its saved findings (fuzz/corpus/pipeline-crashes)
# Intermediate files go to $WORK/cmake-build. `make fuzz` runs this script here with libFuzzer
# flags (no Docker), and `make fuzz-smoke` (part of `make test`) runs each target briefly.
# Optional: ORIOPT_CORPUS_DIR (default: shared/corpus inside the source tree, else ../shared/corpus).
set -euo pipefail  # also when run as `bash build.sh`
# The source tree: the one this script sits in (.clusterfuzzlite/build.sh), or, where the Dockerfile
# copied it to $SRC/build.sh, the working directory ($SRC/oriopt).
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ -f "$src/.clusterfuzzlite/build.sh" ] || src=$PWD
[ -f "$src/.clusterfuzzlite/build.sh" ] || { echo "build.sh: run it from the oriopt source tree" >&2; exit 1; }
: "${OUT:?}" "${WORK:?}" "${CC:?}" "${CXX:?}" "${LIB_FUZZING_ENGINE:?}"
CFLAGS=${CFLAGS:-}
CXXFLAGS=${CXXFLAGS:-}
mkdir -p "$OUT" "$WORK"
corpus=${ORIOPT_CORPUS_DIR:-}
if [ -z "$corpus" ]; then
  for c in "$src/shared/corpus" "$src/../shared/corpus"; do
    [ -d "$c/ptx" ] && { corpus=$(cd "$c" && pwd); break; }
  done
fi

generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
build=$WORK/cmake-build
# The generator of an existing build directory is kept.
[ -f "$build/CMakeCache.txt" ] && generator=()
cmake -S "$src" -B "$build" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE= \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
  -DORIOPT_FUZZ_ENGINE="$LIB_FUZZING_ENGINE" -DORIOPT_LIBFUZZER=OFF -DORIOPT_SANITIZE= \
  ${corpus:+-DORIOPT_CORPUS_DIR="$corpus"} \
  ${CMAKE_LAUNCHER:+-DCMAKE_C_COMPILER_LAUNCHER="$CMAKE_LAUNCHER" -DCMAKE_CXX_COMPILER_LAUNCHER="$CMAKE_LAUNCHER"}
targets=(fuzz_ptx_parser fuzz_ori_parser fuzz_pipeline)
cmake --build "$build" -j "${JOBS:-$(nproc)}" --target "${targets[@]}"

# A zip of the files given (directories: their files with these suffixes), flat and unique names.
zip_seeds() {
  local out=$1 suffixes=$2
  shift 2
  python3 - "$out" "$suffixes" "$@" <<'PY'
import os, sys, zipfile
out, suffixes, roots = sys.argv[1], tuple(sys.argv[2].split(",")), sys.argv[3:]
files = []
for r in roots:
    if os.path.isfile(r):
        files.append(r)
    elif os.path.isdir(r):
        for d, _, names in os.walk(r):
            files += [os.path.join(d, n) for n in sorted(names) if n.endswith(suffixes)]
with zipfile.ZipFile(out + ".tmp", "w", zipfile.ZIP_DEFLATED) as z:
    for i, f in enumerate(sorted(set(files))):
        z.write(f, f"{i:05d}-{os.path.basename(f)}")
os.replace(out + ".tmp", out)
print(f"build.sh: {out}: {len(set(files))} seeds")
PY
}
ptx_seeds=("$src/tests/filetests" "$src/fuzz/corpus/ptx-crashes")
[ -n "$corpus" ] && ptx_seeds+=("$corpus/ptx")
[ -z "$corpus" ] && echo "build.sh: no shared corpus (ORIOPT_CORPUS_DIR): PTX seeds from the repository only"
ori_seeds=("$src/fuzz/corpus/ori" "$src/examples" "$src/tests/filetests")

for t in "${targets[@]}"; do
  cp "$build/bin/$t" "$OUT/$t"
done
zip_seeds "$OUT/fuzz_ptx_parser_seed_corpus.zip" .ptx "${ptx_seeds[@]}"
zip_seeds "$OUT/fuzz_ori_parser_seed_corpus.zip" .ori "${ori_seeds[@]}"
zip_seeds "$OUT/fuzz_pipeline_seed_corpus.zip" .ptx,.ori,-hang "${ptx_seeds[@]}" "${ori_seeds[@]}" \
  "$src/fuzz/corpus/pipeline-crashes"
cp "$src/.clusterfuzzlite/ptx.dict" "$OUT/fuzz_ptx_parser.dict"
cp "$src/.clusterfuzzlite/ori.dict" "$OUT/fuzz_ori_parser.dict"
cat "$src/.clusterfuzzlite/ptx.dict" "$src/.clusterfuzzlite/ori.dict" >"$OUT/fuzz_pipeline.dict"
# Per-target libFuzzer options: the pipeline is slow on big inputs.
printf '[libfuzzer]\nmax_len = 4096\ntimeout = 25\n' >"$OUT/fuzz_pipeline.options"
echo "build.sh: ${targets[*]} in $OUT"
