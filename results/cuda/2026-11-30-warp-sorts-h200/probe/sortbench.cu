// Microbenchmark of warp-sort variants (f32 values, u32 indices, 1 GB-scale rows).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
typedef unsigned int u32; typedef unsigned long long u64;
#define FULL 0xffffffffu
__device__ __forceinline__ u32 key_of(float v){ u32 b=__float_as_uint(v); return (b&0x80000000u)? ~b : (b|0x80000000u);}
__device__ __forceinline__ float val_of(u32 k){ u32 b=(k&0x80000000u)?(k&0x7fffffffu):~k; return __uint_as_float(b);}
__device__ __forceinline__ bool before(u32 ka,u32 ia,u32 kb,u32 ib){return ka>kb||(ka==kb&&ia<ib);}

// ---- A: the current kernel's shape (runtime loops) ----
template<int E> __device__ __forceinline__ void stepA(u32 (&key)[E],u32 (&idx)[E],u32 lane,u32 size,u32 stride){
  if(stride>=(u32)E){u32 d=stride/(u32)E; bool lower=(lane&d)==0u;
#pragma unroll
    for(int e=0;e<E;++e){u32 pk=__shfl_xor_sync(FULL,key[e],d),pi=__shfl_xor_sync(FULL,idx[e],d);
      bool up=((lane*(u32)E+(u32)e)&size)==0u; if(before(pk,pi,key[e],idx[e])==(lower==up)){key[e]=pk;idx[e]=pi;}}
    return;}
#pragma unroll
  for(int s=E/2;s>0;s>>=1){ if((u32)s!=stride)continue;
#pragma unroll
    for(int e=0;e<E;++e){ if(e&s)continue; bool up=((lane*(u32)E+(u32)e)&size)==0u;
      if(before(key[e+s],idx[e+s],key[e],idx[e])==up){u32 tk=key[e],ti=idx[e];key[e]=key[e+s];idx[e]=idx[e+s];key[e+s]=tk;idx[e+s]=ti;}}}
}
template<int E> __global__ void __launch_bounds__(256) sortA(float* val,u32* idx,u64 n,u32 k){
  u32 lane=threadIdx.x&31u; u64 row=(u64)blockIdx.x*(blockDim.x>>5)+(threadIdx.x>>5); if(row>=n)return;
  float* v=val+row*k; u32* ix=idx+row*k; u32 key[E],id[E];
#pragma unroll
  for(int e=0;e<E;++e){u32 p=lane*E+e; key[e]=p<k?key_of(v[p]):0u; id[e]=p<k?ix[p]:0xffffffffu;}
  for(u32 size=2;size<=32u*E;size<<=1) for(u32 st=size>>1;st>0;st>>=1) stepA<E>(key,id,lane,size,st);
#pragma unroll
  for(int e=0;e<E;++e){u32 p=lane*E+e; if(p<k){ix[p]=id[e]; v[p]=val_of(key[e]);}}
}

// ---- generic LANES x E, unrolled network, optional vector access ----
template<int E,int LANES,u32 SIZE,u32 STRIDE> __device__ __forceinline__ void stepU(u32 (&key)[E],u32 (&idx)[E],u32 sub){
  if constexpr (STRIDE>=(u32)E){ constexpr u32 d=STRIDE/E; bool lower=(sub&d)==0u;
#pragma unroll
    for(int e=0;e<E;++e){u32 pk=__shfl_xor_sync(FULL,key[e],d),pi=__shfl_xor_sync(FULL,idx[e],d);
      bool up = SIZE>=(u32)E ? ((sub&(SIZE/E))==0u) : ((e&SIZE)==0);
      if(before(pk,pi,key[e],idx[e])==(lower==up)){key[e]=pk;idx[e]=pi;}}
  } else {
#pragma unroll
    for(int e=0;e<E;++e){ if(e&STRIDE)continue; bool up = SIZE>=(u32)E ? ((sub&(SIZE/E))==0u) : ((e&SIZE)==0);
      u32 a=key[e],b=key[e+STRIDE],ia=idx[e],ib=idx[e+STRIDE]; bool sw = before(b,ib,a,ia)==up;
      key[e]=sw?b:a; key[e+STRIDE]=sw?a:b; idx[e]=sw?ib:ia; idx[e+STRIDE]=sw?ia:ib; }
  }
}
template<int E,int LANES,u32 SIZE,u32 STRIDE> __device__ __forceinline__ void merge(u32 (&key)[E],u32 (&idx)[E],u32 sub){
  stepU<E,LANES,SIZE,STRIDE>(key,idx,sub);
  if constexpr (STRIDE>1) merge<E,LANES,SIZE,STRIDE/2>(key,idx,sub);
}
template<int E,int LANES,u32 SIZE> __device__ __forceinline__ void net(u32 (&key)[E],u32 (&idx)[E],u32 sub){
  merge<E,LANES,SIZE,SIZE/2>(key,idx,sub);
  if constexpr (SIZE< (u32)(E*LANES)) net<E,LANES,SIZE*2>(key,idx,sub);
}
template<int E,int LANES,bool VEC> __global__ void __launch_bounds__(256) sortU(float* val,u32* idx,u64 n,u32 k){
  u32 lane=threadIdx.x&31u, sub=lane%LANES; u64 row=((u64)blockIdx.x*blockDim.x+threadIdx.x)/LANES; if(row>=n)return;
  float* v=val+row*k; u32* ix=idx+row*k; u32 key[E],id[E];
  u32 first=sub*E;
  bool vec = VEC && (E%4==0) && (k%4==0);
  if(vec){
#pragma unroll
    for(int q=0;q<E/4;++q){u32 p=first+4*q; if(p<k){float4 a=*reinterpret_cast<float4*>(v+p); uint4 b=*reinterpret_cast<uint4*>(ix+p);
       key[4*q]=key_of(a.x);key[4*q+1]=key_of(a.y);key[4*q+2]=key_of(a.z);key[4*q+3]=key_of(a.w); id[4*q]=b.x;id[4*q+1]=b.y;id[4*q+2]=b.z;id[4*q+3]=b.w;}
       else {for(int j=0;j<4;++j){key[4*q+j]=0u;id[4*q+j]=0xffffffffu;}}}
  } else {
#pragma unroll
  for(int e=0;e<E;++e){u32 p=first+e; key[e]=p<k?key_of(v[p]):0u; id[e]=p<k?ix[p]:0xffffffffu;}
  }
  net<E,LANES,2>(key,id,sub);
  if(vec){
#pragma unroll
    for(int q=0;q<E/4;++q){u32 p=first+4*q; if(p<k){ *reinterpret_cast<float4*>(v+p)=make_float4(val_of(key[4*q]),val_of(key[4*q+1]),val_of(key[4*q+2]),val_of(key[4*q+3]));
      *reinterpret_cast<uint4*>(ix+p)=make_uint4(id[4*q],id[4*q+1],id[4*q+2],id[4*q+3]);}}
  } else {
#pragma unroll
  for(int e=0;e<E;++e){u32 p=first+e; if(p<k){ix[p]=id[e]; v[p]=val_of(key[e]);}}
  }
}
__global__ void fill(float* v,u32* ix,u64 n,u32 k,u64 seed){
  u64 t=(u64)blockIdx.x*blockDim.x+threadIdx.x; if(t>=n*k)return;
  u64 h=(t+seed)*0x9E3779B97F4A7C15ull; h^=h>>29; h*=0xBF58476D1CE4E5B9ull; h^=h>>32;
  v[t]=(float)((h&0xffffff))/16777216.0f-0.5f; ix[t]=(u32)(t%k)*2u;
}
__global__ void check(const float* v,const u32* ix,u64 n,u32 k,int* bad){
  u64 r=(u64)blockIdx.x*blockDim.x+threadIdx.x; if(r>=n)return;
  for(u32 i=1;i<k;++i){ float a=v[r*k+i-1],b=v[r*k+i]; if(a<b||(a==b&&ix[r*k+i-1]>ix[r*k+i])){atomicAdd(bad,1);return;} }
}
typedef void(*K)(float*,u32*,u64,u32);
float timeit(K kern,int lanes,float* v,u32* ix,u64 n,u32 k,int* bad,int* okout){
  cudaEvent_t a,b; cudaEventCreate(&a);cudaEventCreate(&b);
  std::vector<float> ts;
  int threads=256; u64 blocks=(n*lanes+threads-1)/threads;
  for(int r=0;r<12;++r){
    fill<<<(n*k+255)/256,256>>>(v,ix,n,k,r);
    cudaEventRecord(a); kern<<<blocks,threads>>>(v,ix,n,k); cudaEventRecord(b); cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms,a,b); if(r>=2) ts.push_back(ms);
  }
  cudaMemset(bad,0,4); check<<<(n+255)/256,256>>>(v,ix,n,k,bad); int h; cudaMemcpy(&h,bad,4,cudaMemcpyDeviceToHost); *okout=(h==0);
  std::sort(ts.begin(),ts.end()); return ts[ts.size()/2];
}
int main(){
  u64 n=1u<<20; float* v; u32* ix; int* bad; cudaMalloc(&v,n*128*4); cudaMalloc(&ix,n*128*4); cudaMalloc(&bad,4);
  struct C{const char* name; K k; int lanes; u32 kk;};
  C cs[]={
    {"A E1 (k16)",sortA<1>,32,16},{"U 32x1 (k16)",sortU<1,32,false>,32,16},{"U 4x4v (k16)",sortU<4,4,true>,4,16},{"U 2x8v (k16)",sortU<8,2,true>,2,16},{"U 8x2 (k16)",sortU<2,8,false>,8,16},
    {"A E1 (k32)",sortA<1>,32,32},{"U 4x8v (k32)",sortU<8,4,true>,4,32},{"U 8x4v (k32)",sortU<4,8,true>,8,32},
    {"A E2 (k64)",sortA<2>,32,64},{"U 32x2 (k64)",sortU<2,32,false>,32,64},{"U 8x8v (k64)",sortU<8,8,true>,8,64},{"U 4x16v (k64)",sortU<16,4,true>,4,64},{"U 16x4v (k64)",sortU<4,16,true>,16,64},
    {"A E4 (k128)",sortA<4>,32,128},{"A E4 (k96)",sortA<4>,32,96},{"U 32x4 (k128)",sortU<4,32,false>,32,128},{"U 32x4v (k128)",sortU<4,32,true>,32,128},
    {"U 16x8v (k128)",sortU<8,16,true>,16,128},{"U 8x16v (k128)",sortU<16,8,true>,8,128},{"U 4x32v (k128)",sortU<32,4,true>,4,128},{"U 8x16v (k96)",sortU<16,8,true>,8,96},
  };
  for(auto& c:cs){int ok; float ms=timeit(c.k,c.lanes,v,ix,n,c.kk,bad,&ok);
    double gb=2.0*n*c.kk*8/1e9; printf("%-18s k=%3u  %.4f ms  %.0f GB/s  sorted=%s\n",c.name,c.kk,ms,gb/(ms*1e-3),ok?"yes":"NO");}
  cudaError_t e=cudaGetLastError(); printf("err: %s\n",cudaGetErrorString(e));
}
