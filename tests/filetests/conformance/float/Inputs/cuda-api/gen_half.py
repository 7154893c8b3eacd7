import sys
out = ['#include <cuda_fp16.h>', '#include <cuda_bf16.h>', '#include <cuda_fp8.h>', '#include <cuda_fp6.h>', '#include <cuda_fp4.h>']
for T, T2, tag, f2t, t2f in [('__half', '__half2', 'h', '__float2half', '__half2float'),
                   ('__nv_bfloat16', '__nv_bfloat162', 'b', '__float2bfloat16', '__bfloat162float')]:
    un = '__habs __hneg hceil hcos hexp hexp10 hexp2 hfloor hlog hlog10 hlog2 hrcp hrint hrsqrt hsin hsqrt htanh htanh_approx htrunc'.split()
    bi = '__hadd __hadd_rn __hadd_sat __hsub __hsub_rn __hsub_sat __hmul __hmul_rn __hmul_sat __hdiv __hmax __hmin __hmax_nan __hmin_nan'.split()
    te = '__hfma __hfma_relu __hfma_sat'.split()
    cmp = '__heq __hequ __hge __hgeu __hgt __hgtu __hle __hleu __hlt __hltu __hne __hneu'.split()
    un2 = '__habs2 __hneg2 h2ceil h2cos h2exp h2exp10 h2exp2 h2floor h2log h2log10 h2log2 h2rcp h2rint h2rsqrt h2sin h2sqrt h2tanh h2tanh_approx h2trunc'.split()
    bi2 = '__hadd2 __hadd2_rn __hadd2_sat __hsub2 __hsub2_rn __hsub2_sat __hmul2 __hmul2_rn __hmul2_sat __h2div __hmax2 __hmin2 __hmax2_nan __hmin2_nan __heq2 __hequ2 __hge2 __hgeu2 __hgt2 __hgtu2 __hle2 __hleu2 __hlt2 __hltu2 __hne2 __hneu2'.split()
    te2 = '__hfma2 __hfma2_relu __hfma2_sat __hcmadd'.split()
    cmpb2 = '__hbeq2 __hbequ2 __hbge2 __hbgeu2 __hbgt2 __hbgtu2 __hble2 __hbleu2 __hblt2 __hbltu2 __hbne2 __hbneu2'.split()
    mask2 = [c + '_mask' for c in '__heq2 __hequ2 __hge2 __hgeu2 __hgt2 __hgtu2 __hle2 __hleu2 __hlt2 __hltu2 __hne2 __hneu2'.split()]
    for grp, names in [('un', un), ('bi', bi), ('te', te), ('cmp', cmp), ('un2', un2), ('bi2', bi2), ('te2', te2), ('cmpb2', cmpb2), ('mask2', mask2)]:
        for n in names:
            fn = f'k_{tag}_{n.strip("_")}'
            args = {'un': 'a', 'bi': 'a, b', 'te': 'a, b, c', 'cmp': 'a, b', 'un2': 'a2', 'bi2': 'a2, b2', 'te2': 'a2, b2, c2', 'cmpb2': 'a2, b2', 'mask2': 'a2, b2'}[grp]
            res = {'un': 'T', 'bi': 'T', 'te': 'T', 'cmp': 'int', 'un2': 'T2', 'bi2': 'T2', 'te2': 'T2', 'cmpb2': 'int', 'mask2': 'unsigned'}[grp]
            body = f'{n}({args})'
            if res == 'T': st = f'((T*)o)[threadIdx.x] = {body};'
            elif res == 'T2': st = f'((T2*)o)[threadIdx.x] = {body};'
            else: st = f'((unsigned*)o)[threadIdx.x] = {body};'
            out.append(f'extern "C" __global__ void {fn}(const {T}* in, void* o) {{ typedef {T} T; typedef {T2} T2; T a = in[threadIdx.x], b = in[threadIdx.x+1], c = in[threadIdx.x+2]; T2 a2 = ((const T2*)in)[threadIdx.x], b2 = ((const T2*)in)[threadIdx.x+1], c2 = ((const T2*)in)[threadIdx.x+2]; {st} }}')
    out.append(f'extern "C" __global__ void k_{tag}_isx(const {T}* in, int* o) {{ o[0] = __hisinf(in[0]); o[1] = __hisnan(in[1]); {T}2 x = (({T}2*)in)[1]; o[2] = __hisnan2(x).x == {T}(1.0f); }}')
    cv = []
    pre = 'half' if tag == 'h' else 'bfloat16'
    for it, ct in [('int', 'int'), ('uint', 'unsigned'), ('short', 'short'), ('ushort', 'unsigned short'), ('ll', 'long long'), ('ull', 'unsigned long long')]:
        for r in ['rn', 'rz', 'rd', 'ru']:
            cv.append(f'extern "C" __global__ void k_{tag}_to_{it}_{r}(const {T}* in, {ct}* o) {{ o[threadIdx.x] = __{pre}2{it}_{r}(in[threadIdx.x]); }}')
            cv.append(f'extern "C" __global__ void k_{tag}_from_{it}_{r}(const {ct}* in, {T}* o) {{ o[threadIdx.x] = __{it}2{pre}_{r}(in[threadIdx.x]); }}')
    cv.append(f'extern "C" __global__ void k_{tag}_to_char(const {T}* in, signed char* o) {{ o[threadIdx.x] = __{pre}2char_rz(in[threadIdx.x]); o[threadIdx.x+64] = __{pre}2uchar_rz(in[threadIdx.x]); }}')
    for r in ['rn', 'rz', 'rd', 'ru']:
        cv.append(f'extern "C" __global__ void k_{tag}_from_float_{r}(const float* in, {T}* o) {{ o[threadIdx.x] = {f2t}_{r}(in[threadIdx.x]); }}')
    cv.append(f'extern "C" __global__ void k_{tag}_misc(const float* in, {T}* o, float* of, double* od) {{ o[0] = {f2t}(in[0]); o[1] = __double2{pre}(od[0]); of[0] = {t2f}(o[2]); od[1] = (double){t2f}(o[3]); {T2} p = __float22{pre}2_rn(make_float2(in[1], in[2])); (({T2}*)o)[4] = p; float2 q = __{pre}{"2" if tag=="h" else "2"}2float2((({T2}*)o)[5]) ; of[1] = q.x; of[2] = q.y; (({T2}*)o)[6] = __floats2{pre}2_rn(in[3], in[4]); (({T2}*)o)[7] = __float2{pre}2_rn(in[5]); of[3] = __low2float((({T2}*)o)[8]); of[4] = __high2float((({T2}*)o)[9]); }}')
    out += cv
# fp8
fp8 = []
for interp in ['__NV_E4M3', '__NV_E5M2']:
    for sat in ['__NV_NOSAT', '__NV_SATFINITE']:
        t = interp[-4:] + sat[5:]
        fp8.append(f'extern "C" __global__ void k_f8_{t}(const float* in, unsigned* o, const __half_raw* h, const __nv_bfloat16_raw* bb, const double* d) {{ o[0] = __nv_cvt_float_to_fp8(in[0], {sat}, {interp}); o[1] = __nv_cvt_float2_to_fp8x2(make_float2(in[1], in[2]), {sat}, {interp}); o[2] = __nv_cvt_halfraw_to_fp8(h[0], {sat}, {interp}); __half2_raw h2; h2.x = h[1].x; h2.y = h[2].x; o[3] = __nv_cvt_halfraw2_to_fp8x2(h2, {sat}, {interp}); o[4] = __nv_cvt_bfloat16raw_to_fp8(bb[0], {sat}, {interp}); __nv_bfloat162_raw b2; b2.x = bb[1].x; b2.y = bb[2].x; o[5] = __nv_cvt_bfloat16raw2_to_fp8x2(b2, {sat}, {interp}); o[6] = __nv_cvt_double_to_fp8(d[0], {sat}, {interp}); o[7] = __nv_cvt_double2_to_fp8x2(make_double2(d[1], d[2]), {sat}, {interp}); }}')
    fp8.append(f'extern "C" __global__ void k_f8to_{interp[-4:]}(const unsigned char* in, unsigned* o) {{ __half_raw r = __nv_cvt_fp8_to_halfraw(in[0], {interp}); o[0] = r.x; __half2_raw r2 = __nv_cvt_fp8x2_to_halfraw2(*(const unsigned short*)(in+2), {interp}); o[1] = r2.x | (r2.y << 16); }}')
fp8.append('extern "C" __global__ void k_f8_cls(const float* in, float* o) { __nv_fp8_e4m3 a(in[0]); __nv_fp8_e5m2 b(in[1]); o[0] = float(a); o[1] = float(b); __nv_fp8x2_e4m3 c(make_float2(in[2], in[3])); float2 f = float2(c); o[2] = f.x; o[3] = f.y; __nv_fp8x4_e5m2 d(make_float4(in[4], in[5], in[6], in[7])); float4 g = float4(d); o[4] = g.x; o[5] = g.w; o[6] = __half(a); }')
fp8.append('extern "C" __global__ void k_e8m0(const float* in, unsigned* o, const double* d, const __nv_bfloat16_raw* bb) { o[0] = __nv_cvt_float_to_e8m0(in[0], __NV_SATFINITE, cudaRoundPosInf); o[1] = __nv_cvt_float2_to_e8m0x2(make_float2(in[1], in[2]), __NV_NOSAT, cudaRoundZero); o[2] = __nv_cvt_double_to_e8m0(d[0], __NV_SATFINITE, cudaRoundZero); o[3] = __nv_cvt_bfloat16raw_to_e8m0(bb[0], __NV_NOSAT, cudaRoundPosInf); o[4] = __nv_cvt_e8m0_to_bf16raw(in[3]).x; }')
fp8.append('extern "C" __global__ void k_f6(const float* in, unsigned* o) { o[0] = __nv_cvt_float_to_fp6(in[0], __NV_E2M3, cudaRoundNearest); o[1] = __nv_cvt_float2_to_fp6x2(make_float2(in[1], in[2]), __NV_E3M2, cudaRoundNearest); o[2] = __nv_cvt_fp6_to_halfraw(in[3], __NV_E2M3).x; o[3] = __nv_cvt_fp6x2_to_halfraw2(in[4], __NV_E3M2).x; }')
fp8.append('extern "C" __global__ void k_f4(const float* in, unsigned* o) { o[0] = __nv_cvt_float_to_fp4(in[0], __NV_E2M1, cudaRoundNearest); o[1] = __nv_cvt_float2_to_fp4x2(make_float2(in[1], in[2]), __NV_E2M1, cudaRoundNearest); o[2] = __nv_cvt_fp4_to_halfraw(in[3], __NV_E2M1).x; o[3] = __nv_cvt_fp4x2_to_halfraw2(in[4], __NV_E2M1).x; }')
out += fp8
open(sys.argv[1], 'w').write('\n'.join(out) + '\n')
