#include "CVectorDot.h"

// One loop, compiled twice on x86-64: for the baseline (SSE2) and for AVX2. The compiler
// vectorises it (sign-extend to 16 bits, multiply-add pairs into 32 bits: pmaddwd); Swift's
// SIMD types reach neither form, and Swift code can't be compiled for a processor feature
// chosen at run time.
#define DOT_BODY                                              \
    int32_t sum = 0;                                          \
    for (size_t i = 0; i < count; i++) {                      \
        sum += (int32_t)((int16_t)a[i] * (int16_t)b[i]);      \
    }                                                         \
    return sum;

static int32_t dot_baseline(const int8_t *a, const int8_t *b, size_t count) { DOT_BODY }

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
__attribute__((target("avx2")))
static int32_t dot_avx2(const int8_t *a, const int8_t *b, size_t count) { DOT_BODY }

typedef int32_t (*dot_fn)(const int8_t *, const int8_t *, size_t);

static dot_fn choose(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? dot_avx2 : dot_baseline;
}

int32_t selene_dot_i8(const int8_t *a, const int8_t *b, size_t count) {
    static dot_fn chosen = 0;
    dot_fn fn = __atomic_load_n(&chosen, __ATOMIC_RELAXED);
    if (!fn) {
        fn = choose();
        __atomic_store_n(&chosen, fn, __ATOMIC_RELAXED);
    }
    return fn(a, b, count);
}
#else
int32_t selene_dot_i8(const int8_t *a, const int8_t *b, size_t count) { DOT_BODY }
#endif
