//! async_work_group_copy / async_work_group_strided_copy /
//! wait_group_events (CTS test_basic async_* subtests): each group copies
//! more elements than it has work-items (and a count that is not a
//! multiple of the group size), with gathers and scatters by a stride.

use ferrocl_tests::{assert_same, Cl, Local};

const SOURCE: &str = r#"
// Group g: local[i] = src[(g * n + i) * stride] for i < n, then
// dst[(g * n + i) * stride] = local[i] * 2 (strided scatter back), and
// copy[g * n + i] = local[i] (plain copy), chained by one event.
kernel void gather_scatter(global const int *src, global int *dst, global int *copy,
                           local int *tile, int n, int stride) {
    size_t g = get_group_id(0);
    event_t e = async_work_group_strided_copy(tile, src + g * n * stride, (size_t)n,
                                              (size_t)stride, 0);
    wait_group_events(1, &e);
    for (int i = get_local_id(0); i < n; i += get_local_size(0))
        tile[i] *= 2;
    barrier(CLK_LOCAL_MEM_FENCE);
    event_t ev[2];
    ev[0] = async_work_group_strided_copy(dst + g * n * stride, tile, (size_t)n,
                                          (size_t)stride, 0);
    ev[1] = async_work_group_copy(copy + g * n, tile, (size_t)n, ev[0]);
    wait_group_events(2, ev);
}
"#;

#[test]
fn strided_gather_scatter_and_plain_copy() {
    let cl = Cl::new();
    let (group, groups, n, stride) = (16usize, 3usize, 37usize, 3usize);
    let len = groups * n * stride;
    let input: Vec<i32> = (0..len as i32).map(|i| i * 5 - 7).collect();
    let din = cl.buffer_from(&input);
    let dst = cl.buffer_from(&vec![-1i32; len]);
    let copy = cl.buffer::<i32>(groups * n);
    let kernel = cl.kernel(SOURCE, "gather_scatter");
    kernel
        .arg(0, &din)
        .arg(1, &dst)
        .arg(2, &copy)
        .arg(3, &Local(n * 4))
        .arg(4, &(n as i32))
        .arg(5, &(stride as i32));
    cl.queue.run(&kernel, &[group * groups], Some(&[group]));
    let want_dst: Vec<i32> = (0..len)
        .map(|k| if k % stride == 0 { input[k] * 2 } else { -1 })
        .collect();
    let want_copy: Vec<i32> = (0..groups * n).map(|k| input[k * stride] * 2).collect();
    assert_same("dst", &cl.queue.read(&dst), &want_dst);
    assert_same("copy", &cl.queue.read(&copy), &want_copy);
}
