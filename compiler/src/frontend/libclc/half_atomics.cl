// Half-precision atomics of cl_ext_float_atomics (`own.rs`,
// HALF_ATOMICS): atomic_load/store/exchange and atomic_fetch_add/sub/
// min/max[_explicit] on atomic_half in __global, __local and generic
// memory. llvm-spirv-15 cannot translate 16-bit float atomics and Vulkan
// has no 16-bit integer atomics, so each is a compare-exchange loop on the
// aligned 32-bit word that holds the half (the half at byte address a is
// bits (a & 2) * 8 .. + 15 of the word at a & ~3: little-endian): load
// the word (relaxed), replace the half's 16 bits by the new value, 32-bit
// compare-exchange with the order and scope given (relaxed on failure:
// only the exchange that succeeds is the operation), retry from the word
// seen. The other half of the word is written back as it was read, so
// concurrent updates of the neighbour are never lost. atomic_load is a
// 32-bit atomic load of the word.
//
// Each overload is named __ferrocl_<name> with the parameters of the
// builtin it replaces (own.rs renames the program's calls) and is always
// inlined (at -O0 too) so that the orders and scopes reach the 32-bit
// atomics as the constants the lowering requires. Compiled as OpenCL C
// 2.0: the unqualified pointer is the generic one.
//
// add: rounded once, as a native add: the float sum of two halves rounded
// to half (to nearest even) is the correctly rounded half sum, as float's
// 24 bits are at least 2 * 11 + 2 (Figueroa: double rounding through such
// a format is innocuous for +, -, *, /); a nonzero float sum of two halves
// is a normal float (at least 2^-24), so flushing float denormals changes
// nothing. sub adds the negated value.
// min/max: a NaN operand gives the other value (both NaN: NaN), -0 is
// below +0 (equal operands combined bitwise: or for min, and for max), as
// the 32-bit loops (passes::lower::atomic::float).

#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL FP_CONTRACT OFF

#define OVL __attribute__((overloadable, always_inline))

static ushort add_bits(ushort a, ushort b)
{
    return as_ushort(convert_half(convert_float(as_half(a)) +
                                  convert_float(as_half(b))));
}

static ushort sub_bits(ushort a, ushort b)
{
    return add_bits(a, b ^ (ushort)0x8000);
}

static ushort min_bits(ushort a, ushort b)
{
    float x = convert_float(as_half(a));
    float y = convert_float(as_half(b));
    if (isnan(x))
        return b;
    if (isnan(y) || x < y)
        return a;
    if (y < x)
        return b;
    return a | b;
}

static ushort max_bits(ushort a, ushort b)
{
    float x = convert_float(as_half(a));
    float y = convert_float(as_half(b));
    if (isnan(x))
        return b;
    if (isnan(y) || x > y)
        return a;
    if (y > x)
        return b;
    return a & b;
}

static ushort exchange_bits(ushort a, ushort b)
{
    return b;
}

// The word holding the half at P (in address space AS), and the half's
// shift in it.
#define WORD(AS, P)                                                         \
    ((volatile AS atomic_uint *)((volatile AS uchar *)(P) -                 \
                                 ((size_t)(P) & 2)))
#define SHIFT(P) ((uint)((size_t)(P) & 2) * 8u)

// The old value of the half at p after replacing it by OP(old, v).
#define RMW(AS, OP)                                                         \
    static half OVL rmw_##OP(volatile AS atomic_half *p, half v,            \
                             memory_order order, memory_scope scope)        \
    {                                                                       \
        volatile AS atomic_uint *w = WORD(AS, p);                           \
        uint sh = SHIFT(p);                                                 \
        uint old = atomic_load_explicit(w, memory_order_relaxed, scope);    \
        uint next;                                                          \
        do {                                                                \
            ushort h = (ushort)(old >> sh);                                 \
            next = (old & ~(0xffffu << sh)) |                               \
                   ((uint)OP##_bits(h, as_ushort(v)) << sh);                \
        } while (!atomic_compare_exchange_weak_explicit(                    \
            w, &old, next, order, memory_order_relaxed, scope));            \
        return as_half((ushort)(old >> sh));                                \
    }

// The three forms of one read-modify-write builtin NAME.
#define FETCH(AS, NAME, OP)                                                 \
    half OVL __ferrocl_##NAME(volatile AS atomic_half *p, half v)           \
    {                                                                       \
        return rmw_##OP(p, v, memory_order_seq_cst, memory_scope_device);   \
    }                                                                       \
    half OVL __ferrocl_##NAME##_explicit(volatile AS atomic_half *p,        \
                                         half v, memory_order order)        \
    {                                                                       \
        return rmw_##OP(p, v, order, memory_scope_device);                  \
    }                                                                       \
    half OVL __ferrocl_##NAME##_explicit(volatile AS atomic_half *p,        \
                                         half v, memory_order order,        \
                                         memory_scope scope)                \
    {                                                                       \
        return rmw_##OP(p, v, order, scope);                                \
    }

#define LOAD_STORE(AS)                                                      \
    half OVL __ferrocl_atomic_load_explicit(volatile AS atomic_half *p,     \
                                            memory_order order,             \
                                            memory_scope scope)             \
    {                                                                       \
        return as_half(                                                     \
            (ushort)(atomic_load_explicit(WORD(AS, p), order, scope) >>     \
                     SHIFT(p)));                                            \
    }                                                                       \
    half OVL __ferrocl_atomic_load_explicit(volatile AS atomic_half *p,     \
                                            memory_order order)             \
    {                                                                       \
        return __ferrocl_atomic_load_explicit(p, order,                     \
                                              memory_scope_device);         \
    }                                                                       \
    half OVL __ferrocl_atomic_load(volatile AS atomic_half *p)              \
    {                                                                       \
        return __ferrocl_atomic_load_explicit(p, memory_order_seq_cst,      \
                                              memory_scope_device);         \
    }                                                                       \
    void OVL __ferrocl_atomic_store_explicit(volatile AS atomic_half *p,    \
                                             half v, memory_order order,    \
                                             memory_scope scope)            \
    {                                                                       \
        rmw_exchange(p, v, order, scope);                                   \
    }                                                                       \
    void OVL __ferrocl_atomic_store_explicit(volatile AS atomic_half *p,    \
                                             half v, memory_order order)    \
    {                                                                       \
        rmw_exchange(p, v, order, memory_scope_device);                     \
    }                                                                       \
    void OVL __ferrocl_atomic_store(volatile AS atomic_half *p, half v)     \
    {                                                                       \
        rmw_exchange(p, v, memory_order_seq_cst, memory_scope_device);      \
    }

#define SPACE(AS)                                                           \
    RMW(AS, add)                                                            \
    RMW(AS, sub)                                                            \
    RMW(AS, min)                                                            \
    RMW(AS, max)                                                            \
    RMW(AS, exchange)                                                       \
    FETCH(AS, atomic_fetch_add, add)                                        \
    FETCH(AS, atomic_fetch_sub, sub)                                        \
    FETCH(AS, atomic_fetch_min, min)                                        \
    FETCH(AS, atomic_fetch_max, max)                                        \
    FETCH(AS, atomic_exchange, exchange)                                    \
    LOAD_STORE(AS)

SPACE(__global)
SPACE(__local)
SPACE()
