__global__ void cache(const int* __restrict__ in, int* out, const float4* in4, float4* out4, const double2* d2, double2* o2,
                      const long long* lp, long long* lo) {
  int t = threadIdx.x;
  int r = __ldg(in + t) + __ldcg(in + t + 1) + __ldca(in + t + 2) + __ldcs(in + t + 3) + __ldlu(in + t + 4) + __ldcv(in + t + 5);
  float4 v = __ldg(in4 + t); float4 w = __ldcs(in4 + t + 1);
  double2 dd = __ldcg(d2 + t);
  long long l = __ldg(lp + t) + __ldcv(lp + t + 1);
  __stcg(out + t, r); __stcs(out + t + 1, r); __stwb(out + t + 2, r); __stwt(out + t + 3, r);
  __stcs(out4 + t, v); __stwt(out4 + t + 1, w); __stcg(o2 + t, dd); __stwb(lo + t, l);
  
}
__global__ void vol(volatile int* p, int* out) {
  int t = threadIdx.x;
  p[t] = t; int r = p[t + 1];
  __shared__ volatile int s[32]; s[t] = r; __syncthreads(); out[t] = s[31 - t] + p[0];
}
