//! __local memory: a fixed-size __local array with barriers (tree
//! reduction, in-group reversal) and __local pointer arguments whose size
//! the host sets with clSetKernelArg(size, NULL).

use ferrocl_tests::{assert_same, Cl, Local};

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
