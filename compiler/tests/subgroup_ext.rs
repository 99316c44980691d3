//! The optional sub-group extensions' builds: calls in divergent branches
//! stay where they are, clustered reductions fit the sub-group, and
//! collectives on 8/16-wide vectors split into Vulkan-sized parts. Every
//! module passes `spirv-val --target-env vulkan1.2`.

use ferrocl_compiler::{
    build_source, compile_source, link_objects, DeviceCaps, Kernel, Linked, Program,
};
use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{GroupOperation, Op};

mod common;

fn caps() -> DeviceCaps {
    DeviceCaps {
        images: false,
        read_write_images: false,
        depth_images: false,
        mipmap_image: false,
        mipmap_image_write_args: 0,
        image2d_from_buffer_args: 0,
        ..common::test_caps()
    }
}

fn module(k: &Kernel) -> Module {
    let mut loader = rspirv::dr::Loader::new();
    rspirv::binary::parse_words(&k.spirv, &mut loader).expect("the module parses");
    loader.module()
}

fn validate(k: &Kernel) {
    common::spirv_val(k, "sgext");
}

fn kernel<'a>(p: &'a Program, name: &str) -> &'a Kernel {
    let k = p.kernels.iter().find(|k| k.name == name).expect("kernel");
    validate(k);
    k
}

fn insts(m: &Module) -> Vec<&Instruction> {
    m.functions
        .iter()
        .flat_map(|f| &f.blocks)
        .flat_map(|b| &b.instructions)
        .collect()
}

fn count(m: &Module, op: Op) -> usize {
    insts(m).iter().filter(|i| i.class.opcode == op).count()
}

/// The value of a 32-bit integer constant of `m`.
fn constant(m: &Module, id: u32) -> Option<u32> {
    m.types_global_values
        .iter()
        .find(|i| i.result_id == Some(id) && i.class.opcode == Op::Constant)
        .and_then(|i| match i.operands.first() {
            Some(Operand::LiteralBit32(v)) => Some(*v),
            _ => None,
        })
}

/// The sub-group operations of both arms of a branch, identical: clang's
/// -O2 would make one call of them after the branch, with every
/// work-item active.
const IDENTICAL_ARMS: &str = "\
kernel void first(global const int *in, global int *out) {
    size_t i = get_global_id(0);
    int x = in[i];
    if (get_sub_group_local_id() < get_sub_group_size() / 2)
        out[i] = sub_group_broadcast_first(x);
    else
        out[i] = sub_group_broadcast_first(x);
}
kernel void reduce(global const int *in, global int *out) {
    size_t i = get_global_id(0);
    int x = in[i];
    if (get_sub_group_local_id() < get_sub_group_size() / 2)
        out[i] = sub_group_non_uniform_reduce_add(x);
    else
        out[i] = sub_group_non_uniform_reduce_add(x);
}
";

fn check_identical_arms(p: &Program) {
    let first = module(kernel(p, "first"));
    assert_eq!(count(&first, Op::GroupNonUniformBroadcastFirst), 2);
    let reduce = module(kernel(p, "reduce"));
    assert_eq!(count(&reduce, Op::GroupNonUniformIAdd), 2);
}

#[test]
fn identical_calls_in_both_arms_stay_in_both() {
    let p = build_source(IDENTICAL_ARMS, "-cl-std=CL3.0", &caps()).unwrap();
    check_identical_arms(&p);
}

#[test]
fn identical_calls_in_both_arms_stay_in_both_through_an_include() {
    // The source itself names no sub-group function: the calls come from
    // an embedded header (clCompileProgram), and the link's -O2 sees them
    // again.
    let header = ("arms.h".to_string(), IDENTICAL_ARMS.to_string());
    let o = compile_source("#include \"arms.h\"\n", "-cl-std=CL3.0", &[header], &caps()).unwrap();
    match link_objects(&[&o.bitcode], "", &caps()).unwrap() {
        Linked::Executable(p) => check_identical_arms(&p),
        Linked::Library(_) => panic!("not an executable"),
    }
}

#[test]
fn identical_calls_in_both_arms_stay_in_both_through_an_include_directory() {
    // Only clang's output shows the calls (an -I directory's header): the
    // front end compiles again keeping them.
    let dir = std::env::temp_dir().join(format!("ferrocl-sgext-inc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("arms_inc.h"), IDENTICAL_ARMS).unwrap();
    let options = format!("-cl-std=CL3.0 -I{}", dir.display());
    let p = build_source("#include \"arms_inc.h\"\n", &options, &caps()).unwrap();
    check_identical_arms(&p);
}

#[test]
fn clustered_reductions_fit_the_sub_group() {
    let src = "\
kernel void k(global const int *in, global int *out, uint cs) {
    size_t i = get_global_id(0);
    int x = in[i];
    switch (cs) {
    case 1: out[i] = sub_group_clustered_reduce_add(x, 1); break;
    case 2: out[i] = sub_group_clustered_reduce_add(x, 2); break;
    case 8: out[i] = sub_group_clustered_reduce_add(x, 8); break;
    case 16: out[i] = sub_group_clustered_reduce_add(x, 16); break;
    case 32: out[i] = sub_group_clustered_reduce_add(x, 32); break;
    case 64: out[i] = sub_group_clustered_reduce_add(x, 64); break;
    case 128: out[i] = sub_group_clustered_reduce_add(x, 128); break;
    }
}
";
    // 32-wide sub-groups (NVIDIA).
    let caps = DeviceCaps {
        subgroup_size: 32,
        ..caps()
    };
    let p = build_source(src, "-cl-std=CL3.0", &caps).unwrap();
    let m = module(kernel(&p, "k"));
    let mut clustered = Vec::new();
    let mut plain = 0;
    for i in insts(&m) {
        if i.class.opcode != Op::GroupNonUniformIAdd {
            continue;
        }
        match i.operands[1] {
            Operand::GroupOperation(GroupOperation::ClusteredReduce) => {
                let size = i.operands[3].unwrap_id_ref();
                clustered.push(constant(&m, size).expect("a constant cluster size"));
            }
            Operand::GroupOperation(GroupOperation::Reduce) => plain += 1,
            ref g => panic!("unexpected group operation {g:?}"),
        }
    }
    clustered.sort();
    assert_eq!(clustered, [1, 2, 8, 16]);
    // 32, 64 and 128: the whole sub-group.
    assert_eq!(plain, 3);
}

#[test]
fn cluster_sizes_must_be_constant_powers_of_two() {
    let variable = "kernel void k(global int *o, uint cs) {\n\
                    o[0] = sub_group_clustered_reduce_add(o[1], cs);\n}\n";
    let e = build_source(variable, "-cl-std=CL3.0", &caps()).unwrap_err();
    assert!(
        e.log.contains("input.cl:2") && e.log.contains("compile-time constant"),
        "{}",
        e.log
    );
    let odd = "kernel void k(global int *o) {\n\
               o[0] = sub_group_clustered_reduce_min(o[1], 6);\n}\n";
    let e = build_source(odd, "-cl-std=CL3.0", &caps()).unwrap_err();
    assert!(
        e.log.contains("input.cl:2") && e.log.contains("cluster size 6 is not a power of two"),
        "{}",
        e.log
    );
}

#[test]
fn collectives_on_wide_vectors_split_into_parts() {
    let src = "\
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel void k(global int8 *a, global char16 *b, global double8 *c,
              global ushort16 *d, global float8 *e, global int4 *xy) {
    size_t i = get_global_id(0);
    a[i] = sub_group_broadcast(a[i], 3);
    b[i] = sub_group_broadcast(b[i], xy[i].z);
    c[i] = sub_group_broadcast(c[i], 1);
    if (xy[i].x < 4)
        d[i] = sub_group_non_uniform_broadcast(d[i], xy[i].w);
    e[i] = sub_group_non_uniform_broadcast(e[i], 2);
}
";
    let p = build_source(src, "-cl-std=CL3.0", &caps()).unwrap();
    let m = module(kernel(&p, "k"));
    // Constant ids: broadcasts; run-time ids: shuffles; one per 4-wide
    // part (int8: 2, char16: 4, double8: 2, ushort16: 4, float8: 2).
    assert_eq!(count(&m, Op::GroupNonUniformBroadcast), 2 + 2 + 2);
    assert_eq!(count(&m, Op::GroupNonUniformShuffle), 4 + 4);
}

#[test]
fn half_collectives_build_where_fp16_is_reported() {
    let src = "\
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void k(global half *h, global half8 *v, global half16 *w) {
    size_t i = get_global_id(0);
    half x = h[i];
    h[i] = sub_group_reduce_add(x) + sub_group_scan_inclusive_min(x)
        + sub_group_broadcast(x, 1) + sub_group_shuffle(x, 2u)
        + sub_group_shuffle_down(x, 1u) + sub_group_non_uniform_reduce_mul(x)
        + sub_group_clustered_reduce_max(x, 4) + sub_group_broadcast_first(x);
    v[i] = sub_group_broadcast(v[i], 2);
    w[i] = sub_group_non_uniform_broadcast(w[i], (uint)h[0]);
}
";
    let fp16 = DeviceCaps {
        fp16: true,
        ..caps()
    };
    let p = build_source(src, "-cl-std=CL3.0", &fp16).unwrap();
    let m = module(kernel(&p, "k"));
    assert!(count(&m, Op::GroupNonUniformFAdd) >= 1);
    assert_eq!(count(&m, Op::GroupNonUniformBroadcast), 1 + 2);
    // Without fp16, half is not a type of the program.
    let no_fp16 = DeviceCaps {
        fp16: false,
        ..caps()
    };
    let e = build_source(src, "-cl-std=CL3.0", &no_fp16).unwrap_err();
    assert!(e.log.contains("half"), "{}", e.log);
}

/// cl_khr_subgroup_rotate (`frontend::rotate`): every sub-group type, plain
/// and clustered, in both arms of a branch, through sub-group shuffles.
const ROTATES: &str = "\
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#ifndef cl_khr_subgroup_rotate
#error cl_khr_subgroup_rotate is not defined
#endif
kernel void k(global char *c, global uchar *uc, global short *s,
              global ushort *us, global int *i, global uint *ui,
              global long *l, global ulong *ul, global float *f,
              global double *d, int delta, uint cs) {
    size_t g = get_global_id(0);
    c[g] = sub_group_rotate(c[g], delta);
    uc[g] = sub_group_clustered_rotate(uc[g], delta, 4);
    s[g] = sub_group_rotate(s[g], -3);
    us[g] = sub_group_clustered_rotate(us[g], 1, 2);
    if (g & 1)
        i[g] = sub_group_rotate(i[g], delta);
    else
        i[g] = sub_group_rotate(i[g], delta);
    ui[g] = sub_group_clustered_rotate(ui[g], delta, cs);
    l[g] = sub_group_rotate(l[g], 5);
    ul[g] = sub_group_clustered_rotate(ul[g], delta, 8);
    f[g] = sub_group_rotate(f[g], delta);
    d[g] = sub_group_clustered_rotate(d[g], delta, 16);
}
";

#[test]
fn rotates_are_shuffles() {
    let p = build_source(ROTATES, "-cl-std=CL3.0", &caps()).unwrap();
    let m = module(kernel(&p, "k"));
    // One function per overload with one shuffle; one call per call (the
    // two arms' apart).
    assert_eq!(count(&m, Op::GroupNonUniformShuffle), 10);
    let shuffling: Vec<u32> = m
        .functions
        .iter()
        .filter(|f| {
            f.blocks
                .iter()
                .flat_map(|b| &b.instructions)
                .any(|i| i.class.opcode == Op::GroupNonUniformShuffle)
        })
        .filter_map(|f| f.def.as_ref().and_then(|d| d.result_id))
        .collect();
    assert_eq!(shuffling.len(), 10);
    let calls = insts(&m)
        .iter()
        .filter(|i| {
            i.class.opcode == Op::FunctionCall && shuffling.contains(&i.operands[0].unwrap_id_ref())
        })
        .count();
    assert_eq!(calls, 11);
    let words: Vec<u8> = p.kernels[0]
        .spirv
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    assert!(!String::from_utf8_lossy(&words).contains("SPV_KHR_subgroup_rotate"));
    // Through clCompileProgram and clLinkProgram too (OpenCL C 2.0).
    let o = compile_source(ROTATES, "-cl-std=CL2.0", &[], &caps()).unwrap();
    match link_objects(&[&o.bitcode], "", &caps()).unwrap() {
        Linked::Executable(p) => {
            // The link's -O2 inlines them: one shuffle per call.
            let m = module(kernel(&p, "k"));
            assert_eq!(count(&m, Op::GroupNonUniformShuffle), 11);
        }
        Linked::Library(_) => panic!("not an executable"),
    }
}

#[test]
fn rotate_needs_shuffles() {
    // Without Vulkan's shuffles the extension is not reported: no macro,
    // no functions.
    let no_shuffle = DeviceCaps {
        subgroup_ops: 0x7f & !ferrocl_compiler::SUBGROUP_SHUFFLE,
        ..caps()
    };
    assert!(!no_shuffle
        .subgroup_extensions()
        .iter()
        .any(|(n, _)| *n == "cl_khr_subgroup_rotate"));
    assert!(caps()
        .subgroup_extensions()
        .iter()
        .any(|(n, _)| *n == "cl_khr_subgroup_rotate"));
    let e = build_source(ROTATES, "-cl-std=CL3.0", &no_shuffle).unwrap_err();
    assert!(
        e.log.contains("cl_khr_subgroup_rotate is not defined"),
        "{}",
        e.log
    );
    let e = build_source(
        "kernel void k(global int *o) { o[0] = sub_group_rotate(o[1], 1); }",
        "-cl-std=CL3.0",
        &no_shuffle,
    )
    .unwrap_err();
    assert!(e.log.contains("sub_group_rotate"), "{}", e.log);
}
