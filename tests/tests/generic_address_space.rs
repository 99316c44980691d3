//! The generic address space (OpenCL C 3.0 `__opencl_c_generic_address_space`,
//! `ferrocl_compiler`'s `passes::lower::generic` and
//! `passes::dispatch_generic`): functions taking unqualified pointers
//! called with global, local and private ones; pointers whose space is
//! chosen per work-item (loads, stores, struct members, arithmetic and
//! comparisons through them); `to_global`/`to_local`/`to_private` and
//! `get_fence`; atomics through generic pointers to global and local
//! memory; generic pointers kept in memory. Every kernel runs with both
//! global-pointer formats (physical and `-ferrocl-addressing=descriptor`)
//! and the results are compared with CPU references; one program also
//! comes as SPIR-V from clang-15 and llvm-spirv-15 (Generic storage class
//! in the IL).

use std::ffi::CStr;

use ferrocl_tests::info::{device_info, query};
use ferrocl_tests::{assert_same, device, device_value, Cl, Local, Program};
use opencl_sys::*;

/// Both global-pointer formats.
const MODES: [&str; 2] = [
    "-cl-std=CL3.0",
    "-cl-std=CL3.0 -ferrocl-addressing=descriptor",
];

#[track_caller]
fn build(cl: &Cl, source: &str, options: &str) -> Program {
    cl.try_build(source, options)
        .unwrap_or_else(|e| panic!("{options}: {e}"))
}

/// The device reports the feature, and OpenCL C 3.0 programs see its
/// macro.
#[test]
fn feature_is_reported_and_defined() {
    let support: cl_bool = device_value(device(), CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT);
    assert_eq!(support, CL_TRUE);
    let features: Vec<cl_name_version> =
        query(device_info(device(), CL_DEVICE_OPENCL_C_FEATURES)).expect("features");
    let names: Vec<String> = features
        .iter()
        .map(|nv| {
            // SAFETY: a NUL-terminated name within the fixed array.
            unsafe { CStr::from_ptr(nv.name.as_ptr().cast()) }
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert!(
        names
            .iter()
            .any(|n| n == "__opencl_c_generic_address_space"),
        "{names:?}"
    );
    let cl = Cl::new();
    let p = build(
        &cl,
        "kernel void k(global int *o) {\n\
         #ifdef __opencl_c_generic_address_space\n\
         o[0] = 1;\n\
         #else\n\
         o[0] = 2;\n\
         #endif\n\
         }",
        "-cl-std=CL3.0",
    );
    let out = cl.buffer::<i32>(1);
    let k = p.kernel("k");
    k.arg(0, &out);
    cl.queue.run(&k, &[1], None);
    assert_eq!(cl.queue.read(&out), [1]);
}

const NAMED_SPACES: &str = r#"
__attribute__((noinline)) int sum3(const int *p) { return p[0] + p[1] + p[2]; }
__attribute__((noinline)) void bump(int *p, int k) { p[0] += k; p[1] *= 2; p[2] -= k; }
__attribute__((noinline)) int fence_of(int *p) { return get_fence(p); }
__attribute__((noinline)) int where(int *p) {
    return (to_global(p) != NULL) | (to_local(p) != NULL) << 1 | (to_private(p) != NULL) << 2;
}
__attribute__((noinline)) int same(int *p) {
    return (to_global(p) == (global int *)p) && (to_local(p) == NULL || (int *)to_local(p) == p);
}

kernel void k(global int *out, global int *g, local int *lx) {
    int gid = get_global_id(0);
    int lid = get_local_id(0);
    int priv[3] = {gid, 2 * gid, 3 * gid};
    local int *l = lx + 3 * lid;
    l[0] = gid + 1; l[1] = 5; l[2] = -gid;
    bump(g + 3 * gid, 4);
    bump(l, 3);
    bump(priv, 2);
    out[8 * gid] = sum3(g + 3 * gid);
    out[8 * gid + 1] = sum3(l);
    out[8 * gid + 2] = sum3(priv);
    out[8 * gid + 3] = where(g + 3 * gid) | where(l) << 4 | where(priv) << 8;
    out[8 * gid + 4] = fence_of(g) | fence_of(l) << 4 | fence_of(priv) << 8;
    out[8 * gid + 5] = same(g + gid);
    out[8 * gid + 6] = priv[0] + priv[1] + priv[2];
    out[8 * gid + 7] = l[0] * 100 + l[1] * 10 + l[2];
}
"#;

/// Functions with generic pointer parameters called with global, local
/// and private pointers (each call site's space is known statically).
#[test]
fn functions_take_global_local_and_private_pointers() {
    let n = 64usize;
    let wg = 16usize;
    let init: Vec<i32> = (0..3 * n as i32).map(|i| i * 7 - 50).collect();
    let mut want_g = init.clone();
    let mut want = vec![0i32; 8 * n];
    for gid in 0..n {
        let gi = gid as i32;
        let bump = |p: &mut [i32], k: i32| {
            p[0] += k;
            p[1] *= 2;
            p[2] -= k;
        };
        bump(&mut want_g[3 * gid..3 * gid + 3], 4);
        let mut l = [gi + 1, 5, -gi];
        bump(&mut l, 3);
        let mut priv_ = [gi, 2 * gi, 3 * gi];
        bump(&mut priv_, 2);
        let g3 = &want_g[3 * gid..3 * gid + 3];
        want[8 * gid] = g3.iter().sum();
        want[8 * gid + 1] = l.iter().sum();
        want[8 * gid + 2] = priv_.iter().sum();
        // to_global, to_local, to_private: bit 0, 1, 2 per pointer.
        want[8 * gid + 3] = 1 | 2 << 4 | 4 << 8;
        // CLK_GLOBAL_MEM_FENCE 2, CLK_LOCAL_MEM_FENCE 1, private 0.
        want[8 * gid + 4] = 2 | 1 << 4;
        want[8 * gid + 5] = 1;
        want[8 * gid + 6] = priv_.iter().sum();
        want[8 * gid + 7] = l[0] * 100 + l[1] * 10 + l[2];
    }
    let cl = Cl::new();
    for options in MODES {
        let p = build(&cl, NAMED_SPACES, options);
        let out = cl.buffer::<i32>(8 * n);
        let g = cl.buffer_from(&init);
        let k = p.kernel("k");
        k.arg(0, &out).arg(1, &g).arg(2, &Local(3 * 4 * wg));
        cl.queue.run(&k, &[n], Some(&[wg]));
        assert_same(options, &cl.queue.read(&out), &want);
        assert_same(options, &cl.queue.read(&g), &want_g);
    }
}

const DYNAMIC: &str = r#"
__attribute__((noinline)) int sum4(const int *p) {
    int s = 0;
    for (int i = 0; i < 4; i++) s += p[i];
    return s;
}

kernel void k(global int *out, global int *g, local int *lx, int mode) {
    int gid = get_global_id(0);
    int lid = get_local_id(0);
    int priv[4];
    for (int i = 0; i < 4; i++) {
        priv[i] = gid * 10 + i;
        lx[4 * lid + i] = gid * 100 + i;
    }
    int *p;
    int sel = (gid + mode) % 3;
    if (sel == 0) p = g + 4 * gid;
    else if (sel == 1) p = lx + 4 * lid;
    else p = priv;
    p[1] += 1000;
    int *q = p + 3;
    out[8 * gid] = sum4(p);
    out[8 * gid + 1] = p[1];
    out[8 * gid + 2] = (to_global(p) != NULL) | (to_local(p) != NULL) << 1
        | (to_private(p) != NULL) << 2 | (int)get_fence(p) << 4;
    out[8 * gid + 3] = (q - p) * 100 + (q > p) * 10 + (q[-1] == p[2]);
    out[8 * gid + 4] = (p == (int *)(g + 4 * gid)) | (p == (int *)(lx + 4 * lid)) << 1
        | (p == (int *)priv) << 2 | (p != NULL) << 3;
    out[8 * gid + 5] = lx[4 * lid + 1];
    out[8 * gid + 6] = priv[1];
    out[8 * gid + 7] = (global int *)to_global(p) == g + 4 * gid;
}
"#;

/// The reference of `DYNAMIC` (and of its IL twin) for `mode`: `out`
/// and the global buffer afterwards.
fn dynamic_reference(n: usize, mode: i32, init: &[i32]) -> (Vec<i32>, Vec<i32>) {
    let mut g = init.to_vec();
    let mut out = vec![0i32; 8 * n];
    for gid in 0..n {
        let gi = gid as i32;
        let mut priv_: Vec<i32> = (0..4).map(|i| gi * 10 + i).collect();
        let mut l: Vec<i32> = (0..4).map(|i| gi * 100 + i).collect();
        let sel = (gi + mode) % 3;
        let p: &mut [i32] = match sel {
            0 => &mut g[4 * gid..4 * gid + 4],
            1 => &mut l,
            _ => &mut priv_,
        };
        p[1] += 1000;
        let o = &mut out[8 * gid..8 * gid + 8];
        o[0] = p.iter().sum();
        o[1] = p[1];
        o[2] = match sel {
            0 => 1 | 2 << 4,
            1 => 2 | 1 << 4,
            _ => 4,
        };
        o[3] = 3 * 100 + 10 + 1;
        o[4] = (1 << sel) | 8;
        o[5] = l[1];
        o[6] = priv_[1];
        o[7] = (sel == 0) as i32;
    }
    (out, g)
}

/// A pointer that points to global, local or private memory depending on
/// the work-item: loads, stores, arithmetic, comparisons, to_* and
/// get_fence through it.
#[test]
fn space_chosen_per_work_item() {
    let n = 96usize;
    let wg = 32usize;
    let init: Vec<i32> = (0..4 * n as i32).map(|i| 3 * i + 1).collect();
    let cl = Cl::new();
    for options in MODES {
        let p = build(&cl, DYNAMIC, options);
        for mode in 0..3 {
            let out = cl.buffer::<i32>(8 * n);
            let g = cl.buffer_from(&init);
            let k = p.kernel("k");
            k.arg(0, &out)
                .arg(1, &g)
                .arg(2, &Local(4 * 4 * wg))
                .arg(3, &mode);
            cl.queue.run(&k, &[n], Some(&[wg]));
            let (want, want_g) = dynamic_reference(n, mode, &init);
            let what = format!("{options} mode {mode}");
            assert_same(&what, &cl.queue.read(&out), &want);
            assert_same(&what, &cl.queue.read(&g), &want_g);
        }
    }
}

/// The same program as SPIR-V made by clang-15 and llvm-spirv-15: the
/// IL has Generic pointers, OpPtrCastToGeneric, OpGenericCastToPtrExplicit
/// and OpGenericPtrMemSemantics.
#[test]
fn il_with_generic_storage_class() {
    let il = ferrocl_tests::spirv_of_with(DYNAMIC, None, &["-cl-std=CL3.0"]);
    let n = 48usize;
    let wg = 16usize;
    let init: Vec<i32> = (0..4 * n as i32).map(|i| 5 - i).collect();
    let cl = Cl::new();
    for options in ["", "-ferrocl-addressing=descriptor"] {
        let p = cl
            .try_build_spirv(&il, options)
            .unwrap_or_else(|e| panic!("IL {options}: {e}"));
        let mode = 1i32;
        let out = cl.buffer::<i32>(8 * n);
        let g = cl.buffer_from(&init);
        let k = p.kernel("k");
        k.arg(0, &out)
            .arg(1, &g)
            .arg(2, &Local(4 * 4 * wg))
            .arg(3, &mode);
        cl.queue.run(&k, &[n], Some(&[wg]));
        let (want, want_g) = dynamic_reference(n, mode, &init);
        assert_same(&format!("IL {options}"), &cl.queue.read(&out), &want);
        assert_same(&format!("IL {options}"), &cl.queue.read(&g), &want_g);
    }
}

const ATOMICS: &str = r#"
__attribute__((noinline)) int add_to(volatile atomic_int *p, int v) {
    return atomic_fetch_add(p, v);
}

kernel void k(global atomic_int *gc, global int *out, global int *olds) {
    local atomic_int lc;
    int lid = get_local_id(0);
    if (lid == 0) atomic_init(&lc, 0);
    barrier(CLK_LOCAL_MEM_FENCE);
    // Per work-item: odd ones count in local memory, even ones in global.
    volatile atomic_int *p = (lid & 1) ? (volatile atomic_int *)&lc
                                       : (volatile atomic_int *)gc;
    int old = atomic_fetch_add(p, 1 + lid);
    olds[get_global_id(0)] = old >= 0;
    // Statically known spaces through a generic parameter.
    add_to(gc + 1, 2);
    add_to(&lc, 1000);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) out[get_group_id(0)] = atomic_load(&lc);
}
"#;

/// atomic_fetch_add through generic `volatile atomic_int *` pointers to
/// global and local memory, chosen per work-item, and through a generic
/// parameter.
#[test]
fn atomics_through_generic_pointers() {
    let wg = 32usize;
    let groups = 4usize;
    let n = wg * groups;
    let even: i32 = (0..wg as i32).filter(|l| l % 2 == 0).map(|l| 1 + l).sum();
    let odd: i32 = (0..wg as i32).filter(|l| l % 2 == 1).map(|l| 1 + l).sum();
    let cl = Cl::new();
    for options in MODES {
        let p = build(&cl, ATOMICS, options);
        let gc = cl.buffer_from(&[0i32, 0]);
        let out = cl.buffer::<i32>(groups);
        let olds = cl.buffer::<i32>(n);
        let k = p.kernel("k");
        k.arg(0, &gc).arg(1, &out).arg(2, &olds);
        cl.queue.run(&k, &[n], Some(&[wg]));
        assert_same(
            options,
            &cl.queue.read(&gc),
            &[even * groups as i32, 2 * n as i32],
        );
        assert_same(
            options,
            &cl.queue.read(&out),
            &vec![odd + 1000 * wg as i32; groups],
        );
        assert_same(options, &cl.queue.read(&olds), &vec![1; n]);
    }
}

const STRUCTS: &str = r#"
typedef struct { int a; short b; char c; int d[2]; } S;

__attribute__((noinline)) void update(S *s, int k) {
    s->a += k;
    s->b = (short)(s->b * 3);
    s->c = (char)(k & 0x7f);
    s->d[k & 1] -= k;
}

kernel void k(global S *gs, global int *out, int mode) {
    local S ls[32];
    int gid = get_global_id(0);
    int lid = get_local_id(0);
    S ps = gs[gid];
    ls[lid] = gs[gid];
    int sel = (gid + mode) % 3;
    S *p = sel == 0 ? (S *)&gs[gid] : sel == 1 ? (S *)&ls[lid] : &ps;
    update(p, gid);
    S *ptrs[3] = {(S *)&gs[gid], (S *)&ls[lid], &ps};
    S *r = ptrs[sel];
    out[5 * gid] = r->a;
    out[5 * gid + 1] = r->b;
    out[5 * gid + 2] = r->c;
    out[5 * gid + 3] = r->d[0];
    out[5 * gid + 4] = r->d[1];
}
"#;

/// Struct members (int, short, char, array) read and written through
/// generic pointers whose space is chosen per work-item, and generic
/// pointers kept in a private array and loaded back.
#[test]
fn struct_members_through_generic_pointers() {
    let n = 64usize;
    let wg = 32usize;
    // struct S: a @0, b @4, c @6, d @8..16; 16 bytes.
    let words: Vec<i32> = (0..n as i32)
        .flat_map(|i| {
            let b = (i * 5 - 7) as i16 as u16 as u32;
            let c = (i * 3) as u8 as u32;
            [100 + i, (b | c << 16) as i32, i * 11, -i]
        })
        .collect();
    let cl = Cl::new();
    for options in MODES {
        let p = build(&cl, STRUCTS, options);
        for mode in 0..3i32 {
            let gs = cl.buffer_from(&words);
            let out = cl.buffer::<i32>(5 * n);
            let k = p.kernel("k");
            k.arg(0, &gs).arg(1, &out).arg(2, &mode);
            cl.queue.run(&k, &[n], Some(&[wg]));
            let mut want = vec![0i32; 5 * n];
            let mut want_g = words.clone();
            for gid in 0..n {
                let k = gid as i32;
                // The initial values, then update(): c is overwritten.
                let (mut a, mut b, mut d) = (100 + k, (k * 5 - 7) as i16, [k * 11, -k]);
                a += k;
                b = b.wrapping_mul(3);
                let c = (k & 0x7f) as i8;
                d[(k & 1) as usize] -= k;
                want[5 * gid..5 * gid + 5].copy_from_slice(&[a, b as i32, c as i32, d[0], d[1]]);
                if (k + mode) % 3 == 0 {
                    let bc = (b as u16 as u32) | (c as u8 as u32) << 16;
                    want_g[4 * gid..4 * gid + 4].copy_from_slice(&[a, bc as i32, d[0], d[1]]);
                }
            }
            let what = format!("{options} mode {mode}");
            assert_same(&what, &cl.queue.read(&out), &want);
            let got_g = cl.queue.read(&gs);
            // The padding byte (7) of S is not compared.
            let mask = |v: &[i32]| -> Vec<i32> {
                v.iter()
                    .enumerate()
                    .map(|(i, &w)| if i % 4 == 1 { w & 0x00ff_ffff } else { w })
                    .collect()
            };
            assert_same(&what, &mask(&got_g), &mask(&want_g));
        }
    }
}

/// NULL pointers of the global, local and private spaces compare equal
/// through generic pointers, and unequal to pointers at objects. LLVM
/// folds the first comparisons into casts of NULL between named spaces,
/// which llvm-spirv-15 refused (the CTS's generic_address_space
/// `compare_pointers`: "Casts from private/local/global address space are
/// allowed only to generic").
#[test]
fn null_pointers_of_every_space_compare_equal() {
    const SRC: &str = r#"
kernel void nulls(global uint* r, global int* g) {
    local int l;
    int p = 0;
    int* ptr = NULL;
    local int* lptr = NULL;
    global int* gptr = NULL;
    private int* pptr = NULL;
    ptr = lptr;
    size_t i = get_global_id(0) * 6;
    r[i + 0] = (gptr == ptr) && (lptr == ptr);
    r[i + 1] = (int*)gptr == (int*)pptr;
    r[i + 2] = (int*)lptr == (int*)pptr;
    ptr = &l;
    r[i + 3] = ptr == (int*)gptr;
    ptr = g;
    r[i + 4] = ptr == (int*)lptr;
    ptr = &p;
    r[i + 5] = ptr != (int*)gptr;
}
"#;
    let cl = Cl::new();
    for options in MODES {
        let k = build(&cl, SRC, options).kernel("nulls");
        let r = cl.buffer_from(&[7u32; 4 * 6]);
        let g = cl.buffer_from(&[0i32; 4]);
        k.arg(0, &r).arg(1, &g);
        cl.queue.run(&k, &[4], Some(&[1]));
        let want: Vec<u32> = (0..4).flat_map(|_| [1, 1, 1, 0, 0, 1]).collect();
        assert_same(options, &cl.queue.read(&r), &want);
    }
}
