// half_log, half_log2, half_log10 and half_powr on float (`libclc.rs`,
// OWN): OpenCL allows them 8192 ulp, but Vulkan's 32-bit Log and Log2 are
// only 2^-21 absolute near 1 (14910 ulp measured by the CTS on lavapipe)
// and its Pow is undefined for NaN and negative x. They are the precise
// functions (libclc's, linked after this).

#define OVL __attribute__((overloadable))
#define EACH(M, NAME)                                                       \
    M(float, NAME) M(float2, NAME) M(float3, NAME) M(float4, NAME)          \
    M(float8, NAME) M(float16, NAME)
#define UNARY(T, NAME)                                                      \
    OVL T __ferrocl_half_##NAME(T x) { return NAME(x); }
#define BINARY(T, NAME)                                                     \
    OVL T __ferrocl_half_##NAME(T x, T y) { return NAME(x, y); }

EACH(UNARY, log)
EACH(UNARY, log2)
EACH(UNARY, log10)
EACH(BINARY, powr)
