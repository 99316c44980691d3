//! __local memory: a fixed-size __local array with barriers (tree
//! reduction, in-group reversal) and __local pointer arguments whose size
//! the host sets with clSetKernelArg(size, NULL): several of odd sizes
//! and alignments, and sizes past the device's.

use ferrocl_tests::{assert_same, device_string, device_value, testing_pocl, Cl, ClError, Local};
use opencl_sys::*;

const SOURCE: &str = r#"
#define GROUP 64

// Sum of each group's GROUP inputs, by a tree reduction in a __local array.
kernel void reduce_array(global const uint* in, global uint* sums) {
    __local uint scratch[GROUP];
    uint lid = get_local_id(0);
    scratch[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint stride = GROUP / 2; stride > 0; stride /= 2) {
        if (lid < stride)
            scratch[lid] += scratch[lid + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        sums[get_group_id(0)] = scratch[0];
}

// The same with the scratch space passed in; works for any power-of-two
// group size.
kernel void reduce_arg(global const uint* in, global uint* sums, local uint* scratch) {
    uint lid = get_local_id(0);
    scratch[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint stride = get_local_size(0) / 2; stride > 0; stride /= 2) {
        if (lid < stride)
            scratch[lid] += scratch[lid + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        sums[get_group_id(0)] = scratch[0];
}

// Reverses each group's slice: every work-item reads what another wrote.
kernel void reverse(global const float* in, global float* out) {
    __local float tile[GROUP];
    uint lid = get_local_id(0);
    tile[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tile[GROUP - 1 - lid];
}

// Two __local arguments of different types and sizes, between global ones.
kernel void two_locals(global const int* in, local int* ints, global int* out,
                       local short* shorts) {
    uint lid = get_local_id(0);
    uint n = get_local_size(0);
    ints[lid] = in[get_global_id(0)];
    shorts[lid] = (short)(lid * 3);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = ints[n - 1 - lid] * 1000 + shorts[(lid + 1) % n];
}
"#;

fn group_sums(input: &[u32], group: usize) -> Vec<u32> {
    input.chunks(group).map(|c| c.iter().sum()).collect()
}

#[test]
fn local_array_tree_reduction() {
    let cl = Cl::new();
    let (group, groups) = (64, 16);
    let input: Vec<u32> = (0..(group * groups) as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 16)
        .collect();
    let (din, sums) = (cl.buffer_from(&input), cl.buffer::<u32>(groups));
    let kernel = cl.kernel(SOURCE, "reduce_array");
    kernel.arg(0, &din).arg(1, &sums);
    cl.queue.run(&kernel, &[group * groups], Some(&[group]));
    assert_same("sums", &cl.queue.read(&sums), &group_sums(&input, group));
}

#[test]
fn local_pointer_argument_reduction() {
    let cl = Cl::new();
    for group in [16usize, 128] {
        let groups = 8;
        let input: Vec<u32> = (0..(group * groups) as u32).map(|i| i * i % 1009).collect();
        let (din, sums) = (cl.buffer_from(&input), cl.buffer::<u32>(groups));
        let kernel = cl.kernel(SOURCE, "reduce_arg");
        kernel
            .arg(0, &din)
            .arg(1, &sums)
            .arg(2, &Local(group * std::mem::size_of::<u32>()));
        cl.queue.run(&kernel, &[group * groups], Some(&[group]));
        assert_same(
            &format!("sums (group {group})"),
            &cl.queue.read(&sums),
            &group_sums(&input, group),
        );
    }
}

#[test]
fn local_array_exchange_between_work_items() {
    let cl = Cl::new();
    let (group, groups) = (64, 5);
    let input: Vec<f32> = (0..group * groups).map(|i| i as f32 - 100.0).collect();
    let (din, dout) = (cl.buffer_from(&input), cl.buffer::<f32>(group * groups));
    let kernel = cl.kernel(SOURCE, "reverse");
    kernel.arg(0, &din).arg(1, &dout);
    cl.queue.run(&kernel, &[group * groups], Some(&[group]));
    let want: Vec<f32> = input
        .chunks(group)
        .flat_map(|c| c.iter().rev().copied())
        .collect();
    assert_same("out", &cl.queue.read(&dout), &want);
}

#[test]
fn two_local_pointer_arguments() {
    let cl = Cl::new();
    let (group, groups) = (32usize, 3);
    let input: Vec<i32> = (0..(group * groups) as i32).map(|i| i * 7 - 50).collect();
    let (din, dout) = (cl.buffer_from(&input), cl.buffer::<i32>(group * groups));
    let kernel = cl.kernel(SOURCE, "two_locals");
    kernel
        .arg(0, &din)
        .arg(1, &Local(group * 4))
        .arg(2, &dout)
        .arg(3, &Local(group * 2));
    cl.queue.run(&kernel, &[group * groups], Some(&[group]));
    let want: Vec<i32> = input
        .chunks(group)
        .flat_map(|c| {
            (0..group).map(move |lid| c[group - 1 - lid] * 1000 + ((lid + 1) % group) as i32 * 3)
        })
        .collect();
    assert_same("out", &cl.queue.read(&dout), &want);
}

/// A kernel with 72 `__local` pointer arguments (and global ones between
/// them): their offsets do not fit the push constants (4 bytes each;
/// lavapipe has 128 bytes, NVIDIA 256), so they live in the argument
/// buffer (CTS api get_kernel_arg_info builds such kernels, up to 128
/// arguments). Each work-item writes its own word of every array, then
/// reads its neighbour's words back through all of them, weighted per
/// array: any two arrays sharing memory, or an offset read wrongly, change
/// the sums.
#[test]
fn many_local_pointer_arguments() {
    const N: usize = 72;
    let mut params = vec![
        "global const int* seed".to_string(),
        "global int* out".to_string(),
    ];
    let mut writes = String::new();
    let mut reads = String::new();
    for k in 0..N {
        params.push(format!("local int* a{k}"));
        writes.push_str(&format!("    a{k}[lid] = g * {} + lid + {k};\n", k + 1));
        reads.push_str(&format!("    s += a{k}[(lid + 1) % n] * {};\n", k % 5 + 1));
    }
    let source = format!(
        "kernel void many_locals({}) {{\n\
         int lid = get_local_id(0), n = get_local_size(0);\n\
         int g = seed[get_group_id(0)];\n{writes}\
         barrier(CLK_LOCAL_MEM_FENCE);\n\
         int s = 0;\n{reads}\
         out[get_global_id(0)] = s;\n}}\n",
        params.join(", ")
    );
    let cl = Cl::new();
    let (group, groups) = (16usize, 4usize);
    let seeds: Vec<i32> = (0..groups as i32).map(|i| i * 13 - 20).collect();
    let (dseed, dout) = (cl.buffer_from(&seeds), cl.buffer::<i32>(group * groups));
    let kernel = cl.kernel(&source, "many_locals");
    kernel.arg(0, &dseed).arg(1, &dout);
    for k in 0..N {
        // Sizes from one group's words to three times that.
        kernel.arg(2 + k as u32, &Local(group * 4 * (k % 3 + 1)));
    }
    cl.queue.run(&kernel, &[group * groups], Some(&[group]));
    let want: Vec<i32> = (0..group * groups)
        .map(|gid| {
            let (g, lid) = (seeds[gid / group], gid % group);
            let next = ((lid + 1) % group) as i32;
            (0..N as i32)
                .map(|k| (g * (k + 1) + next + k) * (k % 5 + 1))
                .sum()
        })
        .collect();
    assert_same("out", &cl.queue.read(&dout), &want);
}

/// `__local` pointer arguments of odd sizes and alignments (char, float4,
/// double16 pointees) after the kernel's own 12 bytes of `__local` data;
/// any overlap of their parts changes the sums.
const ODD_LOCALS: &str = r#"
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel void odd_locals(global const int* seed, global long* out,
                       local char* c, int nc, local float4* f, int nf,
                       local double16* d, int nd) {
    __local int own[3];
    int lid = get_local_id(0), n = get_local_size(0);
    int g = seed[get_group_id(0)];
    if (lid < 3) own[lid] = g + lid;
    for (int i = lid; i < nc; i += n) c[i] = (char)((g + 7 * i) & 127);
    for (int i = lid; i < nf; i += n) f[i] = (float4)(i, i + 1, i + 2, i + 3) + (float)g;
    for (int i = lid; i < nd; i += n)
        d[i] = (double16)(0.5 * i + g) + (double16)(0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0,
                                                    8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0);
    barrier(CLK_LOCAL_MEM_FENCE);
    long s = own[lid % 3];
    for (int i = n - 1 - lid; i < nc; i += n) s += c[i];
    for (int i = n - 1 - lid; i < nf; i += n)
        s += (long)(f[i].x + 2.0f * f[i].y + 3.0f * f[i].z + 4.0f * f[i].w);
    for (int i = n - 1 - lid; i < nd; i += n) {
        double16 v = d[i];
        s += (long)(2.0 * (v.s0 + v.s7 + v.sf));
    }
    out[get_global_id(0)] = s;
}
"#;

/// What `odd_locals` writes for work-item `gid` in groups of `n`.
fn odd_locals_reference(seeds: &[i32], n: usize, gid: usize, sizes: (usize, usize, usize)) -> i64 {
    let (nc, nf, nd) = sizes;
    let (lid, g) = (gid % n, i64::from(seeds[gid / n]));
    let mine = |len: usize| (n - 1 - lid..len).step_by(n).map(|i| i as i64);
    let mut s = g + (lid % 3) as i64;
    s += mine(nc).map(|i| (g + 7 * i) & 127).sum::<i64>();
    s += mine(nf).map(|i| 10 * (i + g) + 20).sum::<i64>();
    s += mine(nd).map(|i| 3 * i + 6 * g + 44).sum::<i64>();
    s
}

#[test]
fn local_pointer_arguments_of_odd_sizes_and_alignments() {
    let cl = Cl::new();
    if !device_string(cl.device(), CL_DEVICE_EXTENSIONS).contains("cl_khr_fp64") {
        eprintln!("no cl_khr_fp64: test skipped");
        return;
    }
    let kernel = cl.kernel(ODD_LOCALS, "odd_locals");
    let (n, groups) = (64usize, 3usize);
    let seeds = [5i32, 11, 100];
    let (seed, out) = (cl.buffer_from(&seeds), cl.buffer::<i64>(n * groups));
    kernel.arg(0, &seed).arg(1, &out);
    // Each combination launched three times in a row: on ferrocl the
    // first runs with the pipeline made for any sizes, later ones with
    // the one made for these (runtime/src/core/local_args.rs); the
    // results must not depend on which.
    for nc in [1usize, 3, 17, 1001] {
        for nf in [1usize, 5, 64] {
            for nd in [1usize, 3, 40] {
                kernel
                    .arg(2, &Local(nc))
                    .arg(3, &(nc as i32))
                    .arg(4, &Local(nf * 16))
                    .arg(5, &(nf as i32))
                    .arg(6, &Local(nd * 128))
                    .arg(7, &(nd as i32));
                let want: Vec<i64> = (0..n * groups)
                    .map(|gid| odd_locals_reference(&seeds, n, gid, (nc, nf, nd)))
                    .collect();
                for run in 0..3 {
                    cl.queue.run(&kernel, &[n * groups], Some(&[n]));
                    assert_same(
                        &format!("sizes ({nc}, {nf}, {nd}), run {run}"),
                        &cl.queue.read(&out),
                        &want,
                    );
                }
            }
        }
    }
}

#[test]
fn local_pointer_argument_larger_than_the_device() {
    let cl = Cl::new();
    let kernel = cl.kernel(SOURCE, "reduce_arg");
    let max: cl_ulong = device_value(cl.device(), CL_DEVICE_LOCAL_MEM_SIZE);
    let (din, sums) = (cl.buffer_from(&[1u32; 64]), cl.buffer::<u32>(1));
    kernel
        .arg(0, &din)
        .arg(1, &sums)
        .arg(2, &Local(max as usize + 4));
    // "CL_OUT_OF_RESOURCES if there is a failure to queue the execution
    // instance of kernel on the command-queue because of insufficient
    // resources needed to execute the kernel." PoCL's CPU device runs it
    // anyway (its local memory is host memory).
    let status = cl.queue.try_enqueue(&kernel, None, &[64], Some(&[64]));
    if testing_pocl() {
        cl.queue.finish();
    } else {
        assert_eq!(status, Err(ClError(CL_OUT_OF_RESOURCES)));
    }
    // The same kernel with a size that fits runs.
    kernel.arg(2, &Local(64 * 4));
    cl.queue.run(&kernel, &[64], Some(&[64]));
    assert_eq!(cl.queue.read(&sums), [64]);
}
