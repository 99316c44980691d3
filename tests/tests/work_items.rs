//! Work-item built-ins: every work-item of 1-, 2- and 3-D launches writes
//! get_global_id / get_local_id / get_group_id / get_global_size /
//! get_local_size / get_num_groups / get_global_offset for dimensions 0..=2
//! (those beyond the launch's work_dim must read 0 or 1) and get_work_dim,
//! and the host checks every value. Launches with and without a local size
//! and a global offset. Dimension index 3, out of range for every launch, is
//! checked separately.

use ferrocl_tests::sys::{
    cl_bool, cl_device_id, CL_DEVICE_MAX_WORK_GROUP_SIZE, CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT,
    CL_FALSE, CL_INVALID_WORK_GROUP_SIZE,
};
use ferrocl_tests::{device_value, expect_error, Cl};

const QUERIES: [&str; 7] = [
    "get_global_id",
    "get_local_id",
    "get_group_id",
    "get_global_size",
    "get_local_size",
    "get_num_groups",
    "get_global_offset",
];
/// Dimensions queried per work-item.
const DIMS: usize = 3;
/// Values per work-item: every query for every dimension (dimension-major,
/// `o[d * 7 + q]` in the kernel), then get_work_dim. The kernel's `SLOT`.
const SLOT: usize = QUERIES.len() * DIMS + 1;
const SENTINEL: u32 = 0xDEAD_BEEF;

const SOURCE: &str = r#"
#define SLOT 22

// This work-item's slot in the output: its position in the launch, offset
// removed, flattened with dimension 0 fastest.
global uint* slot(global uint* out) {
    size_t x = get_global_id(0) - get_global_offset(0);
    size_t y = get_global_id(1) - get_global_offset(1);
    size_t z = get_global_id(2) - get_global_offset(2);
    return out + (x + get_global_size(0) * (y + get_global_size(1) * z)) * SLOT;
}

#define QUERY(o, d)                                 \
    o[(d) * 7 + 0] = (uint)get_global_id(d);        \
    o[(d) * 7 + 1] = (uint)get_local_id(d);         \
    o[(d) * 7 + 2] = (uint)get_group_id(d);         \
    o[(d) * 7 + 3] = (uint)get_global_size(d);      \
    o[(d) * 7 + 4] = (uint)get_local_size(d);       \
    o[(d) * 7 + 5] = (uint)get_num_groups(d);       \
    o[(d) * 7 + 6] = (uint)get_global_offset(d);

// Dimensions as constants.
kernel void ids(global uint* out) {
    global uint* o = slot(out);
    QUERY(o, 0)
    QUERY(o, 1)
    QUERY(o, 2)
    o[21] = get_work_dim();
}

// Dimensions as a run-time value.
kernel void ids_loop(global uint* out) {
    global uint* o = slot(out);
    for (uint d = 0; d < 3; d++) {
        QUERY(o, d)
    }
    o[21] = get_work_dim();
}

// Dimension 3: beyond every launch's work_dim. One work-item reports, in
// out[21..28].
kernel void dim3(global uint* out) {
    if (get_global_id(0) == get_global_offset(0) && get_global_id(1) == get_global_offset(1)
            && get_global_id(2) == get_global_offset(2)) {
        QUERY(out, 3)
    }
}
"#;

/// One launch: `global.len()` dimensions.
struct Launch<'a> {
    global: &'a [usize],
    local: Option<&'a [usize]>,
    offset: Option<&'a [usize]>,
}

impl Launch<'_> {
    fn dims(&self) -> usize {
        self.global.len()
    }

    /// `v[d]`, or `default` beyond the launch's dimensions.
    fn pad(v: Option<&[usize]>, d: usize, default: usize) -> usize {
        v.and_then(|v| v.get(d)).copied().unwrap_or(default)
    }
}

/// Runs kernel `name` over `launch` and checks every value it wrote.
fn check_launch(name: &str, launch: Launch) {
    let cl = Cl::new();
    let items: usize = launch.global.iter().product();
    let out = cl.buffer_from(&vec![SENTINEL; items * SLOT]);
    let kernel = cl.kernel(SOURCE, name);
    kernel.arg(0, &out);
    cl.queue
        .run_at(&kernel, launch.offset, launch.global, launch.local);
    let got = cl.queue.read(&out);

    let dims = launch.dims();
    let global: Vec<usize> = (0..DIMS)
        .map(|d| Launch::pad(Some(launch.global), d, 1))
        .collect();
    let offset: Vec<usize> = (0..DIMS)
        .map(|d| Launch::pad(launch.offset, d, 0))
        .collect();
    // The work-group size: as enqueued, or, when the implementation chose
    // it, what the first work-item (in the first group of every dimension)
    // reports.
    let local: Vec<usize> = match launch.local {
        Some(_) => (0..DIMS).map(|d| Launch::pad(launch.local, d, 1)).collect(),
        None => (0..DIMS)
            .map(|d| got[d * QUERIES.len() + 4] as usize)
            .collect(),
    };
    check_chosen_local_size(cl.device(), &local[..dims], launch.global);

    for item in 0..items {
        // The work-item's position in the launch (offset removed).
        let mut rest = item;
        let idx: Vec<usize> = (0..DIMS)
            .map(|d| {
                let i = rest % global[d];
                rest /= global[d];
                i
            })
            .collect();
        let slot = &got[item * SLOT..(item + 1) * SLOT];
        for d in 0..DIMS {
            let group = idx[d] / local[d];
            // A last, smaller group where local does not divide global
            // (non-uniform work-groups, OpenCL 2.0+).
            let group_size = local[d].min(global[d] - group * local[d]);
            let want = if d < dims {
                [
                    offset[d] + idx[d],
                    idx[d] % local[d],
                    group,
                    global[d],
                    group_size,
                    global[d].div_ceil(local[d]),
                    offset[d],
                ]
            } else {
                [0, 0, 0, 1, 1, 1, 0]
            };
            for (q, name) in QUERIES.iter().enumerate() {
                assert_eq!(
                    slot[d * QUERIES.len() + q] as usize,
                    want[q],
                    "{name}({d}) of work-item {:?} (global {:?}, local {:?}, offset {:?})",
                    &idx[..dims],
                    launch.global,
                    launch.local,
                    launch.offset
                );
            }
        }
        assert_eq!(
            slot[SLOT - 1] as usize,
            dims,
            "get_work_dim() of {:?}",
            &idx[..dims]
        );
    }
}

/// A work-group size the implementation chose must be one it could launch.
fn check_chosen_local_size(device: cl_device_id, local: &[usize], global: &[usize]) {
    let max: usize = device_value(device, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    let total: usize = local.iter().product();
    assert!(
        local.iter().all(|&l| l >= 1) && total <= max,
        "chosen local size {local:?} (max work-group size {max})"
    );
    for (d, (&l, &g)) in local.iter().zip(global).enumerate() {
        assert!(
            l <= g,
            "chosen local size {l} exceeds global size {g} in dimension {d}"
        );
    }
}

fn launch<'a>(
    global: &'a [usize],
    local: Option<&'a [usize]>,
    offset: Option<&'a [usize]>,
) -> Launch<'a> {
    Launch {
        global,
        local,
        offset,
    }
}

#[test]
fn one_d_with_local_size_and_offset() {
    check_launch("ids", launch(&[256], Some(&[32]), Some(&[1000])));
}

#[test]
fn one_d_non_divisible_null_local_size() {
    // 997 is prime: the implementation must pick 1 or 997 or use a smaller
    // last group.
    check_launch("ids", launch(&[997], None, None));
}

#[test]
fn two_d_with_local_size_and_offset() {
    check_launch("ids", launch(&[16, 9], Some(&[8, 3]), Some(&[100, 200])));
}

#[test]
fn two_d_null_local_size() {
    check_launch("ids", launch(&[16, 9], None, None));
}

#[test]
fn two_d_null_local_size_with_offset() {
    check_launch("ids", launch(&[16, 9], None, Some(&[3, 5])));
}

#[test]
fn three_d_with_local_size_and_offset() {
    check_launch(
        "ids",
        launch(&[6, 4, 10], Some(&[3, 2, 5]), Some(&[1, 2, 3])),
    );
}

#[test]
fn three_d_with_local_size() {
    check_launch("ids", launch(&[6, 4, 10], Some(&[2, 4, 2]), None));
}

#[test]
fn three_d_null_local_size() {
    check_launch("ids", launch(&[6, 4, 10], None, None));
}

#[test]
fn dimension_index_known_only_at_run_time() {
    check_launch(
        "ids_loop",
        launch(&[6, 4, 10], Some(&[3, 2, 5]), Some(&[1, 2, 3])),
    );
    check_launch("ids_loop", launch(&[997], None, Some(&[7])));
}

#[test]
fn dimension_index_three_is_out_of_range() {
    if ferrocl_tests::testing_pocl() {
        eprintln!("skipped: PoCL 3.1 returns garbage for get_global_size(3) and friends");
        return;
    }
    for (global, offset) in [
        (&[8usize][..], &[2usize][..]),
        (&[4, 2, 3][..], &[1, 1, 1][..]),
    ] {
        let cl = Cl::new();
        let out = cl.buffer_from(&[SENTINEL; 28]);
        let kernel = cl.kernel(SOURCE, "dim3");
        kernel.arg(0, &out);
        cl.queue.run_at(&kernel, Some(offset), global, None);
        // "Valid values of dimindx are 0 to get_work_dim() - 1. For other
        // values", the IDs and offset are 0, the sizes and counts 1.
        let got = cl.queue.read_range(&out, 21, 7);
        assert_eq!(
            got,
            [0, 0, 0, 1, 1, 1, 0],
            "queries of dimension 3 in a {}-D launch ({QUERIES:?})",
            global.len()
        );
    }
}

/// A kernel with `reqd_work_group_size(3, 5, 7)` launched non-uniformly
/// (OpenCL C 3.0) over {8, 13, 20}: the partial trailing groups (2, 3 and
/// 6 wide) report their own size in get_local_size and keep the required
/// one in get_enqueued_local_size, get_local_linear_id counts within the
/// smaller group, only the launch's work-items run (`count`), and a group's
/// members meet at a barrier (`members`, counted by a `__local` atomic).
/// The CTS's test_non_uniform_work_group `non_uniform_other_*` found every
/// group reporting (3, 5, 7).
#[test]
fn reqd_work_group_size_with_partial_groups() {
    const SRC: &str = r#"
kernel __attribute__((reqd_work_group_size(3, 5, 7)))
void reqd(global uint* out, global uint* count) {
    local uint members;
    if (get_local_linear_id() == 0)
        members = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_inc(&members);
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_inc(count);
    size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    if (x >= get_global_size(0) || y >= get_global_size(1) || z >= get_global_size(2))
        return;
    global uint* o = out + (x + get_global_size(0) * (y + get_global_size(1) * z)) * 12;
    for (uint d = 0; d < 3; d++) {
        o[d] = get_local_size(d);
        o[3 + d] = get_enqueued_local_size(d);
        o[6 + d] = get_local_id(d);
    }
    o[9] = get_local_linear_id();
    o[10] = members;
    o[11] = get_num_groups(0) * 10000 + get_num_groups(1) * 100 + get_num_groups(2);
}
"#;
    const GLOBAL: [usize; 3] = [8, 13, 20];
    const LOCAL: [usize; 3] = [3, 5, 7];
    let cl = Cl::new();
    let program = match cl.try_build(SRC, "-cl-std=CL3.0") {
        Ok(p) => p,
        Err(e) => panic!("-cl-std=CL3.0: {e:?}"),
    };
    let kernel = program.kernel("reqd");
    let items: usize = GLOBAL.iter().product();
    let out = cl.buffer_from(&vec![SENTINEL; items * 12]);
    let count = cl.buffer_from(&[0u32]);
    kernel.arg(0, &out);
    kernel.arg(1, &count);
    let launched = cl.queue.try_enqueue(&kernel, None, &GLOBAL, Some(&LOCAL));
    // Optional in OpenCL 3.0 (PoCL 3.1 does not offer it).
    let non_uniform: cl_bool = device_value(cl.device(), CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT);
    if non_uniform == CL_FALSE {
        let err = launched.expect_err("a non-uniform launch without the device's support");
        expect_error(
            err.0,
            CL_INVALID_WORK_GROUP_SIZE,
            "no non-uniform work-groups",
        );
        return;
    }
    launched.expect("non-uniform launch");
    let got = cl.queue.read(&out);
    assert_eq!(cl.queue.read(&count), [items as u32], "work-items that ran");
    for z in 0..GLOBAL[2] {
        for y in 0..GLOBAL[1] {
            for x in 0..GLOBAL[0] {
                let idx = [x, y, z];
                let size: Vec<usize> = (0..3)
                    .map(|d| LOCAL[d].min(GLOBAL[d] - idx[d] / LOCAL[d] * LOCAL[d]))
                    .collect();
                let lid: Vec<usize> = (0..3).map(|d| idx[d] % LOCAL[d]).collect();
                let mut want: Vec<usize> = size.clone();
                want.extend(LOCAL);
                want.extend(&lid);
                want.push(lid[0] + size[0] * (lid[1] + size[1] * lid[2]));
                want.push(size.iter().product());
                want.push(3 * 10000 + 3 * 100 + 3);
                let i = x + GLOBAL[0] * (y + GLOBAL[1] * z);
                let slot: Vec<usize> = got[i * 12..(i + 1) * 12]
                    .iter()
                    .map(|&v| v as usize)
                    .collect();
                assert_eq!(
                    slot, want,
                    "work-item {idx:?}: local size, enqueued local size, local id, \
                     local linear id, group members, groups"
                );
            }
        }
    }
}
