// A/B harness: the wide-rows kernels of this file (one row per LANES lanes) on N = 2^18 rows,
// timed with CUDA events; each layout's outputs hashed.
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cmath>
#include <cstdint>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s line %d\n", cudaGetErrorString(e), __LINE__); return 1; } } while (0)
typedef void (*kfn)(RTOPK_ARGS);
struct Cfg { const char* name; kfn f; u32 m_max, lanes; };
int main(int argc, char** argv) {
    const u64 N = 1ull << 18;
    const Cfg cfgs[] = {{"c8", c8, 256, 32}, {"n8", n8, 256, 32}, {"c16", c16, 512, 32}, {"n16", n16, 512, 32},
                        {"c24", c24, 768, 32}, {"n24", n24, 768, 32}};
    const int Ms[3] = {256, 512, 768}, Ks[6] = {16, 64, 128, 200, 256, 300};
    size_t maxe = N * 768;
    std::vector<elem_t> h(maxe);
    uint64_t s = 12345;
    for (size_t i = 0; i < maxe; i += 2) {
        auto u = [&]() { s = s * 6364136223846793005ull + 1442695040888963407ull; return ((s >> 11) + 0.5) * (1.0 / 9007199254740992.0); };
        double a = u(), b = u(), r = sqrt(-2 * log(a));
        double z0 = r * cos(6.283185307179586 * b), z1 = r * sin(6.283185307179586 * b);
#if ELEM_KIND == ELEM_F64
        h[i] = z0; h[i + 1] = z1;
#else
        h[i] = (long long)llround(z0 * 1125899906842624.0); h[i + 1] = (long long)llround(z1 * 1125899906842624.0);
#endif
    }
    elem_t* x[2]; elem_t* ov; idx_t* oi; u32* it;
    for (int b = 0; b < 2; ++b) { CK(cudaMalloc(&x[b], maxe * sizeof(elem_t))); CK(cudaMemcpy(x[b], h.data(), maxe * sizeof(elem_t), cudaMemcpyHostToDevice)); }
    CK(cudaMalloc(&ov, N * 300 * sizeof(elem_t))); CK(cudaMalloc(&oi, N * 300 * sizeof(idx_t))); CK(cudaMalloc(&it, N * 4));
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    for (int mi = 0; mi < 3; ++mi) for (int ki = 0; ki < 6; ++ki) for (int sorted = 0; sorted < 2; ++sorted) for (const Cfg& c : cfgs) {
        u32 m = Ms[mi], k = Ks[ki];
        if (k > m) continue;
        if (c.m_max != (m <= 256 ? 256u : m <= 512 ? 512u : 768u)) continue;
        unsigned grid = (unsigned)(N / (4 * 32 / c.lanes));
        auto launch = [&](int b, u32* iters) { c.f<<<grid, 128>>>(x[b], ov, oi, iters, N, m, k, 0, -1, 0.0f, 0u, 0, 1.0f, (u64)m, k, 1u, nullptr, nullptr, nullptr, 0u, 0u, 0.0f, sorted); };
        for (int w = 0; w < 3; ++w) launch(w & 1, nullptr);
        CK(cudaDeviceSynchronize());
        std::vector<float> t;
        for (int r = 0; r < 30; ++r) {
            cudaEventRecord(e0); launch(r & 1, nullptr); cudaEventRecord(e1); cudaEventSynchronize(e1);
            float ms; cudaEventElapsedTime(&ms, e0, e1); t.push_back(ms);
        }
        CK(cudaGetLastError());
        CK(cudaMemset(ov, 0xab, N * k * sizeof(elem_t))); CK(cudaMemset(oi, 0xab, N * k * sizeof(idx_t)));
        launch(0, it); CK(cudaDeviceSynchronize());
        std::vector<elem_t> hv(N * k); std::vector<idx_t> hi(N * k); std::vector<u32> hit(N);
        CK(cudaMemcpy(hv.data(), ov, N * k * sizeof(elem_t), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hi.data(), oi, N * k * sizeof(idx_t), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hit.data(), it, N * 4, cudaMemcpyDeviceToHost));
        uint64_t sum = 0, hx = 0, its = 0;
        for (size_t i = 0; i < N * k; ++i) { uint64_t bits; memcpy(&bits, &hv[i], 8); hx = hx * 31 + bits; sum = sum * 1000003 + (uint64_t)hi[i]; }
        for (size_t i = 0; i < N; ++i) its = its * 131 + hit[i];
        std::sort(t.begin(), t.end());
        printf("%s %s M=%u k=%u sorted=%d ms=%.4f check=%016llx%016llx%016llx\n", ELEM_KIND == ELEM_F64 ? "f64" : "i64", c.name, m, k, sorted, t[15], (unsigned long long)hx, (unsigned long long)sum, (unsigned long long)its);
    }
    return 0;
}
