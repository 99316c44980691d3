//! Sub-groups (cl_khr_subgroups, OpenCL C 3.0 `__opencl_c_subgroups`).
//!
//! Every work-item reports its sub-group layout (get_sub_group_id,
//! get_sub_group_local_id, get_sub_group_size, get_max_sub_group_size,
//! get_num_sub_groups, get_enqueued_num_sub_groups); the host checks the
//! layout is consistent (ids, sizes, counts, the last sub-group the only
//! partial one) and agrees with clGetKernelSubGroupInfo, then checks every
//! collective (reduce/scan add/min/max, broadcast with constant and
//! run-time ids, all/any, sub_group_barrier) against a CPU reference
//! computed per sub-group from that layout. Launches: local sizes that are
//! and are not multiples of the sub-group size, 1D/2D/3D, global offsets
//! and non-uniform NDRanges (trailing partial work-groups).
//!
//! On a device without sub-groups the tests check the refusal instead
//! (no extension or feature reported, the builtins not declared,
//! CL_INVALID_OPERATION from clGetKernelSubGroupInfo).

use std::collections::BTreeMap;
use std::ptr;

use ferrocl_tests::sys::*;
use ferrocl_tests::{device_string, device_value, expect_error, Cl, Kernel, Pod};

const OPTIONS: &str = "-cl-std=CL3.0";

/// The optional sub-group extensions clang knows (`device_queries`).
const OPTIONAL_EXTENSIONS: [&str; 10] = [
    "cl_khr_subgroup_ballot",
    "cl_khr_subgroup_clustered_reduce",
    "cl_khr_subgroup_extended_types",
    "cl_khr_subgroup_non_uniform_arithmetic",
    "cl_khr_subgroup_non_uniform_vote",
    "cl_khr_subgroup_rotate",
    "cl_khr_subgroup_shuffle",
    "cl_khr_subgroup_shuffle_relative",
    "cl_intel_subgroups",
    "cl_intel_subgroups_short",
];

/// Those ferrocl reports wherever it has sub-groups (they need only what
/// sub-groups already require of Vulkan).
const ALWAYS_WITH_SUBGROUPS: [&str; 6] = [
    "cl_khr_subgroup_extended_types",
    "cl_khr_subgroup_non_uniform_vote",
    "cl_khr_subgroup_ballot",
    "cl_khr_subgroup_shuffle",
    "cl_khr_subgroup_rotate",
    "cl_khr_subgroup_non_uniform_arithmetic",
];

/// Values per work-item written by `layout`.
const LAYOUT_SLOT: usize = 8;

const LAYOUT_SOURCE: &str = r#"
kernel void layout(global uint* o) {
    size_t i = get_global_linear_id();
    global uint* s = o + i * 8;
    s[0] = get_sub_group_id();
    s[1] = get_sub_group_local_id();
    s[2] = get_sub_group_size();
    s[3] = get_max_sub_group_size();
    s[4] = get_num_sub_groups();
    s[5] = get_enqueued_num_sub_groups();
    s[6] = (uint)get_local_linear_id();
    s[7] = (uint)(get_group_id(0) + get_num_groups(0) * (get_group_id(1) + get_num_groups(1) * get_group_id(2)));
}

// sub_group_all / sub_group_any on in[i] > 0, and sub_group_barrier: each
// work-item stores its local linear id at its sub-group slot of a local
// array, waits on the sub-group barrier and reads its next neighbour's.
kernel void vote_barrier(global const int* in, global int* out, local uint* scratch) {
    size_t i = get_global_linear_id();
    int p = in[i] > 0;
    out[i * 4 + 0] = sub_group_all(p);
    out[i * 4 + 1] = sub_group_any(p);
    uint base = get_sub_group_id() * get_max_sub_group_size();
    uint lane = get_sub_group_local_id();
    uint n = get_sub_group_size();
    scratch[base + lane] = (uint)get_local_linear_id();
    sub_group_barrier(CLK_LOCAL_MEM_FENCE);
    out[i * 4 + 2] = (int)scratch[base + (lane + 1) % n];
    sub_group_barrier(CLK_LOCAL_MEM_FENCE, memory_scope_sub_group);
    scratch[base + lane] = (uint)get_local_linear_id() + 1000u;
    sub_group_barrier(CLK_LOCAL_MEM_FENCE, memory_scope_work_group);
    out[i * 4 + 3] = (int)scratch[base + (lane + n - 1) % n];
}
"#;

/// cl_khr_subgroup_non_uniform_vote and cl_khr_subgroup_extended_types'
/// vector broadcasts, in a divergent branch: only the lanes with
/// lane % 3 != 0 take part.
const NON_UNIFORM_VOTE_SOURCE: &str = r#"
kernel void non_uniform_vote(global const int* in, global int* out) {
    size_t i = get_global_linear_id();
    int x = in[i];
    uint lane = get_sub_group_local_id();
    global int* o = out + i * 6;
    if (lane % 3u != 0u) {
        o[0] = sub_group_elect();
        o[1] = sub_group_non_uniform_all(x > 0);
        o[2] = sub_group_non_uniform_any(x > 0);
        o[3] = sub_group_non_uniform_all_equal(x);
        o[4] = sub_group_non_uniform_all_equal((float)(x / 2));
    } else {
        o[0] = o[1] = o[2] = o[3] = o[4] = -5;
    }
    // Outside the branch: a char4 and a short2 broadcast from lane 0.
    char4 c = sub_group_broadcast((char4)((char)x, (char)(x + 1), (char)(x * 3), (char)-x), 0);
    short2 h = sub_group_broadcast((short2)((short)(x * 1000), (short)(x - 7)), 0);
    o[5] = (int)c.x + (int)c.y * 3 + (int)c.z * 5 + (int)c.w * 7 + (int)h.x + (int)h.y * 11;
}
"#;

/// Words per work-item written by `ballot`.
const BALLOT_SLOT: usize = 40;
/// cl_khr_subgroup_ballot: ballots of every lane, the ballot queries, the
/// five masks, and in a divergent branch (lane % 3 != 0)
/// non_uniform_broadcast, broadcast_first and a ballot of the active lanes.
const BALLOT_SOURCE: &str = r#"
kernel void ballot(global const int* in, global uint* out) {
    size_t i = get_global_linear_id();
    int x = in[i];
    uint lane = get_sub_group_local_id();
    global uint* o = out + i * 40;
    uint4 b = sub_group_ballot(x > 0);
    vstore4(b, 0, o);
    o[4] = sub_group_inverse_ballot(b);
    o[5] = sub_group_ballot_bit_extract(b, (lane + 1u) % get_sub_group_size());
    o[6] = sub_group_ballot_bit_count(b);
    o[7] = sub_group_ballot_inclusive_scan(b);
    o[8] = sub_group_ballot_exclusive_scan(b);
    o[9] = sub_group_ballot_find_lsb(b);
    o[10] = sub_group_ballot_find_msb(b);
    vstore4(get_sub_group_eq_mask(), 0, o + 11);
    vstore4(get_sub_group_ge_mask(), 0, o + 15);
    vstore4(get_sub_group_gt_mask(), 0, o + 19);
    vstore4(get_sub_group_le_mask(), 0, o + 23);
    vstore4(get_sub_group_lt_mask(), 0, o + 27);
    if (lane % 3u != 0u) {
        o[31] = sub_group_non_uniform_broadcast((uint)x, 1u);
        o[32] = sub_group_broadcast_first((uint)x + 5u);
        vstore4(sub_group_ballot(1), 0, o + 33);
    } else {
        o[31] = o[32] = o[33] = o[34] = o[35] = o[36] = 0xdeadu;
    }
    uint id = (get_sub_group_id() * 3u + 1u) % get_sub_group_size();
    o[37] = sub_group_non_uniform_broadcast((uint)x, id);
    o[38] = (uint)sub_group_non_uniform_broadcast((uchar2)((uchar)x, (uchar)(x >> 8)), 0u).y;
    o[39] = 7u;
}
"#;

/// cl_khr_subgroup_shuffle and cl_khr_subgroup_shuffle_relative, with
/// indices the host checks only where they name a lane of the sub-group.
const SHUFFLE_SOURCE: &str = r#"
kernel void shuffle(global const int* in, global int* out) {
    size_t i = get_global_linear_id();
    int x = in[i];
    uint lane = get_sub_group_local_id();
    uint n = get_sub_group_size();
    global int* o = out + i * 8;
    o[0] = sub_group_shuffle(x, (lane * 5u + 3u) % n);
    o[1] = sub_group_shuffle_xor(x, 1u);
    o[2] = sub_group_shuffle_xor(x, 6u);
    o[3] = sub_group_shuffle_up(x, 1u);
    o[4] = sub_group_shuffle_up(x, 3u);
    o[5] = sub_group_shuffle_down(x, 2u);
    o[6] = as_int(sub_group_shuffle(as_float(x), n - 1u - lane));
    o[7] = (int)sub_group_shuffle_down((ulong)x * 3ul, 1u);
}
"#;

/// cl_khr_subgroup_non_uniform_arithmetic in a divergent branch (lanes with
/// lane % 3 != 0) and cl_khr_subgroup_clustered_reduce outside it.
const ARITH_SLOT: usize = 20;
const ARITH_SOURCE: &str = r#"
kernel void arith(global const int* in, global int* out) {
    size_t i = get_global_linear_id();
    int x = in[i];
    uint lane = get_sub_group_local_id();
    global int* o = out + i * 20;
    if (lane % 3u != 0u) {
        o[0] = sub_group_non_uniform_reduce_add(x);
        o[1] = sub_group_non_uniform_reduce_mul(x);
        o[2] = sub_group_non_uniform_reduce_min(x);
        o[3] = sub_group_non_uniform_reduce_max(x);
        o[4] = sub_group_non_uniform_reduce_and(x);
        o[5] = sub_group_non_uniform_reduce_or(x);
        o[6] = sub_group_non_uniform_reduce_xor(x);
        o[7] = sub_group_non_uniform_reduce_logical_and(x);
        o[8] = sub_group_non_uniform_reduce_logical_or(x);
        o[9] = sub_group_non_uniform_reduce_logical_xor(x);
        o[10] = sub_group_non_uniform_scan_inclusive_add(x);
        o[11] = sub_group_non_uniform_scan_exclusive_mul(x);
        o[12] = sub_group_non_uniform_scan_exclusive_or(x);
        o[13] = sub_group_non_uniform_scan_inclusive_xor(x);
        o[14] = sub_group_non_uniform_scan_exclusive_min(x);
        o[15] = (int)sub_group_non_uniform_scan_inclusive_max((float)x);
    } else {
        for (int k = 0; k < 16; k++) o[k] = -55;
    }
#ifdef CLUSTERED
    o[16] = sub_group_clustered_reduce_add(x, 4);
    o[17] = sub_group_clustered_reduce_max(x, 2);
    o[18] = sub_group_clustered_reduce_logical_or(x, 8);
    o[19] = sub_group_clustered_reduce_mul(x, 2);
#endif
}
"#;

/// Words per work-item written by `arms`.
const ARMS_SLOT: usize = 29;
/// The same non-uniform operation in both arms of a branch on the lower
/// and upper half of the sub-group: each half has its own active set (an
/// optimizer that makes one call after the branch, as LLVM's SimplifyCFG
/// would, gives the upper half the lower half's result). With
/// cl_khr_subgroup_clustered_reduce (`-DCLUSTERED`), clusters of 16, 32
/// and 64 (larger than lavapipe's 8-wide and NVIDIA's 32-wide sub-groups:
/// a cluster as large as the sub-group is all of it). Then
/// cl_khr_subgroup_extended_types' and cl_khr_subgroup_ballot's broadcasts
/// of 8- and 16-wide vectors (split into 4-wide parts by the compiler).
const ARMS_SOURCE: &str = r#"
kernel void arms(global const int* in, global int* out) {
    size_t i = get_global_linear_id();
    int x = in[i];
    global int* o = out + i * 29;
    uint lane = get_sub_group_local_id();
    uint half_size = get_sub_group_size() / 2u;
    if (lane < half_size) {
        o[0] = sub_group_broadcast_first(x);
    } else {
        o[0] = sub_group_broadcast_first(x);
    }
    if (lane < half_size) {
        o[1] = sub_group_non_uniform_reduce_add(x);
    } else {
        o[1] = sub_group_non_uniform_reduce_add(x);
    }
#ifdef CLUSTERED
    o[2] = sub_group_clustered_reduce_add(x, 16);
    o[3] = sub_group_clustered_reduce_add(x, 32);
    o[4] = sub_group_clustered_reduce_max(x, 64);
#endif
    int8 v = (int8)(x, x + 1, x * 2, -x, x ^ 5, x * 3, x - 9, 77);
    vstore8(sub_group_broadcast(v, 0), 0, o + 5);
    short16 w = (short16)((short8)((short)x, (short)(x + 1), (short)(x * 2), (short)-x,
                                   (short)(x ^ 5), (short)(x * 3), (short)(x - 9), 77),
                          (short8)((short)(x * 7), (short)(x + 100), (short)(x - 1000), 1,
                                   (short)(x & 3), (short)(x | 16), (short)(x * x), -2));
    short16 r = sub_group_non_uniform_broadcast(w, get_sub_group_size() - 1u);
    vstore8(convert_int8(r.lo), 0, o + 13);
    vstore8(convert_int8(r.hi), 0, o + 21);
}
"#;

/// Results per work-item written by `collectives`.
const OPS: usize = 11;

/// The collectives of one type `T` (a -D define).
const COLLECTIVES_SOURCE: &str = r#"
kernel void collectives(global const T* in, global T* out) {
    size_t i = get_global_linear_id();
    T x = in[i];
    global T* o = out + i * 11;
    o[0] = sub_group_reduce_add(x);
    o[1] = sub_group_reduce_min(x);
    o[2] = sub_group_reduce_max(x);
    o[3] = sub_group_scan_exclusive_add(x);
    o[4] = sub_group_scan_exclusive_min(x);
    o[5] = sub_group_scan_exclusive_max(x);
    o[6] = sub_group_scan_inclusive_add(x);
    o[7] = sub_group_scan_inclusive_min(x);
    o[8] = sub_group_scan_inclusive_max(x);
    o[9] = sub_group_broadcast(x, 0);
    // A run-time id, the same for the whole sub-group.
    uint id = (get_sub_group_id() * 3u + 1u) % get_sub_group_size();
    o[10] = sub_group_broadcast(x, id);
}
"#;

/// One work-item's reported layout.
#[derive(Clone, Copy, Debug)]
struct Item {
    sg_id: u32,
    lane: u32,
    sg_size: u32,
    max_size: u32,
    num_sgs: u32,
    enq_num_sgs: u32,
    local_linear: u32,
    group: u32,
}

/// An NDRange.
#[derive(Clone, Copy, Debug)]
struct Launch<'a> {
    global: &'a [usize],
    local: &'a [usize],
    offset: Option<&'a [usize]>,
}

const LAUNCHES: [Launch<'static>; 9] = [
    // Local sizes multiples of 8 and 32 (lavapipe's and NVIDIA's sizes).
    Launch {
        global: &[128],
        local: &[64],
        offset: None,
    },
    // A multiple of 8, not of 32.
    Launch {
        global: &[96],
        local: &[48],
        offset: Some(&[5]),
    },
    // Not a multiple of 8: the last sub-group is partial.
    Launch {
        global: &[60],
        local: &[20],
        offset: None,
    },
    // Smaller than any sub-group.
    Launch {
        global: &[15],
        local: &[5],
        offset: None,
    },
    // 2D and 3D.
    Launch {
        global: &[12, 10],
        local: &[6, 5],
        offset: Some(&[1, 2]),
    },
    Launch {
        global: &[8, 4, 6],
        local: &[4, 2, 3],
        offset: None,
    },
    // Non-uniform: trailing work-groups of 28, and of 3×4, 5×3, 3×3.
    Launch {
        global: &[100],
        local: &[36],
        offset: None,
    },
    Launch {
        global: &[13, 7],
        local: &[5, 4],
        offset: Some(&[3, 0]),
    },
    // A large work-group.
    Launch {
        global: &[512],
        local: &[256],
        offset: None,
    },
];

/// The device's sub-group support: CL_DEVICE_MAX_NUM_SUB_GROUPS > 0.
fn has_subgroups(cl: &Cl) -> bool {
    let n: cl_uint = device_value(cl.device(), CL_DEVICE_MAX_NUM_SUB_GROUPS);
    n > 0
}

fn build(cl: &Cl, source: &str, options: &str, name: &str) -> Kernel {
    cl.context
        .try_build(source, options)
        .unwrap_or_else(|e| panic!("{e}"))
        .kernel(name)
}

fn items_of(launch: &Launch) -> usize {
    launch.global.iter().product()
}

/// Runs `layout` over `launch` and returns every work-item's layout, by
/// global linear id.
fn layout(cl: &Cl, launch: &Launch) -> Vec<Item> {
    let kernel = build(cl, LAYOUT_SOURCE, OPTIONS, "layout");
    let n = items_of(launch);
    let out = cl.buffer_from(&vec![u32::MAX; n * LAYOUT_SLOT]);
    kernel.arg(0, &out);
    cl.queue
        .run_at(&kernel, launch.offset, launch.global, Some(launch.local));
    let v = cl.queue.read(&out);
    v.chunks(LAYOUT_SLOT)
        .map(|s| Item {
            sg_id: s[0],
            lane: s[1],
            sg_size: s[2],
            max_size: s[3],
            num_sgs: s[4],
            enq_num_sgs: s[5],
            local_linear: s[6],
            group: s[7],
        })
        .collect()
}

/// clGetKernelSubGroupInfo with a size_t array input and a size_t output.
fn sub_group_info(kernel: &Kernel, param: cl_kernel_sub_group_info, input: &[usize]) -> usize {
    let mut out = 0usize;
    let mut ret = 0usize;
    // SAFETY: `input` is readable for its size; one size_t of output.
    let status = unsafe {
        ferrocl_tests::info::kernel_sub_group_info_fn(ptr::null_mut())(
            kernel.raw(),
            ptr::null_mut(),
            param,
            size_of_val(input),
            input.as_ptr().cast(),
            size_of::<usize>(),
            (&mut out as *mut usize).cast(),
            &mut ret,
        )
    };
    assert_eq!(status, CL_SUCCESS, "clGetKernelSubGroupInfo({param:#x})");
    assert_eq!(ret, size_of::<usize>());
    out
}

/// The sub-groups of a launch: (work-group, sub-group id) → global linear
/// ids by lane. Checks the layout on the way.
fn check_layout(
    items: &[Item],
    launch: &Launch,
    device_size: usize,
) -> BTreeMap<(u32, u32), Vec<usize>> {
    let what = format!("{launch:?}");
    let enqueued: usize = launch.local.iter().product();
    let max = device_size.min(enqueued);
    let mut groups: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (i, it) in items.iter().enumerate() {
        groups.entry(it.group).or_default().push(i);
        assert_eq!(it.max_size as usize, max, "get_max_sub_group_size, {what}");
        assert_eq!(
            it.enq_num_sgs as usize,
            enqueued.div_ceil(max),
            "get_enqueued_num_sub_groups, {what}"
        );
    }
    let mut sgs: BTreeMap<(u32, u32), Vec<usize>> = BTreeMap::new();
    for members in groups.values() {
        let size = members.len();
        let num = size.div_ceil(max);
        let mut lids: Vec<u32> = members.iter().map(|&i| items[i].local_linear).collect();
        lids.sort_unstable();
        assert_eq!(
            lids,
            (0..size as u32).collect::<Vec<_>>(),
            "local linear ids of a work-group, {what}"
        );
        let mut by_sg: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for &i in members {
            let it = items[i];
            assert_eq!(it.num_sgs as usize, num, "get_num_sub_groups, {what}");
            assert!((it.sg_id as usize) < num, "get_sub_group_id {it:?}, {what}");
            by_sg.entry(it.sg_id).or_default().push(i);
        }
        assert_eq!(
            by_sg.len(),
            num,
            "sub-groups present in a work-group, {what}"
        );
        for (&sg, lanes) in &by_sg {
            let n = lanes.len();
            // Every sub-group but the last is full.
            if (sg as usize) + 1 < num {
                assert_eq!(n, max, "size of sub-group {sg} (not the last), {what}");
            } else {
                assert_eq!(
                    n,
                    size - (num - 1) * max,
                    "size of the last sub-group, {what}"
                );
            }
            let mut ordered = vec![usize::MAX; n];
            for &i in lanes {
                let it = items[i];
                assert_eq!(it.sg_size as usize, n, "get_sub_group_size {it:?}, {what}");
                assert!(
                    (it.lane as usize) < n,
                    "get_sub_group_local_id {it:?}, {what}"
                );
                assert_eq!(
                    ordered[it.lane as usize],
                    usize::MAX,
                    "lane taken twice, {what}"
                );
                ordered[it.lane as usize] = i;
            }
            sgs.insert((items[lanes[0]].group, sg), ordered);
        }
    }
    sgs
}

/// A type the collectives are checked for.
trait Elem: Pod + PartialEq + std::fmt::Debug {
    const NAME: &'static str;
    fn zero() -> Self;
    fn add(a: Self, b: Self) -> Self;
    fn min(a: Self, b: Self) -> Self;
    fn max(a: Self, b: Self) -> Self;
    /// Identities of min and max.
    fn min_identity() -> Self;
    fn max_identity() -> Self;
    /// A test value from a pseudo-random word.
    fn from_bits(x: u64) -> Self;
}

macro_rules! int_elem {
    ($t:ty, $name:literal) => {
        impl Elem for $t {
            const NAME: &'static str = $name;
            fn zero() -> Self {
                0
            }
            fn add(a: Self, b: Self) -> Self {
                a.wrapping_add(b)
            }
            fn min(a: Self, b: Self) -> Self {
                Ord::min(a, b)
            }
            fn max(a: Self, b: Self) -> Self {
                Ord::max(a, b)
            }
            fn min_identity() -> Self {
                <$t>::MAX
            }
            fn max_identity() -> Self {
                <$t>::MIN
            }
            fn from_bits(x: u64) -> Self {
                x as $t
            }
        }
    };
}
int_elem!(i8, "char");
int_elem!(u8, "uchar");
int_elem!(i16, "short");
int_elem!(u16, "ushort");
int_elem!(i32, "int");
int_elem!(u32, "uint");
int_elem!(i64, "long");
int_elem!(u64, "ulong");

macro_rules! float_elem {
    ($t:ty, $name:literal) => {
        impl Elem for $t {
            const NAME: &'static str = $name;
            fn zero() -> Self {
                0.0
            }
            fn add(a: Self, b: Self) -> Self {
                a + b
            }
            fn min(a: Self, b: Self) -> Self {
                a.min(b)
            }
            fn max(a: Self, b: Self) -> Self {
                a.max(b)
            }
            fn min_identity() -> Self {
                <$t>::INFINITY
            }
            fn max_identity() -> Self {
                <$t>::NEG_INFINITY
            }
            // Small integers and halves: every sum is exact, whatever the
            // order of the additions.
            fn from_bits(x: u64) -> Self {
                ((x % 257) as i64 - 128) as $t * 0.5
            }
        }
    };
}
float_elem!(f32, "float");
float_elem!(f64, "double");

fn pseudo_random(n: usize, seed: u64) -> Vec<u64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        })
        .collect()
}

/// Runs `collectives` for `T` over every launch and checks each result.
fn check_collectives<T: Elem>() {
    let cl = Cl::new();
    if !has_subgroups(&cl) {
        return;
    }
    let options = format!("{OPTIONS} -DT={}", T::NAME);
    if T::NAME == "double" {
        let ext = device_string(cl.device(), CL_DEVICE_EXTENSIONS);
        if !ext.split_whitespace().any(|e| e == "cl_khr_fp64") {
            return;
        }
    }
    let kernel = build(&cl, COLLECTIVES_SOURCE, &options, "collectives");
    let device_size = sub_group_info(&kernel, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, &[1024]);
    for (k, launch) in LAUNCHES.iter().enumerate() {
        let items = layout(&cl, launch);
        let sgs = check_layout(&items, launch, device_size);
        let n = items_of(launch);
        let input: Vec<T> = pseudo_random(n, 0x9E37_79B9 + k as u64)
            .into_iter()
            .map(T::from_bits)
            .collect();
        let inp = cl.buffer_from(&input);
        let out = cl.buffer_from(&vec![T::zero(); n * OPS]);
        kernel.arg(0, &inp).arg(1, &out);
        cl.queue
            .run_at(&kernel, launch.offset, launch.global, Some(launch.local));
        let got = cl.queue.read(&out);
        for ((group, sg), lanes) in &sgs {
            let xs: Vec<T> = lanes.iter().map(|&i| input[i]).collect();
            let fold = |f: fn(T, T) -> T, init: T, upto: usize| {
                xs[..upto].iter().fold(init, |a, &b| f(a, b))
            };
            let size = xs.len();
            let dyn_id = ((*sg * 3 + 1) as usize) % size;
            for (lane, &i) in lanes.iter().enumerate() {
                let want = [
                    fold(T::add, T::zero(), size),
                    fold(T::min, T::min_identity(), size),
                    fold(T::max, T::max_identity(), size),
                    fold(T::add, T::zero(), lane),
                    fold(T::min, T::min_identity(), lane),
                    fold(T::max, T::max_identity(), lane),
                    fold(T::add, T::zero(), lane + 1),
                    fold(T::min, T::min_identity(), lane + 1),
                    fold(T::max, T::max_identity(), lane + 1),
                    xs[0],
                    xs[dyn_id],
                ];
                let names = [
                    "reduce_add",
                    "reduce_min",
                    "reduce_max",
                    "scan_exclusive_add",
                    "scan_exclusive_min",
                    "scan_exclusive_max",
                    "scan_inclusive_add",
                    "scan_inclusive_min",
                    "scan_inclusive_max",
                    "broadcast(x, 0)",
                    "broadcast(x, id)",
                ];
                for (q, w) in want.iter().enumerate() {
                    assert_eq!(
                        got[i * OPS + q],
                        *w,
                        "sub_group_{} of {} (work-group {group}, sub-group {sg}, lane {lane}), {launch:?}",
                        names[q],
                        T::NAME
                    );
                }
            }
        }
    }
}

// cl_khr_subgroup_extended_types: the 8- and 16-bit integers (the kernel
// does not build without the extension).
#[test]
fn collectives_char() {
    check_collectives::<i8>();
}

#[test]
fn collectives_uchar() {
    check_collectives::<u8>();
}

#[test]
fn collectives_short() {
    check_collectives::<i16>();
}

#[test]
fn collectives_ushort() {
    check_collectives::<u16>();
}

#[test]
fn collectives_int() {
    check_collectives::<i32>();
}

#[test]
fn collectives_uint() {
    check_collectives::<u32>();
}

#[test]
fn collectives_long() {
    check_collectives::<i64>();
}

#[test]
fn collectives_ulong() {
    check_collectives::<u64>();
}

#[test]
fn collectives_float() {
    check_collectives::<f32>();
}

#[test]
fn collectives_double() {
    check_collectives::<f64>();
}

#[test]
fn layout_matches_kernel_sub_group_info() {
    let cl = Cl::new();
    if !has_subgroups(&cl) {
        return;
    }
    let kernel = build(&cl, LAYOUT_SOURCE, OPTIONS, "layout");
    let device_size = sub_group_info(&kernel, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, &[1024]);
    assert!(
        device_size.is_power_of_two(),
        "sub-group size {device_size}"
    );
    for launch in &LAUNCHES {
        let items = layout(&cl, launch);
        let sgs = check_layout(&items, launch, device_size);
        // What the kernel saw is what clGetKernelSubGroupInfo predicts for
        // the enqueued local size.
        assert_eq!(
            items[0].max_size as usize,
            sub_group_info(
                &kernel,
                CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                launch.local
            ),
            "{launch:?}"
        );
        assert_eq!(
            items[0].enq_num_sgs as usize,
            sub_group_info(&kernel, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, launch.local),
            "{launch:?}"
        );
        assert!(!sgs.is_empty());
    }
    // The largest work-group the kernel can have.
    let mut wg = 0usize;
    // SAFETY: one size_t out.
    let status = unsafe {
        clGetKernelWorkGroupInfo(
            kernel.raw(),
            cl.device(),
            CL_KERNEL_WORK_GROUP_SIZE,
            size_of::<usize>(),
            (&mut wg as *mut usize).cast(),
            ptr::null_mut(),
        )
    };
    assert_eq!(status, CL_SUCCESS);
    let items_max: [usize; 3] = {
        let v: Vec<usize> = ferrocl_tests::info::query(ferrocl_tests::info::device_info(
            cl.device(),
            CL_DEVICE_MAX_WORK_ITEM_SIZES,
        ))
        .expect("CL_DEVICE_MAX_WORK_ITEM_SIZES");
        [v[0], v[1], v[2]]
    };
    let local = wg.min(items_max[0]);
    let global = [local * 2];
    let launch = Launch {
        global: &global,
        local: &[local],
        offset: None,
    };
    let items = layout(&cl, &launch);
    check_layout(&items, &launch, device_size);
}

#[test]
fn vote_and_barrier() {
    let cl = Cl::new();
    if !has_subgroups(&cl) {
        return;
    }
    let kernel = build(&cl, LAYOUT_SOURCE, OPTIONS, "vote_barrier");
    let device_size = sub_group_info(&kernel, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, &[1024]);
    for (k, launch) in LAUNCHES.iter().enumerate() {
        let items = layout(&cl, launch);
        let sgs = check_layout(&items, launch, device_size);
        let n = items_of(launch);
        // Per sub-group: all positive, none, or mixed (by its index).
        let mut input = vec![0i32; n];
        for (s, lanes) in sgs.values().enumerate() {
            for (lane, &i) in lanes.iter().enumerate() {
                input[i] = match (s + k) % 3 {
                    0 => 1 + lane as i32,
                    1 => -(lane as i32),
                    _ => {
                        if lane == lanes.len() / 2 {
                            1
                        } else {
                            0
                        }
                    }
                };
            }
        }
        let inp = cl.buffer_from(&input);
        let out = cl.buffer_from(&vec![-7i32; n * 4]);
        let local_items: usize = launch.local.iter().product();
        kernel.arg(0, &inp).arg(1, &out).arg(
            2,
            &ferrocl_tests::Local(local_items.next_multiple_of(device_size) * 4),
        );
        cl.queue
            .run_at(&kernel, launch.offset, launch.global, Some(launch.local));
        let got = cl.queue.read(&out);
        for ((group, sg), lanes) in &sgs {
            let all = lanes.iter().all(|&i| input[i] > 0);
            let any = lanes.iter().any(|&i| input[i] > 0);
            let size = lanes.len();
            for (lane, &i) in lanes.iter().enumerate() {
                let what = format!("work-group {group}, sub-group {sg}, lane {lane}, {launch:?}");
                assert_eq!(got[i * 4] != 0, all, "sub_group_all, {what}");
                assert_eq!(got[i * 4 + 1] != 0, any, "sub_group_any, {what}");
                let next = lanes[(lane + 1) % size];
                assert_eq!(
                    got[i * 4 + 2] as u32,
                    items[next].local_linear,
                    "read after sub_group_barrier, {what}"
                );
                let prev = lanes[(lane + size - 1) % size];
                assert_eq!(
                    got[i * 4 + 3] as u32,
                    items[prev].local_linear + 1000,
                    "read after sub_group_barrier(flags, scope), {what}"
                );
            }
        }
    }
}

/// The vote input of `vote_and_barrier`: per sub-group all positive, none,
/// or one positive lane (by the sub-group's index `s` and the launch `k`).
fn vote_input(sgs: &BTreeMap<(u32, u32), Vec<usize>>, n: usize, k: usize) -> Vec<i32> {
    let mut input = vec![0i32; n];
    for (s, lanes) in sgs.values().enumerate() {
        for (lane, &i) in lanes.iter().enumerate() {
            input[i] = match (s + k) % 4 {
                0 => 1 + lane as i32,
                1 => -(lane as i32),
                2 => 9,
                _ => (lane == lanes.len() / 2) as i32,
            };
        }
    }
    input
}

#[test]
fn non_uniform_vote() {
    let cl = Cl::new();
    if !has_subgroups(&cl) {
        return;
    }
    let kernel = build(&cl, NON_UNIFORM_VOTE_SOURCE, OPTIONS, "non_uniform_vote");
    let device_size = sub_group_info(&kernel, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, &[1024]);
    for (k, launch) in LAUNCHES.iter().enumerate() {
        let items = layout(&cl, launch);
        let sgs = check_layout(&items, launch, device_size);
        let n = items_of(launch);
        let input = vote_input(&sgs, n, k);
        let inp = cl.buffer_from(&input);
        let out = cl.buffer_from(&vec![-7i32; n * 6]);
        kernel.arg(0, &inp).arg(1, &out);
        cl.queue
            .run_at(&kernel, launch.offset, launch.global, Some(launch.local));
        let got = cl.queue.read(&out);
        for ((group, sg), lanes) in &sgs {
            let active: Vec<usize> = (0..lanes.len()).filter(|l| l % 3 != 0).collect();
            let xs: Vec<i32> = active.iter().map(|&l| input[lanes[l]]).collect();
            let all = xs.iter().all(|&x| x > 0);
            let any = xs.iter().any(|&x| x > 0);
            let eq = xs.windows(2).all(|w| w[0] == w[1]);
            let eq_half = xs.windows(2).all(|w| w[0] / 2 == w[1] / 2);
            let x0 = input[lanes[0]];
            let c = [x0 as i8, (x0 + 1) as i8, (x0 * 3) as i8, (-x0) as i8];
            let h = [(x0 * 1000) as i16, (x0 - 7) as i16];
            let bcast = c[0] as i32
                + c[1] as i32 * 3
                + c[2] as i32 * 5
                + c[3] as i32 * 7
                + h[0] as i32
                + h[1] as i32 * 11;
            for (lane, &i) in lanes.iter().enumerate() {
                let what = format!("work-group {group}, sub-group {sg}, lane {lane}, {launch:?}");
                let o = &got[i * 6..i * 6 + 6];
                assert_eq!(o[5], bcast, "sub_group_broadcast of char4/short2, {what}");
                if lane % 3 == 0 {
                    assert_eq!(&o[..5], &[-5; 5], "inactive lane, {what}");
                    continue;
                }
                assert_eq!(o[0] != 0, lane == 1, "sub_group_elect, {what}");
                assert_eq!(o[1] != 0, all, "sub_group_non_uniform_all, {what}");
                assert_eq!(o[2] != 0, any, "sub_group_non_uniform_any, {what}");
                assert_eq!(
                    o[3] != 0,
                    eq,
                    "sub_group_non_uniform_all_equal(int), {what}"
                );
                assert_eq!(
                    o[4] != 0,
                    eq_half,
                    "sub_group_non_uniform_all_equal(float), {what}"
                );
            }
        }
    }
}

#[test]
fn shuffle() {
    let cl = Cl::new();
    if !has_subgroups(&cl) {
        return;
    }
    let ext = device_string(cl.device(), CL_DEVICE_EXTENSIONS);
    let has = |e: &str| ext.split_whitespace().any(|x| x == e);
    if !has("cl_khr_subgroup_shuffle") || !has("cl_khr_subgroup_shuffle_relative") {
        return;
    }
    let kernel = build(&cl, SHUFFLE_SOURCE, OPTIONS, "shuffle");
    let device_size = sub_group_info(&kernel, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, &[1024]);
    for (k, launch) in LAUNCHES.iter().enumerate() {
        let items = layout(&cl, launch);
        let sgs = check_layout(&items, launch, device_size);
        let n = items_of(launch);
        let input: Vec<i32> = pseudo_random(n, 0x51_7CC1 + k as u64)
            .into_iter()
            .map(|x| (x >> 3) as i32)
            .collect();
        let inp = cl.buffer_from(&input);
        let out = cl.buffer_from(&vec![0i32; n * 8]);
        kernel.arg(0, &inp).arg(1, &out);
        cl.queue
            .run_at(&kernel, launch.offset, launch.global, Some(launch.local));
        let got = cl.queue.read(&out);
        for ((group, sg), lanes) in &sgs {
            let size = lanes.len();
            let x = |l: usize| input[lanes[l]];
            for (lane, &i) in lanes.iter().enumerate() {
                let what = format!("work-group {group}, sub-group {sg}, lane {lane}, {launch:?}");
                let o = &got[i * 8..i * 8 + 8];
                let checks: [(&str, Option<i32>); 8] = [
                    ("shuffle", Some(x((lane * 5 + 3) % size))),
                    ("shuffle_xor(1)", (lane ^ 1 < size).then(|| x(lane ^ 1))),
                    ("shuffle_xor(6)", (lane ^ 6 < size).then(|| x(lane ^ 6))),
                    (
                        "shuffle_up(1)",
                        (lane >= 1).then(|| x(lane.wrapping_sub(1))),
                    ),
                    (
                        "shuffle_up(3)",
                        (lane >= 3).then(|| x(lane.wrapping_sub(3))),
                    ),
                    ("shuffle_down(2)", (lane + 2 < size).then(|| x(lane + 2))),
                    ("shuffle(float)", Some(x(size - 1 - lane))),
                    (
                        "shuffle_down(ulong)",
                        (lane + 1 < size)
                            .then(|| (x(lane + 1) as i64 as u64).wrapping_mul(3) as i32),
                    ),
                ];
                for (q, (name, want)) in checks.iter().enumerate() {
                    if let Some(w) = want {
                        assert_eq!(o[q], *w, "sub_group_{name}, {what}");
                    }
                }
            }
        }
    }
}

/// cl_khr_subgroup_rotate: per work-item, `ROTATE_DELTAS.len()` rotations
/// then `ROTATE_CLUSTERS.len()` clustered ones. The deltas are uniform per
/// sub-group: constants, the maximum sub-group size plus a constant, a
/// kernel argument.
const ROTATE_SOURCE: &str = r#"
kernel void rotate(global const T* in, global T* out, int arg) {
    size_t i = get_global_linear_id();
    T x = in[i];
    global T* o = out + i * 15;
    int n = (int)get_max_sub_group_size();
    o[0] = sub_group_rotate(x, 0);
    o[1] = sub_group_rotate(x, 1);
    o[2] = sub_group_rotate(x, 5);
    o[3] = sub_group_rotate(x, n - 1);
    o[4] = sub_group_rotate(x, n + 3);
    o[5] = sub_group_rotate(x, -1);
    o[6] = sub_group_rotate(x, -3);
    o[7] = sub_group_rotate(x, arg);
    o[8] = sub_group_clustered_rotate(x, 1, 1);
    o[9] = sub_group_clustered_rotate(x, 1, 2);
    o[10] = sub_group_clustered_rotate(x, -1, 2);
    o[11] = sub_group_clustered_rotate(x, 3, 4);
    o[12] = sub_group_clustered_rotate(x, -1, 4);
    o[13] = sub_group_clustered_rotate(x, 5, 8);
    o[14] = sub_group_clustered_rotate(x, arg, 8);
}
"#;

/// (delta, whether the maximum sub-group size is added to it) of
/// `ROTATE_SOURCE`'s rotations; `None`: the kernel argument.
const ROTATE_DELTAS: [(Option<i32>, bool); 8] = [
    (Some(0), false),
    (Some(1), false),
    (Some(5), false),
    (Some(-1), true),
    (Some(3), true),
    (Some(-1), false),
    (Some(-3), false),
    (None, false),
];
/// (delta, cluster size) of its clustered rotations.
const ROTATE_CLUSTERS: [(Option<i32>, u32); 7] = [
    (Some(1), 1),
    (Some(1), 2),
    (Some(-1), 2),
    (Some(3), 4),
    (Some(-1), 4),
    (Some(5), 8),
    (None, 8),
];

/// Runs `rotate` for `T` over every launch against the extension's
/// definition: the value of the work-item whose sub-group local id is
/// `(id + delta) % get_max_sub_group_size()` in `uint` arithmetic
/// (clustered: `id`'s cluster base plus `(id + delta) % clustersize`);
/// where that id is past the end of a partial sub-group the result is
/// undefined and not checked, and so are cluster sizes larger than the
/// maximum sub-group size.
fn check_rotate<T: Elem>() {
    let cl = Cl::new();
    if !has_subgroups(&cl) {
        return;
    }
    let ext = device_string(cl.device(), CL_DEVICE_EXTENSIONS);
    // Reported wherever sub-groups are (`device_queries`).
    assert!(
        ext.split_whitespace()
            .any(|e| e == "cl_khr_subgroup_rotate"),
        "{ext}"
    );
    let options = format!("{OPTIONS} -DT={}", T::NAME);
    let kernel = build(&cl, ROTATE_SOURCE, &options, "rotate");
    let device_size = sub_group_info(&kernel, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, &[1024]);
    const R: usize = 15;
    let mut checked = 0usize;
    for (k, launch) in LAUNCHES.iter().enumerate() {
        let items = layout(&cl, launch);
        let sgs = check_layout(&items, launch, device_size);
        let n = items_of(launch);
        let input: Vec<T> = pseudo_random(n, 0x0707_1234 + k as u64)
            .into_iter()
            .map(T::from_bits)
            .collect();
        // Large, small, negative.
        let arg: i32 = [1000, 7, -5, i32::MIN + 3][k % 4];
        let inp = cl.buffer_from(&input);
        let out = cl.buffer_from(&vec![T::zero(); n * R]);
        kernel.arg(0, &inp).arg(1, &out).arg(2, &arg);
        cl.queue
            .run_at(&kernel, launch.offset, launch.global, Some(launch.local));
        let got = cl.queue.read(&out);
        for ((group, sg), lanes) in &sgs {
            let size = lanes.len() as u32;
            let max = items[lanes[0]].max_size;
            for (lane, &i) in lanes.iter().enumerate() {
                let lane = lane as u32;
                let what = format!("work-group {group}, sub-group {sg}, lane {lane}, {launch:?}");
                let mut check = |q: usize, src: u32, name: String| {
                    if src < size {
                        assert_eq!(
                            got[i * R + q],
                            input[lanes[src as usize]],
                            "{name} of {} (source lane {src}), {what}",
                            T::NAME
                        );
                        checked += 1;
                    }
                };
                for (q, &(delta, plus_max)) in ROTATE_DELTAS.iter().enumerate() {
                    let d = delta.unwrap_or(arg);
                    let d = if plus_max {
                        (max as i32).wrapping_add(d)
                    } else {
                        d
                    };
                    let src = lane.wrapping_add(d as u32) % max;
                    check(q, src, format!("sub_group_rotate(x, {d})"));
                }
                for (q, &(delta, c)) in ROTATE_CLUSTERS.iter().enumerate() {
                    if c > max {
                        continue;
                    }
                    let d = delta.unwrap_or(arg);
                    let src = (lane - lane % c) + lane.wrapping_add(d as u32) % c;
                    check(
                        ROTATE_DELTAS.len() + q,
                        src,
                        format!("sub_group_clustered_rotate(x, {d}, {c})"),
                    );
                }
            }
        }
    }
    assert!(checked > 0);
}

#[test]
fn rotate_int() {
    check_rotate::<i32>();
}

#[test]
fn rotate_uint() {
    check_rotate::<u32>();
}

#[test]
fn rotate_long() {
    check_rotate::<i64>();
}

#[test]
fn rotate_float() {
    check_rotate::<f32>();
}

#[test]
fn rotate_char() {
    check_rotate::<i8>();
}

#[test]
fn rotate_short() {
    check_rotate::<i16>();
}

#[test]
fn rotate_ushort_and_double() {
    check_rotate::<u16>();
    let cl = Cl::new();
    let ext = device_string(cl.device(), CL_DEVICE_EXTENSIONS);
    if ext.split_whitespace().any(|e| e == "cl_khr_fp64") {
        check_rotate::<f64>();
    }
}

#[test]
fn non_uniform_arithmetic_and_clustered() {
    let cl = Cl::new();
    if !has_subgroups(&cl) {
        return;
    }
    let ext = device_string(cl.device(), CL_DEVICE_EXTENSIONS);
    let has = |e: &str| ext.split_whitespace().any(|x| x == e);
    if !has("cl_khr_subgroup_non_uniform_arithmetic") {
        return;
    }
    // lavapipe has no clustered operations.
    let clustered = has("cl_khr_subgroup_clustered_reduce");
    let options = if clustered {
        format!("{OPTIONS} -DCLUSTERED")
    } else {
        OPTIONS.to_string()
    };
    let kernel = build(&cl, ARITH_SOURCE, &options, "arith");
    let device_size = sub_group_info(&kernel, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, &[1024]);
    for (k, launch) in LAUNCHES.iter().enumerate() {
        let items = layout(&cl, launch);
        let sgs = check_layout(&items, launch, device_size);
        let n = items_of(launch);
        // -3 … 3, zeros included (logical operations), or all ones.
        let input: Vec<i32> = pseudo_random(n, 0xA417 + k as u64)
            .into_iter()
            .map(|x| if k % 4 == 3 { 1 } else { (x % 7) as i32 - 3 })
            .collect();
        let inp = cl.buffer_from(&input);
        let out = cl.buffer_from(&vec![0i32; n * ARITH_SLOT]);
        kernel.arg(0, &inp).arg(1, &out);
        cl.queue
            .run_at(&kernel, launch.offset, launch.global, Some(launch.local));
        let got = cl.queue.read(&out);
        for ((group, sg), lanes) in &sgs {
            let size = lanes.len();
            let x = |l: usize| input[lanes[l]];
            // Active lanes below `upto`, in order.
            let act =
                |upto: usize| -> Vec<i32> { (0..upto).filter(|l| l % 3 != 0).map(x).collect() };
            let all = act(size);
            let b = |v: bool| v as i32;
            let cluster = |c: usize, lane: usize| -> Vec<i32> {
                let s = lane / c * c;
                (s..(s + c).min(size)).map(x).collect()
            };
            for (lane, &i) in lanes.iter().enumerate() {
                let what = format!("work-group {group}, sub-group {sg}, lane {lane}, {launch:?}");
                let o = &got[i * ARITH_SLOT..(i + 1) * ARITH_SLOT];
                let c4 = cluster(4, lane);
                let c2 = cluster(2, lane);
                let c8 = cluster(8, lane);
                if clustered {
                    assert_eq!(
                        o[16],
                        c4.iter().fold(0i32, |a, &v| a.wrapping_add(v)),
                        "clustered_reduce_add(4), {what}"
                    );
                    assert_eq!(
                        o[17],
                        *c2.iter().max().unwrap(),
                        "clustered_reduce_max(2), {what}"
                    );
                    assert_eq!(
                        o[18] != 0,
                        c8.iter().any(|&v| v != 0),
                        "clustered_reduce_logical_or(8), {what}"
                    );
                    assert_eq!(
                        o[19],
                        c2.iter().fold(1i32, |a, &v| a.wrapping_mul(v)),
                        "clustered_reduce_mul(2), {what}"
                    );
                } else {
                    assert_eq!(o[16..20], [0; 4], "no clustered calls, {what}");
                }
                if lane % 3 == 0 {
                    assert_eq!(o[..16], [-55; 16], "inactive lane, {what}");
                    continue;
                }
                let inc = act(lane + 1);
                let exc = act(lane);
                let want: [(&str, i32); 16] = [
                    ("reduce_add", all.iter().fold(0, |a, &v| a.wrapping_add(v))),
                    ("reduce_mul", all.iter().fold(1, |a, &v| a.wrapping_mul(v))),
                    ("reduce_min", *all.iter().min().unwrap()),
                    ("reduce_max", *all.iter().max().unwrap()),
                    ("reduce_and", all.iter().fold(!0, |a, &v| a & v)),
                    ("reduce_or", all.iter().fold(0, |a, &v| a | v)),
                    ("reduce_xor", all.iter().fold(0, |a, &v| a ^ v)),
                    ("reduce_logical_and", b(all.iter().all(|&v| v != 0))),
                    ("reduce_logical_or", b(all.iter().any(|&v| v != 0))),
                    (
                        "reduce_logical_xor",
                        b(all.iter().filter(|&&v| v != 0).count() % 2 == 1),
                    ),
                    (
                        "scan_inclusive_add",
                        inc.iter().fold(0, |a, &v| a.wrapping_add(v)),
                    ),
                    (
                        "scan_exclusive_mul",
                        exc.iter().fold(1, |a, &v| a.wrapping_mul(v)),
                    ),
                    ("scan_exclusive_or", exc.iter().fold(0, |a, &v| a | v)),
                    ("scan_inclusive_xor", inc.iter().fold(0, |a, &v| a ^ v)),
                    (
                        "scan_exclusive_min",
                        exc.iter().fold(i32::MAX, |a, &v| a.min(v)),
                    ),
                    ("scan_inclusive_max(float)", *inc.iter().max().unwrap()),
                ];
                for (q, (name, w)) in want.iter().enumerate() {
                    let g = if (7..10).contains(&q) {
                        b(o[q] != 0)
                    } else {
                        o[q]
                    };
                    assert_eq!(g, *w, "sub_group_non_uniform_{name}, {what}");
                }
            }
        }
    }
}

#[test]
fn identical_arms_clusters_and_wide_broadcasts() {
    let cl = Cl::new();
    if !has_subgroups(&cl) {
        return;
    }
    let ext = device_string(cl.device(), CL_DEVICE_EXTENSIONS);
    let has = |e: &str| ext.split_whitespace().any(|x| x == e);
    for e in [
        "cl_khr_subgroup_ballot",
        "cl_khr_subgroup_non_uniform_arithmetic",
        "cl_khr_subgroup_extended_types",
    ] {
        assert!(has(e), "{e} is reported with sub-groups");
    }
    let clustered = has("cl_khr_subgroup_clustered_reduce");
    let options = if clustered {
        format!("{OPTIONS} -DCLUSTERED")
    } else {
        OPTIONS.to_string()
    };
    let kernel = build(&cl, ARMS_SOURCE, &options, "arms");
    let device_size = sub_group_info(&kernel, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, &[1024]);
    for (k, launch) in LAUNCHES.iter().enumerate() {
        let items = layout(&cl, launch);
        let sgs = check_layout(&items, launch, device_size);
        let n = items_of(launch);
        let input: Vec<i32> = pseudo_random(n, 0x5EED + k as u64)
            .into_iter()
            .map(|x| (x % 2001) as i32 - 1000)
            .collect();
        let inp = cl.buffer_from(&input);
        let out = cl.buffer_from(&vec![0i32; n * ARMS_SLOT]);
        kernel.arg(0, &inp).arg(1, &out);
        cl.queue
            .run_at(&kernel, launch.offset, launch.global, Some(launch.local));
        let got = cl.queue.read(&out);
        for ((group, sg), lanes) in &sgs {
            let size = lanes.len();
            let x = |l: usize| input[lanes[l]];
            let half = size / 2;
            let sum = |r: std::ops::Range<usize>| r.map(x).fold(0i32, |a, v| a.wrapping_add(v));
            let cluster = |c: usize, lane: usize| lane / c * c..(lane / c * c + c).min(size);
            let x0 = x(0);
            let v = [x0, x0 + 1, x0 * 2, -x0, x0 ^ 5, x0 * 3, x0 - 9, 77];
            let xl = x(size - 1);
            let w: [i16; 16] = [
                xl as i16,
                (xl + 1) as i16,
                (xl * 2) as i16,
                -xl as i16,
                (xl ^ 5) as i16,
                (xl * 3) as i16,
                (xl - 9) as i16,
                77,
                (xl * 7) as i16,
                (xl + 100) as i16,
                (xl - 1000) as i16,
                1,
                (xl & 3) as i16,
                (xl | 16) as i16,
                (xl * xl) as i16,
                -2,
            ];
            let w: Vec<i32> = w.iter().map(|&h| h as i32).collect();
            for (lane, &i) in lanes.iter().enumerate() {
                let what = format!("work-group {group}, sub-group {sg}, lane {lane}, {launch:?}");
                let o = &got[i * ARMS_SLOT..(i + 1) * ARMS_SLOT];
                let arm = if lane < half { 0..half } else { half..size };
                assert_eq!(
                    o[0],
                    x(arm.start),
                    "sub_group_broadcast_first in the arm of lanes {arm:?}, {what}"
                );
                assert_eq!(
                    o[1],
                    sum(arm.clone()),
                    "sub_group_non_uniform_reduce_add in the arm of lanes {arm:?}, {what}"
                );
                if clustered {
                    let c16 = cluster(16, lane);
                    assert_eq!(o[2], sum(c16), "clustered_reduce_add(16), {what}");
                    assert_eq!(
                        o[3],
                        sum(cluster(32, lane)),
                        "clustered_reduce_add(32), {what}"
                    );
                    let max = cluster(64, lane).map(x).max().unwrap();
                    assert_eq!(o[4], max, "clustered_reduce_max(64), {what}");
                } else {
                    assert_eq!(o[2..5], [0; 3], "no clustered calls, {what}");
                }
                assert_eq!(o[5..13], v, "sub_group_broadcast(int8, 0), {what}");
                assert_eq!(
                    o[13..29],
                    w[..],
                    "sub_group_non_uniform_broadcast(short16, size - 1), {what}"
                );
            }
        }
    }
}

/// A 128-bit ballot of the lanes `[0, n)` for which `f` holds.
fn ballot_of(n: usize, f: impl Fn(usize) -> bool) -> [u32; 4] {
    let mut b = [0u32; 4];
    for l in (0..n).filter(|&l| f(l)) {
        b[l / 32] |= 1 << (l % 32);
    }
    b
}

#[test]
fn ballot() {
    let cl = Cl::new();
    if !has_subgroups(&cl) {
        return;
    }
    let ext = device_string(cl.device(), CL_DEVICE_EXTENSIONS);
    if !ext
        .split_whitespace()
        .any(|e| e == "cl_khr_subgroup_ballot")
    {
        return;
    }
    let kernel = build(&cl, BALLOT_SOURCE, OPTIONS, "ballot");
    let device_size = sub_group_info(&kernel, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, &[1024]);
    for (k, launch) in LAUNCHES.iter().enumerate() {
        let items = layout(&cl, launch);
        let sgs = check_layout(&items, launch, device_size);
        let n = items_of(launch);
        let mut input = vote_input(&sgs, n, k);
        // Distinct values (the vote input's signs), for the broadcasts.
        for (i, x) in input.iter_mut().enumerate() {
            *x = x.signum() * (1 + (i as i32 * 37) % 1000);
        }
        let inp = cl.buffer_from(&input);
        let out = cl.buffer_from(&vec![0x5555_5555u32; n * BALLOT_SLOT]);
        kernel.arg(0, &inp).arg(1, &out);
        cl.queue
            .run_at(&kernel, launch.offset, launch.global, Some(launch.local));
        let got = cl.queue.read(&out);
        for ((group, sg), lanes) in &sgs {
            let size = lanes.len();
            let b = ballot_of(size, |l| input[lanes[l]] > 0);
            let bit = |m: &[u32; 4], l: usize| m[l / 32] >> (l % 32) & 1;
            let count = |upto: usize| (0..upto).map(|l| bit(&b, l)).sum::<u32>();
            let set: Vec<usize> = (0..size).filter(|&l| bit(&b, l) == 1).collect();
            let active = ballot_of(size, |l| l % 3 != 0);
            let first_active = (0..size).find(|l| l % 3 != 0);
            let dyn_id = ((*sg * 3 + 1) as usize) % size;
            for (lane, &i) in lanes.iter().enumerate() {
                let what = format!("work-group {group}, sub-group {sg}, lane {lane}, {launch:?}");
                let o = &got[i * BALLOT_SLOT..(i + 1) * BALLOT_SLOT];
                assert_eq!(o[..4], b, "sub_group_ballot, {what}");
                assert_eq!(o[4] != 0, input[i] > 0, "sub_group_inverse_ballot, {what}");
                assert_eq!(
                    o[5],
                    bit(&b, (lane + 1) % size),
                    "sub_group_ballot_bit_extract, {what}"
                );
                assert_eq!(o[6], count(size), "sub_group_ballot_bit_count, {what}");
                assert_eq!(
                    o[7],
                    count(lane + 1),
                    "sub_group_ballot_inclusive_scan, {what}"
                );
                assert_eq!(o[8], count(lane), "sub_group_ballot_exclusive_scan, {what}");
                if let (Some(&lo), Some(&hi)) = (set.first(), set.last()) {
                    assert_eq!(o[9], lo as u32, "sub_group_ballot_find_lsb, {what}");
                    assert_eq!(o[10], hi as u32, "sub_group_ballot_find_msb, {what}");
                }
                let masks = [
                    ("eq", ballot_of(size, |l| l == lane)),
                    ("ge", ballot_of(size, |l| l >= lane)),
                    ("gt", ballot_of(size, |l| l > lane)),
                    ("le", ballot_of(size, |l| l <= lane)),
                    ("lt", ballot_of(size, |l| l < lane)),
                ];
                for (m, (name, want)) in masks.iter().enumerate() {
                    assert_eq!(
                        o[11 + 4 * m..15 + 4 * m],
                        *want,
                        "get_sub_group_{name}_mask, {what}"
                    );
                }
                if lane % 3 == 0 {
                    assert_eq!(o[31..37], [0xdead; 6], "inactive lane, {what}");
                } else {
                    assert_eq!(
                        o[31], input[lanes[1]] as u32,
                        "sub_group_non_uniform_broadcast(x, 1), {what}"
                    );
                    let first = first_active.expect("an active lane");
                    assert_eq!(
                        o[32],
                        (input[lanes[first]] as u32).wrapping_add(5),
                        "sub_group_broadcast_first, {what}"
                    );
                    assert_eq!(o[33..37], active, "divergent sub_group_ballot, {what}");
                }
                assert_eq!(
                    o[37], input[lanes[dyn_id]] as u32,
                    "sub_group_non_uniform_broadcast(x, id), {what}"
                );
                assert_eq!(
                    o[38],
                    (input[lanes[0]] >> 8) as u8 as u32,
                    "sub_group_non_uniform_broadcast(uchar2), {what}"
                );
            }
        }
    }
}

/// clGetKernelSubGroupInfo's values and error codes.
#[test]
fn kernel_sub_group_info() {
    let cl = Cl::new();
    let source = "kernel void k(global int* p) { p[0] = 1; }\n\
                  __attribute__((reqd_work_group_size(20, 2, 1))) kernel void r(global int* p) { p[0] = 1; }";
    let kernel = build(&cl, source, "", "k");
    let reqd = build(&cl, source, "", "r");
    let call = |k: &Kernel,
                dev: cl_device_id,
                param: cl_kernel_sub_group_info,
                input: &[u8],
                input_ptr: bool,
                out: &mut [usize],
                out_size: usize|
     -> (cl_int, usize) {
        let mut ret = usize::MAX;
        // SAFETY: `input` is readable for its length; `out` writable for
        // `out_size` ≤ its size in bytes.
        let status = unsafe {
            assert!(out_size <= size_of_val(out));
            ferrocl_tests::info::kernel_sub_group_info_fn(dev)(
                k.raw(),
                dev,
                param,
                input.len(),
                if input_ptr {
                    input.as_ptr().cast()
                } else {
                    ptr::null()
                },
                out_size,
                if out.is_empty() {
                    ptr::null_mut()
                } else {
                    out.as_mut_ptr().cast()
                },
                &mut ret,
            )
        };
        (status, ret)
    };
    let bytes = |v: &[usize]| -> Vec<u8> { v.iter().flat_map(|x| x.to_ne_bytes()).collect() };
    let w = size_of::<usize>();
    let dev = cl.device();
    // "CL_INVALID_DEVICE if device is not in the list of devices associated
    // with kernel": another object's handle is no device.
    let mut out = [0usize; 3];
    let (s, _) = call(
        &kernel,
        cl.context.raw().cast(),
        CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
        &bytes(&[8]),
        true,
        &mut out,
        w,
    );
    expect_error(s, CL_INVALID_DEVICE, "a context handle as the device");
    if !has_subgroups(&cl) {
        // "CL_INVALID_OPERATION if device does not support subgroups".
        for d in [dev, ptr::null_mut()] {
            let (s, _) = call(
                &kernel,
                d,
                CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                &bytes(&[8]),
                true,
                &mut out,
                w,
            );
            expect_error(s, CL_INVALID_OPERATION, "no sub-groups");
        }
        return;
    }
    let max_wg: usize = {
        let mut wg = 0usize;
        // SAFETY: one size_t out.
        let st = unsafe {
            clGetKernelWorkGroupInfo(
                kernel.raw(),
                dev,
                CL_KERNEL_WORK_GROUP_SIZE,
                w,
                (&mut wg as *mut usize).cast(),
                ptr::null_mut(),
            )
        };
        assert_eq!(st, CL_SUCCESS);
        wg
    };
    let sg = sub_group_info(&kernel, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, &[1024]);
    assert!(sg.is_power_of_two() && sg <= 1024, "sub-group size {sg}");
    // Values, with the device named and NULL (the kernel has one device).
    for d in [dev, ptr::null_mut()] {
        for (local, size, count) in [
            (vec![1usize], 1, 1),
            (vec![5], 5.min(sg), 5usize.div_ceil(sg)),
            (vec![sg * 3], sg, 3),
            (vec![sg + 1], sg, 2),
            (vec![6, 5], 30.min(sg), 30usize.div_ceil(sg)),
            (vec![4, 2, 3], 24.min(sg), 24usize.div_ceil(sg)),
        ] {
            let (s, r) = call(
                &kernel,
                d,
                CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                &bytes(&local),
                true,
                &mut out,
                w,
            );
            assert_eq!(
                (s, r, out[0]),
                (CL_SUCCESS, w, size),
                "max size for {local:?}"
            );
            let (s, r) = call(
                &kernel,
                d,
                CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
                &bytes(&local),
                true,
                &mut out,
                w,
            );
            assert_eq!(
                (s, r, out[0]),
                (CL_SUCCESS, w, count),
                "count for {local:?}"
            );
        }
    }
    // CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT: one dimension, the others 1,
    // as many dimensions as param_value_size has.
    let max_count = max_wg / sg;
    for (count, want) in [
        (1usize, [sg, 1, 1]),
        (3, [3 * sg, 1, 1]),
        (max_count, [max_count * sg, 1, 1]),
        (max_count + 1, [0, 0, 0]),
        (0, [0, 0, 0]),
    ] {
        for dims in 1..=3 {
            let mut o = [usize::MAX; 3];
            let (s, r) = call(
                &kernel,
                dev,
                CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
                &bytes(&[count]),
                true,
                &mut o,
                dims * w,
            );
            assert_eq!(s, CL_SUCCESS, "local size for {count} sub-groups");
            assert_eq!(r, dims * w);
            assert_eq!(o[..dims], want[..dims], "local size for {count} sub-groups");
            assert!(
                o[dims..].iter().all(|&x| x == usize::MAX),
                "wrote past the output"
            );
        }
    }
    // A reqd_work_group_size kernel has one size only.
    let n = 40usize.div_ceil(sg);
    let mut o = [0usize; 3];
    let (s, _) = call(
        &reqd,
        dev,
        CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
        &bytes(&[n]),
        true,
        &mut o,
        3 * w,
    );
    assert_eq!(
        (s, o),
        (CL_SUCCESS, [20, 2, 1]),
        "reqd_work_group_size kernel"
    );
    let (s, _) = call(
        &reqd,
        dev,
        CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
        &bytes(&[n + 1]),
        true,
        &mut o,
        3 * w,
    );
    assert_eq!(
        (s, o),
        (CL_SUCCESS, [0, 0, 0]),
        "reqd_work_group_size kernel, other count"
    );
    // CL_KERNEL_MAX_NUM_SUB_GROUPS and CL_KERNEL_COMPILE_NUM_SUB_GROUPS
    // (no input).
    let (s, r) = call(
        &kernel,
        dev,
        CL_KERNEL_MAX_NUM_SUB_GROUPS,
        &[],
        false,
        &mut out,
        w,
    );
    assert_eq!((s, r, out[0]), (CL_SUCCESS, w, max_wg.div_ceil(sg)));
    let (s, _) = call(
        &reqd,
        dev,
        CL_KERNEL_MAX_NUM_SUB_GROUPS,
        &[],
        false,
        &mut out,
        w,
    );
    assert_eq!((s, out[0]), (CL_SUCCESS, 40usize.div_ceil(sg)));
    let (s, r) = call(
        &kernel,
        dev,
        CL_KERNEL_COMPILE_NUM_SUB_GROUPS,
        &[],
        false,
        &mut out,
        w,
    );
    assert_eq!((s, r, out[0]), (CL_SUCCESS, w, 0));
    let dev_max: cl_uint = device_value(dev, CL_DEVICE_MAX_NUM_SUB_GROUPS);
    assert!(max_wg.div_ceil(sg) <= dev_max as usize);
    // Size only (param_value NULL).
    let (s, r) = call(
        &kernel,
        dev,
        CL_KERNEL_MAX_NUM_SUB_GROUPS,
        &[],
        false,
        &mut [],
        0,
    );
    assert_eq!((s, r), (CL_SUCCESS, w));

    // Errors: CL_INVALID_VALUE for a bad input size or NULL input, a too
    // small output, an unknown param.
    for param in [
        CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
        CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
    ] {
        for (input, ptr_ok, what) in [
            (bytes(&[8]), false, "NULL input"),
            (vec![], true, "empty input"),
            (bytes(&[8, 1, 1, 1]), true, "four dimensions"),
            (vec![8, 0, 0], true, "not a whole size_t"),
        ] {
            let (s, _) = call(&kernel, dev, param, &input, ptr_ok, &mut out, w);
            expect_error(s, CL_INVALID_VALUE, what);
        }
        let (s, _) = call(&kernel, dev, param, &bytes(&[8]), true, &mut out, w - 1);
        expect_error(s, CL_INVALID_VALUE, "output smaller than a size_t");
    }
    for (input, ptr_ok, what) in [
        (bytes(&[1]), false, "NULL input"),
        (bytes(&[1, 1]), true, "two size_t"),
    ] {
        let (s, _) = call(
            &kernel,
            dev,
            CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
            &input,
            ptr_ok,
            &mut out,
            w,
        );
        expect_error(s, CL_INVALID_VALUE, what);
    }
    let (s, _) = call(
        &kernel,
        dev,
        CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
        &bytes(&[1]),
        true,
        &mut out,
        w + 1,
    );
    expect_error(s, CL_INVALID_VALUE, "output not a whole number of size_t");
    let (s, _) = call(
        &kernel,
        dev,
        CL_KERNEL_MAX_NUM_SUB_GROUPS,
        &[],
        false,
        &mut out,
        4,
    );
    expect_error(s, CL_INVALID_VALUE, "output smaller than a size_t");
    let (s, _) = call(&kernel, dev, 0x4242, &bytes(&[8]), true, &mut out, w);
    expect_error(s, CL_INVALID_VALUE, "unknown param_name");
    // clGetKernelWorkGroupInfo's param is no sub-group param.
    let (s, _) = call(
        &kernel,
        dev,
        CL_KERNEL_WORK_GROUP_SIZE,
        &[],
        false,
        &mut out,
        w,
    );
    expect_error(s, CL_INVALID_VALUE, "CL_KERNEL_WORK_GROUP_SIZE");
}

/// Device queries agree: the extension, the OpenCL C feature, the
/// sub-group count; and the builtins exist exactly when they are reported.
#[test]
fn device_queries() {
    let cl = Cl::new();
    let dev = cl.device();
    let n: cl_uint = device_value(dev, CL_DEVICE_MAX_NUM_SUB_GROUPS);
    let ext = device_string(dev, CL_DEVICE_EXTENSIONS);
    let has_ext = ext.split_whitespace().any(|e| e == "cl_khr_subgroups");
    let versioned: Vec<u8> = ferrocl_tests::info::query(ferrocl_tests::info::device_info(
        dev,
        CL_DEVICE_EXTENSIONS_WITH_VERSION,
    ))
    .expect("CL_DEVICE_EXTENSIONS_WITH_VERSION");
    let names = |v: &[u8]| -> Vec<(String, u32)> {
        v.chunks(4 + CL_NAME_VERSION_MAX_NAME_SIZE)
            .map(|c| {
                let ver = u32::from_ne_bytes([c[0], c[1], c[2], c[3]]);
                let name = &c[4..];
                let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
                (String::from_utf8_lossy(&name[..end]).into_owned(), ver)
            })
            .collect()
    };
    let with_version = names(&versioned);
    assert_eq!(
        with_version
            .iter()
            .any(|(e, v)| e == "cl_khr_subgroups" && *v == (1 << 22)),
        has_ext,
        "cl_khr_subgroups 1.0.0 in CL_DEVICE_EXTENSIONS_WITH_VERSION"
    );
    let features: Vec<u8> = ferrocl_tests::info::query(ferrocl_tests::info::device_info(
        dev,
        CL_DEVICE_OPENCL_C_FEATURES,
    ))
    .expect("CL_DEVICE_OPENCL_C_FEATURES");
    let has_feature = names(&features)
        .iter()
        .any(|(e, v)| e == "__opencl_c_subgroups" && *v == (3 << 22));
    assert_eq!(
        has_feature,
        n > 0,
        "__opencl_c_subgroups 3.0.0 in CL_DEVICE_OPENCL_C_FEATURES vs CL_DEVICE_MAX_NUM_SUB_GROUPS {n}"
    );
    // The extension requires independent forward progress (the feature
    // does not): reported together or not at all.
    let progress: cl_bool = device_value(dev, CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS);
    assert_eq!(
        progress == CL_TRUE,
        has_ext,
        "cl_khr_subgroups in {ext:?} vs independent forward progress {progress}"
    );
    assert!(!has_ext || has_feature, "the extension implies the feature");
    let max_wg: usize = device_value(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    if n > 0 {
        let kernel = build(&cl, LAYOUT_SOURCE, OPTIONS, "layout");
        let sg = sub_group_info(&kernel, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, &[1024]);
        assert!(
            n as usize <= max_wg.div_ceil(sg) && n as usize >= 1,
            "{n} sub-groups"
        );
    }
    // The optional sub-group extensions: reported (with version 1.0.0) only
    // with sub-groups, and those ferrocl always has with sub-groups are.
    let mut optional_macros = String::new();
    for e in OPTIONAL_EXTENSIONS {
        let reported = ext.split_whitespace().any(|x| x == e);
        assert_eq!(
            with_version.iter().any(|(x, v)| x == e && *v == (1 << 22)),
            reported,
            "{e} 1.0.0 in CL_DEVICE_EXTENSIONS_WITH_VERSION vs CL_DEVICE_EXTENSIONS"
        );
        assert!(!reported || n > 0, "{e} reported without sub-groups");
        if n > 0 && ALWAYS_WITH_SUBGROUPS.contains(&e) {
            assert!(reported, "{e} not reported with sub-groups: {ext:?}");
        }
        optional_macros.push_str(&format!(
            "#if defined({e}) != {}\n#error {e} macro disagrees with the device\n#endif\n",
            reported as u8
        ));
    }
    // The macros and builtins follow the reports: OpenCL C 3.0 has them
    // with the feature, OpenCL C 2.0 with the extension only.
    let probe = |ext_defined: bool| {
        format!(
            r#"
        #if !defined(__opencl_c_subgroups) && __OPENCL_C_VERSION__ == 300
        #error no sub-group feature
        #endif
        #if defined(cl_khr_subgroups) != {}
        #error cl_khr_subgroups macro disagrees with the device
        #endif
        {}
        kernel void k(global uint* o) {{ o[0] = get_sub_group_size(); }}
    "#,
            ext_defined as u8, optional_macros
        )
    };
    let built = cl.context.try_build(&probe(has_ext), OPTIONS);
    assert_eq!(
        built.is_ok(),
        n > 0,
        "sub-group program builds iff supported: {:?}",
        built.err()
    );
    let built20 = cl.context.try_build(&probe(true), "-cl-std=CL2.0");
    assert_eq!(
        built20.is_ok(),
        has_ext,
        "an OpenCL C 2.0 sub-group program builds iff cl_khr_subgroups is reported: {:?}",
        built20.err()
    );
    let ballot = "kernel void k(global uint* o) { o[0] = sub_group_ballot(1).x; }";
    let has_ballot = ext
        .split_whitespace()
        .any(|e| e == "cl_khr_subgroup_ballot");
    assert_eq!(
        cl.context.try_build(ballot, OPTIONS).is_ok(),
        has_ballot,
        "cl_khr_subgroup_ballot's builtins build iff it is reported"
    );
    let vote = "kernel void k(global uint* o) { o[0] = sub_group_elect(); }";
    let has_vote = ext
        .split_whitespace()
        .any(|e| e == "cl_khr_subgroup_non_uniform_vote");
    assert_eq!(
        cl.context.try_build(vote, OPTIONS).is_ok(),
        has_vote,
        "cl_khr_subgroup_non_uniform_vote's builtins build iff it is reported"
    );
}

/// Where CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS is reported: the
/// first sub-group of a work-group spins until the last one has set a
/// flag. Without forward progress between sub-groups (e.g. sub-groups run
/// one after the other between barriers) the spin would never see it; the
/// spin is bounded (2^20 reads: the writer is a resident sub-group of the
/// same work-group, which needs far fewer), so a failure is a wrong value,
/// not a hang.
#[test]
fn independent_forward_progress_when_reported() {
    let cl = Cl::new();
    let progress: cl_bool = device_value(
        cl.device(),
        CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS,
    );
    if progress != CL_TRUE {
        return;
    }
    let source = r#"
        kernel void ifp(global uint* out) {
            local uint flag;
            if (get_local_id(0) == 0) flag = 0;
            barrier(CLK_LOCAL_MEM_FENCE);
            uint seen = 1;
            uint last = get_num_sub_groups() - 1;
            if (get_sub_group_id() == 0) {
                seen = 0;
                for (uint i = 0; i < (1u << 20); i++) {
                    if (atomic_add(&flag, 0u) != 0u) { seen = 1; break; }
                }
            } else if (get_sub_group_id() == last && get_sub_group_local_id() == 0) {
                atomic_xchg(&flag, 1u);
            }
            out[get_global_id(0)] = seen;
        }
    "#;
    let kernel = build(&cl, source, OPTIONS, "ifp");
    let sg = sub_group_info(&kernel, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, &[1024]);
    for local in [2 * sg, 4 * sg] {
        let n = local * 8;
        let out = cl.buffer_from(&vec![7u32; n]);
        kernel.arg(0, &out);
        cl.queue.run_at(&kernel, None, &[n], Some(&[local]));
        let got = cl.queue.read(&out);
        assert!(
            got.iter().all(|&v| v == 1),
            "local size {local}: first sub-group saw the last one's flag: {:?}",
            &got[..sg.min(n)]
        );
    }
}
