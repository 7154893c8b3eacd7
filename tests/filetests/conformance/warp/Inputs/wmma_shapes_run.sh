#!/bin/sh
# wmma_shapes_run.sh ORIOPT PYTHON PTX TMP [ORIOPT-OPTIONS...]: runs every kernel of
# wmma_shapes.cu (compiled to PTX) in the interpreter and checks its d against
# wmma_shapes_oracle.py; stops at the first difference.
set -e
oriopt=$1 python=$2 ptx=$3 tmp=$4
shift 4
dir=$(dirname "$0")
for k in h_m32n8k16_ra_cb_rc_f32 h_m8n32k16_ca_rb_cc_f32 h_m8n32k16_ra_cb_rc_f16 h_m16n16k16_ca_rb_rc_f16 \
         bf_m16n16k16_ra_rb_cc_f32 bf_m8n32k16_ca_cb_rc_f32 s8_m16n16k16_ra_cb_rc u8_m32n8k16_ca_rb_cc \
         s8_m8n32k16_ra_rb_rc tf_m16n16k8_ra_cb_rc tf_m16n16k8_ca_rb_cc d_m8n8k4_ra_cb_rc d_m8n8k4_ca_rb_cc \
         s4_m8n8k32_ra_cb_rc u4_m8n8k32_ra_cb_cc b1and_m8n8k128_ra_cb_rc b1xor_m8n8k128_ra_cb_cc \
         h_m16n16k16_ra_cb_rc_d32c16 h_m8n32k16_ra_cb_rc_d16c32; do
  n=$("$python" "$dir/wmma_shapes_oracle.py" "$k" "$tmp.$k")
  "$oriopt" "$@" --run --entry "$k" --threads 32 --buffer "${k}_param_0=@$tmp.$k.a" --buffer "${k}_param_1=@$tmp.$k.b" \
    --buffer "${k}_param_2=@$tmp.$k.c" --buffer "${k}_param_3=$n" --dump-buffer "${k}_param_3" "$ptx" > "$tmp.$k.out"
  sed -e "s/${k}_param_3/d/" "$tmp.$k.out" | FileCheck "$tmp.$k.check" || { echo "kernel $k"; exit 1; }
done
