//! OpenCL C 2.0/3.0 atomics, fences and barriers with explicit orders and
//! scopes (`passes::lower::atomic`): each kernel's atomic and barrier
//! instructions carry the Vulkan scope and semantics of the mapping, for
//! -cl-std=CL2.0 and CL3.0 and both address formats; every module passes
//! spirv-val (the build runs it) and the rules of Vulkan's environment
//! checked below. `DeviceCaps::rmw_ordering` (lavapipe) trades the
//! semantics for read-modify-writes.

use ferrocl_compiler::{build_source, Addressing, DeviceCaps, Kernel};
use rspirv::dr::{load_words, Operand};
use rspirv::spirv::Op;
use std::collections::HashMap;

mod common;

fn caps(addressing: Addressing) -> DeviceCaps {
    DeviceCaps {
        addressing,
        ..common::test_caps()
    }
}

// Vulkan scopes.
const DEVICE: u32 = 1;
const WORKGROUP: u32 = 2;
const INVOCATION: u32 = 4;

// Vulkan semantics: orders and storage classes.
const ACQ: u32 = 0x2;
const REL: u32 = 0x4;
const ACQ_REL: u32 = 0x8;
const SEQ_CST: u32 = 0x10;
const UNIFORM: u32 = 0x40;
const WG_MEM: u32 = 0x100;
const IMAGE: u32 = 0x800;
/// What a non-relaxed atomic orders: global and local memory.
const BOTH: u32 = UNIFORM | WG_MEM;

/// One atomic or barrier instruction: opcode, bit width of the atomic's
/// value (0 for barriers), then scopes and semantics as constants.
#[derive(Debug, PartialEq, Eq, Clone)]
struct Sync {
    op: Op,
    width: u32,
    scopes: Vec<u32>,
    semantics: Vec<u32>,
}

fn sync(op: Op, width: u32, scopes: &[u32], semantics: &[u32]) -> Sync {
    Sync {
        op,
        width,
        scopes: scopes.to_vec(),
        semantics: semantics.to_vec(),
    }
}

fn atomic(op: Op, scope: u32, sem: u32) -> Sync {
    sync(op, 32, &[scope], &[sem])
}

fn fence(scope: u32, sem: u32) -> Sync {
    sync(Op::MemoryBarrier, 0, &[scope], &[sem])
}

/// The atomic and barrier instructions of a lowered kernel, in order.
fn syncs(k: &Kernel) -> Vec<Sync> {
    let m = load_words(&k.spirv).expect("the module parses");
    let mut consts = HashMap::new();
    let mut widths = HashMap::new();
    for i in &m.types_global_values {
        match (i.class.opcode, i.result_id, i.operands.first()) {
            (Op::Constant, Some(id), Some(Operand::LiteralBit32(v))) => {
                consts.insert(id, *v);
            }
            (Op::TypeInt, Some(id), Some(Operand::LiteralBit32(w))) => {
                widths.insert(id, *w);
            }
            _ => {}
        }
    }
    let c = |o: &Operand| consts[&o.id_ref_any().expect("an id operand")];
    let mut out = Vec::new();
    for f in &m.functions {
        for b in &f.blocks {
            for i in &b.instructions {
                let op = i.class.opcode;
                let o = &i.operands;
                let s = match op {
                    Op::ControlBarrier => sync(op, 0, &[c(&o[0]), c(&o[1])], &[c(&o[2])]),
                    Op::MemoryBarrier => sync(op, 0, &[c(&o[0])], &[c(&o[1])]),
                    Op::AtomicCompareExchange | Op::AtomicCompareExchangeWeak => {
                        sync(op, 0, &[c(&o[1])], &[c(&o[2]), c(&o[3])])
                    }
                    _ if format!("{op:?}").starts_with("Atomic") => {
                        sync(op, 0, &[c(&o[1])], &[c(&o[2])])
                    }
                    _ => continue,
                };
                let width = match (op, i.result_type) {
                    (Op::ControlBarrier | Op::MemoryBarrier, _) => 0,
                    (_, Some(t)) => widths[&t],
                    // OpAtomicStore: the width of the stored value's type.
                    (_, None) => {
                        let v = o[3].id_ref_any().expect("a value");
                        let t = m
                            .types_global_values
                            .iter()
                            .chain(f.blocks.iter().flat_map(|b| &b.instructions))
                            .find(|i| i.result_id == Some(v))
                            .and_then(|i| i.result_type)
                            .expect("stored value has a type");
                        widths[&t]
                    }
                };
                out.push(Sync { width, ..s });
            }
        }
    }
    out
}

/// Vulkan's rules for scopes and semantics (the part spirv-val leaves to
/// the environment or checks only in newer versions).
fn check_vulkan_rules(name: &str, s: &Sync) {
    for &sc in &s.scopes {
        assert!(
            matches!(sc, 1..=4),
            "{name}: {s:?}: scope must be Device/Workgroup/Subgroup/Invocation"
        );
    }
    for (k, &sem) in s.semantics.iter().enumerate() {
        assert_eq!(sem & SEQ_CST, 0, "{name}: {s:?}: SequentiallyConsistent");
        let orders = [ACQ, REL, ACQ_REL]
            .iter()
            .filter(|&&o| sem & o != 0)
            .count();
        assert!(orders <= 1, "{name}: {s:?}: several orders");
        assert_eq!(
            orders == 1,
            sem & (UNIFORM | WG_MEM | IMAGE) != 0,
            "{name}: {s:?}: an order needs storage classes and storage classes an order"
        );
        // Vulkan memory model (`DeviceCaps::vulkan_memory_model`):
        // MakeAvailable needs a release, MakeVisible an acquire.
        if sem & 0x2000 != 0 {
            assert_ne!(sem & (REL | ACQ_REL), 0, "{name}: {s:?}: MakeAvailable");
        }
        if sem & 0x4000 != 0 {
            assert_ne!(sem & (ACQ | ACQ_REL), 0, "{name}: {s:?}: MakeVisible");
        }
        let no_release =
            s.op == Op::AtomicLoad || (k == 1 && matches!(s.op, Op::AtomicCompareExchange));
        if no_release {
            assert_eq!(sem & (REL | ACQ_REL), 0, "{name}: {s:?}: release on a load");
        }
        if s.op == Op::AtomicStore {
            assert_eq!(
                sem & (ACQ | ACQ_REL),
                0,
                "{name}: {s:?}: acquire on a store"
            );
        }
    }
}

/// (kernel source, expected instructions) for 32-bit atomics on global
/// memory. `A` is `global atomic_int *a`, `o` is `global int *o`.
fn global_cases() -> Vec<(&'static str, Vec<Sync>)> {
    use Op::*;
    vec![
        // Implicit seq_cst, device scope.
        ("o[0] = atomic_load(a);", vec![atomic(AtomicLoad, DEVICE, ACQ | BOTH)]),
        ("atomic_store(a, 1);", vec![atomic(AtomicStore, DEVICE, REL | BOTH)]),
        (
            "o[0] = atomic_exchange(a, 2);",
            vec![atomic(AtomicExchange, DEVICE, ACQ_REL | BOTH)],
        ),
        (
            "o[0] = atomic_fetch_add(a, 2);",
            vec![atomic(AtomicIAdd, DEVICE, ACQ_REL | BOTH)],
        ),
        (
            "o[0] = atomic_fetch_sub(a, 2) + atomic_fetch_or(a, 1) + atomic_fetch_xor(a, 3) \
             + atomic_fetch_and(a, 7) + atomic_fetch_min(a, 5) + atomic_fetch_max(a, 9);",
            [
                AtomicISub, AtomicOr, AtomicXor, AtomicAnd, AtomicSMin, AtomicSMax,
            ]
            .iter()
            .map(|&op| atomic(op, DEVICE, ACQ_REL | BOTH))
            .collect(),
        ),
        (
            "global atomic_uint *u = (global atomic_uint *)a; \
             o[0] = atomic_fetch_min(u, 5u) + atomic_fetch_max(u, 9u);",
            vec![
                atomic(AtomicUMin, DEVICE, ACQ_REL | BOTH),
                atomic(AtomicUMax, DEVICE, ACQ_REL | BOTH),
            ],
        ),
        // Explicit orders.
        (
            "o[0] = atomic_load_explicit(a, memory_order_relaxed);",
            vec![atomic(AtomicLoad, DEVICE, 0)],
        ),
        (
            "o[0] = atomic_load_explicit(a, memory_order_acquire);",
            vec![atomic(AtomicLoad, DEVICE, ACQ | BOTH)],
        ),
        (
            "atomic_store_explicit(a, 1, memory_order_release);",
            vec![atomic(AtomicStore, DEVICE, REL | BOTH)],
        ),
        (
            "atomic_store_explicit(a, 1, memory_order_relaxed);",
            vec![atomic(AtomicStore, DEVICE, 0)],
        ),
        (
            "o[0] = atomic_fetch_add_explicit(a, 1, memory_order_acquire);",
            vec![atomic(AtomicIAdd, DEVICE, ACQ | BOTH)],
        ),
        (
            "o[0] = atomic_fetch_or_explicit(a, 1, memory_order_release);",
            vec![atomic(AtomicOr, DEVICE, REL | BOTH)],
        ),
        (
            "o[0] = atomic_fetch_xor_explicit(a, 1, memory_order_acq_rel);",
            vec![atomic(AtomicXor, DEVICE, ACQ_REL | BOTH)],
        ),
        (
            "o[0] = atomic_exchange_explicit(a, 1, memory_order_relaxed);",
            vec![atomic(AtomicExchange, DEVICE, 0)],
        ),
        // Explicit scopes: global atomics are device-wide whatever the
        // scope (all_svm_devices is device scope without SVM).
        (
            "o[0] = atomic_fetch_add_explicit(a, 1, memory_order_acq_rel, memory_scope_all_svm_devices);",
            vec![atomic(AtomicIAdd, DEVICE, ACQ_REL | BOTH)],
        ),
        (
            "o[0] = atomic_fetch_add_explicit(a, 1, memory_order_acquire, memory_scope_device);",
            vec![atomic(AtomicIAdd, DEVICE, ACQ | BOTH)],
        ),
        (
            "atomic_store_explicit(a, 1, memory_order_release, memory_scope_work_group);",
            vec![atomic(AtomicStore, DEVICE, REL | BOTH)],
        ),
        (
            "o[0] = atomic_fetch_add_explicit(a, 1, memory_order_relaxed, memory_scope_work_item);",
            vec![atomic(AtomicIAdd, DEVICE, 0)],
        ),
        // Compare-exchange: separate success and failure orders; weak is
        // strong.
        (
            "int e = 0; o[0] = atomic_compare_exchange_strong(a, &e, 1); o[1] = e;",
            vec![sync(AtomicCompareExchange, 32, &[DEVICE], &[ACQ_REL | BOTH, ACQ | BOTH])],
        ),
        (
            "int e = 0; o[0] = atomic_compare_exchange_weak(a, &e, 1); o[1] = e;",
            vec![sync(AtomicCompareExchange, 32, &[DEVICE], &[ACQ_REL | BOTH, ACQ | BOTH])],
        ),
        (
            "int e = 0; o[0] = atomic_compare_exchange_strong_explicit(a, &e, 1, \
             memory_order_release, memory_order_relaxed); o[1] = e;",
            vec![sync(AtomicCompareExchange, 32, &[DEVICE], &[REL | BOTH, 0])],
        ),
        (
            "int e = 0; o[0] = atomic_compare_exchange_weak_explicit(a, &e, 1, \
             memory_order_acquire, memory_order_acquire, memory_scope_work_group); o[1] = e;",
            vec![sync(AtomicCompareExchange, 32, &[DEVICE], &[ACQ | BOTH, ACQ | BOTH])],
        ),
        (
            "int e = 0; o[0] = atomic_compare_exchange_strong_explicit(a, &e, 1, \
             memory_order_relaxed, memory_order_relaxed, memory_scope_device); o[1] = e;",
            vec![sync(AtomicCompareExchange, 32, &[DEVICE], &[0, 0])],
        ),
        // Flags.
        (
            "global atomic_flag *f = (global atomic_flag *)a; o[0] = atomic_flag_test_and_set(f); \
             atomic_flag_clear(f);",
            vec![
                atomic(AtomicExchange, DEVICE, ACQ_REL | BOTH),
                atomic(AtomicStore, DEVICE, REL | BOTH),
            ],
        ),
        (
            "global atomic_flag *f = (global atomic_flag *)a; \
             o[0] = atomic_flag_test_and_set_explicit(f, memory_order_acquire, memory_scope_device); \
             atomic_flag_clear_explicit(f, memory_order_relaxed);",
            vec![
                atomic(AtomicExchange, DEVICE, ACQ | BOTH),
                atomic(AtomicStore, DEVICE, 0),
            ],
        ),
        // atomic_init is a plain store.
        ("atomic_init(a, 3);", vec![]),
        // Floats: load/store/exchange through integers.
        (
            "global atomic_float *f = (global atomic_float *)a; \
             float x = atomic_load_explicit(f, memory_order_acquire); \
             atomic_store(f, x + 1.0f); o[0] = (int)atomic_exchange(f, 2.0f);",
            vec![
                atomic(AtomicLoad, DEVICE, ACQ | BOTH),
                atomic(AtomicStore, DEVICE, REL | BOTH),
                atomic(AtomicExchange, DEVICE, ACQ_REL | BOTH),
            ],
        ),
        // The 1.x functions: relaxed, device-wide.
        (
            "o[0] = atomic_add((volatile global int *)a, 1) + atomic_cmpxchg((volatile global int *)a, 1, 2);",
            vec![
                atomic(AtomicIAdd, DEVICE, 0),
                sync(AtomicCompareExchange, 32, &[DEVICE], &[0, 0]),
            ],
        ),
        // Fences: the flags' storage classes, the order (seq_cst as
        // acq_rel), the scope; relaxed fences vanish.
        (
            "atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_release, memory_scope_device);",
            vec![fence(DEVICE, REL | UNIFORM)],
        ),
        (
            "atomic_work_item_fence(CLK_LOCAL_MEM_FENCE, memory_order_acquire, memory_scope_work_group);",
            vec![fence(WORKGROUP, ACQ | WG_MEM)],
        ),
        (
            "atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE, memory_order_seq_cst, \
             memory_scope_all_svm_devices);",
            vec![fence(DEVICE, ACQ_REL | BOTH)],
        ),
        (
            "atomic_work_item_fence(CLK_IMAGE_MEM_FENCE, memory_order_acq_rel, memory_scope_work_item);",
            vec![fence(INVOCATION, ACQ_REL | IMAGE)],
        ),
        (
            "atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_relaxed, memory_scope_device);",
            vec![],
        ),
        // 1.x fences: work-group scope.
        (
            "mem_fence(CLK_GLOBAL_MEM_FENCE); read_mem_fence(CLK_LOCAL_MEM_FENCE); \
             write_mem_fence(CLK_GLOBAL_MEM_FENCE);",
            vec![
                fence(WORKGROUP, ACQ_REL | UNIFORM),
                fence(WORKGROUP, ACQ | WG_MEM),
                fence(WORKGROUP, REL | UNIFORM),
            ],
        ),
        // Barriers: acq_rel on the flags' memory.
        (
            "barrier(CLK_LOCAL_MEM_FENCE); \
             work_group_barrier(CLK_GLOBAL_MEM_FENCE, memory_scope_device); \
             work_group_barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);",
            vec![
                sync(Op::ControlBarrier, 0, &[WORKGROUP, WORKGROUP], &[ACQ_REL | WG_MEM]),
                sync(Op::ControlBarrier, 0, &[WORKGROUP, DEVICE], &[ACQ_REL | UNIFORM]),
                sync(Op::ControlBarrier, 0, &[WORKGROUP, WORKGROUP], &[ACQ_REL | BOTH]),
            ],
        ),
    ]
}

fn build(src: &str, options: &str, caps: &DeviceCaps) -> Vec<Sync> {
    let p = build_source(src, options, caps)
        .unwrap_or_else(|e| panic!("{options}: build failed:\n{}\n{src}", e.log));
    assert_eq!(p.kernels.len(), 1);
    let s = syncs(&p.kernels[0]);
    for x in &s {
        check_vulkan_rules(src, x);
    }
    s
}

const STDS: [&str; 2] = ["-cl-std=CL2.0", "-cl-std=CL3.0"];
const ADDRESSINGS: [Addressing; 2] = [Addressing::Physical, Addressing::Descriptor];

#[test]
fn global_atomics_and_fences_carry_vulkan_orders_and_scopes() {
    for addressing in ADDRESSINGS {
        let caps = caps(addressing);
        for (body, want) in global_cases() {
            let src = format!("kernel void k(global atomic_int *a, global int *o) {{ {body} }}");
            for std in STDS {
                let got = build(&src, std, &caps);
                assert_eq!(got, want, "{addressing:?} {std}: {body}");
            }
        }
    }
}

#[test]
fn local_atomics_have_work_group_scope() {
    use Op::*;
    let cases = vec![
        (
            "atomic_store_explicit(l, 1, memory_order_release, memory_scope_work_group); \
             o[0] = atomic_load_explicit(l, memory_order_acquire, memory_scope_work_group);",
            vec![
                atomic(AtomicStore, WORKGROUP, REL | BOTH),
                atomic(AtomicLoad, WORKGROUP, ACQ | BOTH),
            ],
        ),
        (
            // Local atomics ignore the scope (device scope included).
            "o[0] = atomic_fetch_add(l, 1) + atomic_fetch_max_explicit(l, 3, memory_order_relaxed);",
            vec![
                atomic(AtomicIAdd, WORKGROUP, ACQ_REL | BOTH),
                atomic(AtomicSMax, WORKGROUP, 0),
            ],
        ),
        (
            "int e = 1; o[0] = atomic_compare_exchange_strong_explicit(l, &e, 2, memory_order_acq_rel, \
             memory_order_acquire, memory_scope_work_group); o[1] = e;",
            vec![sync(AtomicCompareExchange, 32, &[WORKGROUP], &[ACQ_REL | BOTH, ACQ | BOTH])],
        ),
        (
            "local atomic_int x; if (get_local_id(0) == 0) atomic_init(&x, 0); \
             work_group_barrier(CLK_LOCAL_MEM_FENCE); \
             o[0] = atomic_fetch_sub_explicit(&x, 1, memory_order_seq_cst, memory_scope_device);",
            vec![
                sync(ControlBarrier, 0, &[WORKGROUP, WORKGROUP], &[ACQ_REL | WG_MEM]),
                atomic(AtomicISub, WORKGROUP, ACQ_REL | BOTH),
            ],
        ),
    ];
    for addressing in ADDRESSINGS {
        let caps = caps(addressing);
        for (body, want) in &cases {
            let src = format!("kernel void k(local atomic_int *l, global int *o) {{ {body} }}");
            for std in STDS {
                assert_eq!(
                    build(&src, std, &caps),
                    *want,
                    "{addressing:?} {std}: {body}"
                );
            }
        }
    }
}

#[test]
fn sixty_four_bit_atomics_on_global_memory() {
    use Op::*;
    let src =
        "kernel void k(global atomic_long *a, global atomic_ulong *u, global atomic_double *d,
                             global long *o) {
        o[0] = atomic_fetch_add(a, 5) + atomic_fetch_min_explicit(a, -3, memory_order_acquire);
        o[1] = atomic_fetch_max_explicit(u, 7ul, memory_order_relaxed, memory_scope_device);
        long e = 3;
        o[2] = atomic_compare_exchange_strong_explicit(a, &e, 9, memory_order_acq_rel,
                                                       memory_order_relaxed, memory_scope_device);
        o[3] = e;
        atomic_store_explicit(d, atomic_load(d) + 1.0, memory_order_release);
        o[4] = (long)atomic_exchange(d, 2.0);
    }";
    let want = vec![
        sync(AtomicIAdd, 64, &[DEVICE], &[ACQ_REL | BOTH]),
        sync(AtomicSMin, 64, &[DEVICE], &[ACQ | BOTH]),
        sync(AtomicUMax, 64, &[DEVICE], &[0]),
        sync(AtomicCompareExchange, 64, &[DEVICE], &[ACQ_REL | BOTH, 0]),
        sync(AtomicLoad, 64, &[DEVICE], &[ACQ | BOTH]),
        sync(AtomicStore, 64, &[DEVICE], &[REL | BOTH]),
        sync(AtomicExchange, 64, &[DEVICE], &[ACQ_REL | BOTH]),
    ];
    for addressing in ADDRESSINGS {
        for std in STDS {
            let got = build(src, std, &caps(addressing));
            assert_eq!(got, want, "{addressing:?} {std}");
        }
    }
    // Without 64-bit atomics on the device: cl_khr_int64_base_atomics and
    // _extended_atomics are switched off, so atomic_long and the 64-bit
    // atom_* functions are undeclared (clang's error).
    let no64 = DeviceCaps {
        int64_atomics: false,
        ..caps(Addressing::Physical)
    };
    let e = build_source(src, "-cl-std=CL3.0", &no64).expect_err("fails");
    assert!(e.log.contains("atomic_long"), "{}", e.log);
    let macros = |defined: bool| {
        let test = if defined { "!defined" } else { "defined" };
        format!(
            "kernel void k(global long *l) {{
            #if {test}(cl_khr_int64_base_atomics) || {test}(cl_khr_int64_extended_atomics)
            #error int64 atomics macros
            #endif
            }}"
        )
    };
    build_source(&macros(false), "", &no64).unwrap_or_else(|e| panic!("{}", e.log));
    let with = caps(Addressing::Physical);
    build_source(&macros(true), "", &with).unwrap_or_else(|e| panic!("{}", e.log));
}

/// 64-bit atomics on `__local` memory (`passes::lower::local64`): each
/// becomes a call of a helper that takes a work-group lock word with an
/// acquire compare-exchange, reads and writes the object's two 32-bit
/// words with relaxed atomics and releases the lock, inside a structured
/// loop; the entry function clears the lock words and runs a barrier
/// first. No 64-bit atomic instruction (nor Int64Atomics) is emitted, and
/// the lock words count in the kernel's static `__local` size.
#[test]
fn sixty_four_bit_atomics_on_local_memory() {
    use Op::*;
    let src = "kernel void k(local atomic_long *l, local atomic_double *d, global long *o) {
        o[0] = atomic_fetch_add(l, 5);
        o[1] = atomic_fetch_min_explicit(l, -3, memory_order_relaxed, memory_scope_work_group);
        o[2] = (long)atomic_exchange_explicit(d, 2.0, memory_order_relaxed);
    }";
    // The entry: the lock words cleared, a barrier.
    let mut init = vec![atomic(AtomicStore, WORKGROUP, 0); 8];
    init.push(sync(
        ControlBarrier,
        0,
        &[WORKGROUP, WORKGROUP],
        &[ACQ_REL | WG_MEM],
    ));
    // One helper: lock, two word loads, two word stores (none for a load),
    // unlock; `storage` of the lock's acquire/release.
    let helper = |storage: u32, rmw: bool| {
        let (acq, rel) = if rmw {
            (0, 0)
        } else {
            (ACQ | storage, REL | storage)
        };
        let mut v = vec![
            sync(AtomicCompareExchange, 32, &[WORKGROUP], &[acq, 0]),
            atomic(AtomicLoad, WORKGROUP, 0),
            atomic(AtomicLoad, WORKGROUP, 0),
            atomic(AtomicStore, WORKGROUP, 0),
            atomic(AtomicStore, WORKGROUP, 0),
        ];
        v.push(if rmw {
            atomic(AtomicExchange, WORKGROUP, 0)
        } else {
            atomic(AtomicStore, WORKGROUP, rel)
        });
        v
    };
    for rmw in [false, true] {
        for addressing in ADDRESSINGS {
            let caps = DeviceCaps {
                rmw_ordering: rmw,
                ..caps(addressing)
            };
            for std in STDS {
                let what = format!("rmw {rmw} {addressing:?} {std}");
                let p = build_source(src, std, &caps)
                    .unwrap_or_else(|e| panic!("{what}: build failed:\n{}", e.log));
                let k = &p.kernels[0];
                let got = syncs(k);
                for x in &got {
                    check_vulkan_rules(&what, x);
                }
                // add (seq_cst: ordered), min (relaxed); the exchange
                // (relaxed) shares min's lock semantics but not its helper.
                let mut want = init.clone();
                want.extend(helper(BOTH, rmw));
                want.extend(helper(WG_MEM, rmw));
                want.extend(helper(WG_MEM, rmw));
                assert_eq!(got, want, "{what}");
                let m = load_words(&k.spirv).expect("the module parses");
                let count = |op: Op| {
                    m.functions
                        .iter()
                        .flat_map(|f| f.all_inst_iter())
                        .filter(|i| i.class.opcode == op)
                        .count()
                };
                assert_eq!(count(LoopMerge), 3, "{what}: one loop per helper");
                let helpers: Vec<u32> = m
                    .functions
                    .iter()
                    .filter(|f| f.all_inst_iter().any(|i| i.class.opcode == LoopMerge))
                    .filter_map(|f| f.def_id())
                    .collect();
                let calls = m
                    .functions
                    .iter()
                    .flat_map(|f| f.all_inst_iter())
                    .filter(|i| i.class.opcode == FunctionCall)
                    .filter(|i| helpers.contains(&i.operands[0].id_ref_any().unwrap_or(0)))
                    .count();
                assert_eq!(calls, 3, "{what}: one call per atomic");
                assert!(
                    !m.capabilities.iter().any(|c| c.operands[0]
                        == Operand::Capability(rspirv::spirv::Capability::Int64Atomics)),
                    "{what}: Int64Atomics"
                );
                // 8 lock words, after no static __local data but the
                // free word at offset 0 (the kernel converts `__local`
                // pointers to generic: `lower::generic`'s NULL).
                assert_eq!(k.static_local_size, 4 + 32, "{what}");
            }
        }
    }
    // Static __local data first, then the locks.
    let src = "kernel void k(global long *o) {
        local long x[3];
        if (get_local_id(0) == 0) x[1] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        o[0] = atom_add(&x[1], 1L << 40);
    }";
    let p =
        build_source(src, "", &caps(Addressing::Physical)).unwrap_or_else(|e| panic!("{}", e.log));
    assert_eq!(p.kernels[0].static_local_size, 24 + 32);
}

#[test]
fn atomic_feature_macros_are_defined_for_cl3() {
    // The orders and scopes CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES reports;
    // memory_scope_all_devices exists only with its feature.
    let src = "kernel void k(global atomic_int *a, global int *o) {
        #if !defined(__opencl_c_atomic_order_acq_rel) || !defined(__opencl_c_atomic_order_seq_cst) \\
            || !defined(__opencl_c_atomic_scope_device) || !defined(__opencl_c_atomic_scope_all_devices)
        #error atomic feature macro missing
        #endif
        o[0] = atomic_fetch_add_explicit(a, 1, memory_order_seq_cst, memory_scope_all_devices);
    }";
    let got = build(src, "-cl-std=CL3.0", &caps(Addressing::Physical));
    assert_eq!(got, vec![atomic(Op::AtomicIAdd, DEVICE, ACQ_REL | BOTH)]);
}

#[test]
fn rmw_ordering_orders_without_memory_semantics() {
    // DeviceCaps::rmw_ordering (lavapipe): no semantics anywhere; ordered
    // loads and stores become read-modify-writes, ordered fences an
    // increment of a Workgroup word; barriers keep theirs.
    use Op::*;
    let src = "kernel void k(global atomic_int *a, local atomic_int *l, global int *o) {
        o[0] = atomic_load(a);
        o[1] = atomic_load_explicit(a, memory_order_relaxed);
        atomic_store(a, 1);
        atomic_store_explicit(a, 2, memory_order_relaxed);
        o[2] = atomic_fetch_add(a, 1);
        int e = 0;
        o[3] = atomic_compare_exchange_strong(a, &e, 1);
        atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acq_rel, memory_scope_device);
        atomic_work_item_fence(CLK_LOCAL_MEM_FENCE, memory_order_relaxed, memory_scope_work_group);
        work_group_barrier(CLK_GLOBAL_MEM_FENCE);
        atomic_flag_clear((global atomic_flag *)a);
        atomic_store_explicit(l, 3, memory_order_release, memory_scope_work_group);
        o[4] = atomic_load_explicit(l, memory_order_acquire, memory_scope_work_group);
    }";
    let want = vec![
        atomic(AtomicOr, DEVICE, 0),
        atomic(AtomicLoad, DEVICE, 0),
        atomic(AtomicExchange, DEVICE, 0),
        atomic(AtomicStore, DEVICE, 0),
        atomic(AtomicIAdd, DEVICE, 0),
        sync(AtomicCompareExchange, 32, &[DEVICE], &[0, 0]),
        atomic(AtomicIIncrement, WORKGROUP, 0),
        sync(
            ControlBarrier,
            0,
            &[WORKGROUP, WORKGROUP],
            &[ACQ_REL | UNIFORM],
        ),
        atomic(AtomicExchange, DEVICE, 0),
        atomic(AtomicExchange, WORKGROUP, 0),
        atomic(AtomicOr, WORKGROUP, 0),
    ];
    for addressing in ADDRESSINGS {
        let caps = DeviceCaps {
            rmw_ordering: true,
            ..caps(addressing)
        };
        for std in STDS {
            assert_eq!(build(src, std, &caps), want, "{addressing:?} {std}");
        }
    }
}

#[test]
fn vulkan_memory_model_for_ordered_atomics() {
    // DeviceCaps::vulkan_memory_model (passes::lower::vmm): a kernel with
    // an ordered atomic or fence is emitted in the Vulkan memory model;
    // acquire/release semantics get MakeVisible/MakeAvailable, plain loads
    // and stores of global and local memory NonPrivatePointer. A kernel
    // with only relaxed atomics and barriers keeps GLSL450 unchanged.
    use Op::*;
    const AV: u32 = 0x2000;
    const VIS: u32 = 0x4000;
    let src = "kernel void k(global atomic_int *a, global int *d, local int *s, global int *o) {
        d[get_global_id(0)] = 1;
        s[get_local_id(0)] = 2;
        atomic_store_explicit(a, 1, memory_order_release);
        o[0] = atomic_load_explicit(a, memory_order_acquire);
        int e = 0;
        o[1] = atomic_compare_exchange_strong(a, &e, 1);
        o[2] = atomic_fetch_add_explicit(a, 1, memory_order_relaxed);
        work_group_barrier(CLK_LOCAL_MEM_FENCE);
        o[3] = s[0] + d[0];
    }";
    let relaxed = "kernel void r(global atomic_int *a, global int *o) {
        o[0] = atomic_fetch_add_explicit(a, 1, memory_order_relaxed);
        work_group_barrier(CLK_GLOBAL_MEM_FENCE);
    }";
    let want = vec![
        atomic(AtomicStore, DEVICE, REL | AV | BOTH),
        atomic(AtomicLoad, DEVICE, ACQ | VIS | BOTH),
        sync(
            AtomicCompareExchange,
            32,
            &[DEVICE],
            &[ACQ_REL | AV | VIS | BOTH, ACQ | VIS | BOTH],
        ),
        atomic(AtomicIAdd, DEVICE, 0),
        sync(
            ControlBarrier,
            0,
            &[WORKGROUP, WORKGROUP],
            &[ACQ_REL | AV | VIS | WG_MEM],
        ),
    ];
    for addressing in ADDRESSINGS {
        let vmm = DeviceCaps {
            vulkan_memory_model: true,
            ..caps(addressing)
        };
        for std in STDS {
            assert_eq!(build(src, std, &vmm), want, "{addressing:?} {std}");
            let k = build_source(src, std, &vmm).expect("builds").kernels;
            let m = load_words(&k[0].spirv).expect("the module parses");
            let model = m.memory_model.as_ref().expect("a memory model");
            assert_eq!(
                model.operands[1],
                Operand::MemoryModel(rspirv::spirv::MemoryModel::Vulkan)
            );
            let caps_: Vec<_> = m
                .capabilities
                .iter()
                .map(|c| c.operands[0].clone())
                .collect();
            for c in [
                rspirv::spirv::Capability::VulkanMemoryModel,
                rspirv::spirv::Capability::VulkanMemoryModelDeviceScope,
            ] {
                assert!(caps_.contains(&Operand::Capability(c)), "{c:?}");
            }
            // Every plain load/store of global or local memory is
            // non-private (at least the four of the source).
            let nonprivate = m
                .all_inst_iter()
                .filter(|i| matches!(i.class.opcode, Load | Store))
                .filter(|i| {
                    i.operands.iter().any(|o| {
                        matches!(o, Operand::MemoryAccess(ma)
                            if ma.contains(rspirv::spirv::MemoryAccess::NON_PRIVATE_POINTER))
                    })
                })
                .count();
            assert!(nonprivate >= 4, "{addressing:?} {std}: {nonprivate}");
            // Relaxed atomics and barriers only: GLSL450, the same module
            // as without the capability.
            let plain = build_source(relaxed, std, &caps(addressing)).expect("builds");
            let same = build_source(relaxed, std, &vmm).expect("builds");
            assert_eq!(plain.kernels[0].spirv, same.kernels[0].spirv);
        }
    }
}
