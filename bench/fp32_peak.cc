// Single-core FP32 peak: independent fused multiply-add chains (enough of them to cover the FMA
// latency on every port), AVX-512 and AVX2. The figure ResNet-50's achieved GFLOP/s is compared to.
#include <benchmark/benchmark.h>
#include <immintrin.h>

namespace {

constexpr int kChains = 24;  // > latency (4) x ports (2) x unroll slack

__attribute__((target("avx512f"))) void fma_avx512(benchmark::State& state) {
  if (!__builtin_cpu_supports("avx512f")) {
    state.SkipWithError("no AVX-512F");
    return;
  }
  const int64_t iters = 1 << 16;
  for (auto _ : state) {
    __m512 acc[kChains];
    for (int i = 0; i < kChains; ++i) acc[i] = _mm512_set1_ps(1.0f + 0.001f * i);
    const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
    for (int64_t k = 0; k < iters; ++k) {
#pragma GCC unroll 24  // keeps every chain in a register
      for (int i = 0; i < kChains; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
    }
    __m512 sum = acc[0];
    for (int i = 1; i < kChains; ++i) sum = _mm512_add_ps(sum, acc[i]);
    benchmark::DoNotOptimize(sum);
  }
  state.counters["GFLOP/s"] = benchmark::Counter(static_cast<double>(state.iterations()) * iters * kChains * 16 * 2,
                                                 benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
}

__attribute__((target("avx2,fma"))) void fma_avx2(benchmark::State& state) {
  const int64_t iters = 1 << 16;
  for (auto _ : state) {
    __m256 acc[kChains];
    for (int i = 0; i < kChains; ++i) acc[i] = _mm256_set1_ps(1.0f + 0.001f * i);
    const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
    for (int64_t k = 0; k < iters; ++k) {
#pragma GCC unroll 24
      for (int i = 0; i < kChains; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
    }
    __m256 sum = acc[0];
    for (int i = 1; i < kChains; ++i) sum = _mm256_add_ps(sum, acc[i]);
    benchmark::DoNotOptimize(sum);
  }
  state.counters["GFLOP/s"] = benchmark::Counter(static_cast<double>(state.iterations()) * iters * kChains * 8 * 2,
                                                 benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
}

}  // namespace

BENCHMARK(fma_avx512)->Unit(benchmark::kMicrosecond);
BENCHMARK(fma_avx2)->Unit(benchmark::kMicrosecond);
