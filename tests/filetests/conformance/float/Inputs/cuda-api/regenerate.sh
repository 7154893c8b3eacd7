#!/bin/sh
# Regenerates the PTX of the CUDA Math API kernels (nvcc 13.0, sm_90; issue 39): every float
# function of the CUDA Math API (mathf.cu: float and double) and of cuda_fp16.h, cuda_bf16.h,
# cuda_fp8.h, cuda_fp6.h, cuda_fp4.h (half.cu, written by gen_half.py), at -O3 and at
# -Xcicc -O0. Run in this directory.
set -e
python3 gen_half.py half.cu
for src in mathf half; do
  nvcc -arch=sm_90 -ptx -diag-suppress 177 $src.cu -o $src.O3.ptx
  nvcc -arch=sm_90 -ptx -diag-suppress 177 -Xcicc -O0 $src.cu -o $src.O0.ptx
done
rm half.cu
