//! Fine-grained buffer SVM and SVM atomics: the host reads and writes
//! CL_MEM_SVM_FINE_GRAIN_BUFFER allocations in place, without map or
//! unmap, between commands (host writes before an enqueue reach the
//! kernel; a kernel's writes reach the host once its completion is
//! waited for, by clFinish or by its event); pointers stored in the
//! memory work on both sides; map and unmap still work as ordering
//! points; the capability queries are exact per device. Where the device
//! reports CL_DEVICE_SVM_ATOMICS, the proof that it holds: a kernel and
//! the host hand a flag to and fro *while the kernel runs*, and both add
//! to one counter at the same time without losing an update. ferrocl's
//! design and what it promises per device: runtime/src/core/svm.rs,
//! docs/design.md "Unified memory".
//!
//! Each test is skipped (with a line saying so) where the device lacks
//! what it tests; on ferrocl over lavapipe nothing is skipped
//! ([`capabilities_per_device`] requires every capability there).

use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::{AtomicI32, AtomicU32, Ordering};
use std::time::{Duration, Instant};

use ferrocl_tests::sys::*;
use ferrocl_tests::{assert_same, check, device_string, device_value, Cl, Kernel};

fn testing_ferrocl_on_lavapipe(cl: &Cl) -> bool {
    !ferrocl_tests::info::testing_pocl()
        && device_string(cl.device(), CL_DEVICE_NAME).contains("llvmpipe")
}

fn svm_caps(cl: &Cl) -> cl_device_svm_capabilities {
    device_value(cl.device(), CL_DEVICE_SVM_CAPABILITIES)
}

/// Whether the device has `caps` (else the test is skipped).
fn has(cl: &Cl, caps: cl_device_svm_capabilities, what: &str) -> bool {
    if svm_caps(cl) & caps != caps {
        eprintln!("skipped: no {what} on this device");
        return false;
    }
    true
}

/// A fine-grained SVM allocation (with `extra` flags), freed on drop.
struct Fine<'a> {
    cl: &'a Cl,
    ptr: *mut c_void,
}

impl<'a> Fine<'a> {
    fn new(cl: &'a Cl, bytes: usize, extra: cl_svm_mem_flags) -> Self {
        let flags = CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER | extra;
        // SAFETY: valid context, default alignment.
        let ptr = unsafe { clSVMAlloc(cl.raw(), flags, bytes, 0) };
        assert!(
            !ptr.is_null(),
            "clSVMAlloc({bytes}, {flags:#x}) returned NULL"
        );
        Fine { cl, ptr }
    }

    fn at<T>(&self, index: usize) -> *mut T {
        // SAFETY: callers stay inside the allocation.
        unsafe { self.ptr.cast::<T>().add(index) }
    }
}

impl Drop for Fine<'_> {
    fn drop(&mut self) {
        self.cl.queue.finish();
        // SAFETY: allocated by clSVMAlloc in this context; no command uses it.
        unsafe { clSVMFree(self.cl.raw(), self.ptr) };
    }
}

fn set_svm_arg(k: &Kernel, index: u32, p: *const c_void) {
    // SAFETY: valid kernel; a pointer into an SVM allocation.
    check(
        unsafe { clSetKernelArgSVMPointer(k.raw(), index, p) },
        "clSetKernelArgSVMPointer",
    );
}

/// Enqueues `k` over `n` work-items and returns its event (not waited for).
fn enqueue(cl: &Cl, k: &Kernel, n: usize) -> cl_event {
    let mut ev = ptr::null_mut();
    // SAFETY: valid queue and kernel, one dimension.
    check(
        unsafe {
            clEnqueueNDRangeKernel(
                cl.queue.raw(),
                k.raw(),
                1,
                ptr::null(),
                &n,
                ptr::null(),
                0,
                ptr::null(),
                &mut ev,
            )
        },
        "clEnqueueNDRangeKernel",
    );
    ev
}

/// A scalar clGetEventInfo answer.
fn event_value<T: Default + Copy>(ev: cl_event, param: cl_event_info) -> T {
    let mut v = T::default();
    // SAFETY: a live event; a T-sized out value.
    check(
        unsafe {
            clGetEventInfo(
                ev,
                param,
                std::mem::size_of::<T>(),
                (&mut v as *mut T).cast(),
                ptr::null_mut(),
            )
        },
        "clGetEventInfo",
    );
    v
}

fn wait_and_release(ev: cl_event) {
    // SAFETY: a live event of this test.
    unsafe {
        check(clWaitForEvents(1, &ev), "clWaitForEvents");
        check(clReleaseEvent(ev), "clReleaseEvent");
    }
}

/// CL_DEVICE_SVM_CAPABILITIES per device, exactly: ferrocl over lavapipe
/// (a CPU device, kernels on the host's cores) has coarse- and
/// fine-grained buffers and SVM atomics; any other ferrocl device has
/// fine grain wherever it has coarse grain (its shared memory is always
/// host-coherent) and no SVM atomics unless it is a CPU device; nothing
/// has fine-grained system SVM. The USM host and shared capabilities
/// follow: concurrent access exactly where SVM atomics hold.
#[test]
fn capabilities_per_device() {
    let cl = Cl::new();
    let caps = svm_caps(&cl);
    let buffer = CL_DEVICE_SVM_COARSE_GRAIN_BUFFER | CL_DEVICE_SVM_FINE_GRAIN_BUFFER;
    if testing_ferrocl_on_lavapipe(&cl) {
        assert_eq!(caps, buffer | CL_DEVICE_SVM_ATOMICS, "ferrocl on lavapipe");
    }
    if ferrocl_tests::info::testing_pocl() {
        return;
    }
    let cpu = device_value::<cl_device_type>(cl.device(), CL_DEVICE_TYPE) == CL_DEVICE_TYPE_CPU;
    if caps != 0 {
        assert_eq!(caps & buffer, buffer, "fine grain with coarse grain");
        assert_eq!(caps & CL_DEVICE_SVM_FINE_GRAIN_SYSTEM, 0, "no system SVM");
        if !cpu {
            assert_eq!(caps & CL_DEVICE_SVM_ATOMICS, 0, "SVM atomics on a GPU");
        }
    }
    let usm = |q| device_value::<u64>(cl.device(), q);
    let access =
        CL_UNIFIED_SHARED_MEMORY_ACCESS_INTEL | CL_UNIFIED_SHARED_MEMORY_ATOMIC_ACCESS_INTEL;
    let concurrent = CL_UNIFIED_SHARED_MEMORY_CONCURRENT_ACCESS_INTEL
        | CL_UNIFIED_SHARED_MEMORY_CONCURRENT_ATOMIC_ACCESS_INTEL;
    let want = if caps & CL_DEVICE_SVM_ATOMICS != 0 {
        access | concurrent
    } else if caps != 0 {
        access
    } else {
        0
    };
    for q in [
        CL_DEVICE_HOST_MEM_CAPABILITIES_INTEL,
        CL_DEVICE_SINGLE_DEVICE_SHARED_MEM_CAPABILITIES_INTEL,
    ] {
        assert_eq!(usm(q), want, "USM capabilities {q:#x}");
    }
    assert_eq!(
        usm(CL_DEVICE_DEVICE_MEM_CAPABILITIES_INTEL),
        access,
        "device allocations are never concurrent with the host"
    );
}

/// The host writes a fine-grained allocation in place (no map), a kernel
/// reads it and writes a second one; after clFinish the host reads the
/// result in place, against the same computation on the host. Repeated,
/// so that the host's second round of writes (after reading the first
/// result) must reach the second launch too.
#[test]
fn host_and_kernel_take_turns_without_map() {
    let cl = Cl::new();
    if !has(
        &cl,
        CL_DEVICE_SVM_FINE_GRAIN_BUFFER,
        "fine-grained buffer SVM",
    ) {
        return;
    }
    const N: usize = 4096;
    let input = Fine::new(&cl, N * 4, 0);
    let output = Fine::new(&cl, N * 4, 0);
    let k = cl.kernel(
        "kernel void f(global const int *in, global int *out) {
             size_t i = get_global_id(0);
             out[i] = in[i] * 3 - (int)i;
         }",
        "f",
    );
    set_svm_arg(&k, 0, input.ptr);
    set_svm_arg(&k, 1, output.ptr);
    for round in 0..3i32 {
        let host: Vec<i32> = (0..N as i32)
            .map(|i| (i * 13 + round * 1001) % 977)
            .collect();
        for (i, &v) in host.iter().enumerate() {
            // SAFETY: N ints; no command uses the memory now.
            unsafe { *input.at::<i32>(i) = v };
        }
        cl.queue.run(&k, &[N], None);
        // SAFETY: N ints, written by the finished kernel.
        let got = unsafe { std::slice::from_raw_parts(output.at::<i32>(0), N) }.to_vec();
        let want: Vec<i32> = host
            .iter()
            .enumerate()
            .map(|(i, v)| v * 3 - i as i32)
            .collect();
        assert_same(&format!("round {round}"), &got, &want);
    }
}

/// A kernel's writes are visible to the host once its event has been
/// waited for (clWaitForEvents, not clFinish); the event reports
/// CL_COMPLETE then.
#[test]
fn kernel_writes_visible_after_its_event() {
    let cl = Cl::new();
    if !has(
        &cl,
        CL_DEVICE_SVM_FINE_GRAIN_BUFFER,
        "fine-grained buffer SVM",
    ) {
        return;
    }
    const N: usize = 1 << 16;
    let out = Fine::new(&cl, N * 8, 0);
    // SAFETY: N longs, no command uses them yet.
    unsafe { ptr::write_bytes(out.at::<u64>(0), 0xee, N) };
    let k = cl.kernel(
        "kernel void f(global ulong *out) {
             ulong i = get_global_id(0);
             out[i] = i * i * 2654435761ul + 12345;
         }",
        "f",
    );
    set_svm_arg(&k, 0, out.ptr);
    let ev = enqueue(&cl, &k, N);
    // SAFETY: valid queue.
    check(unsafe { clFlush(cl.queue.raw()) }, "clFlush");
    // SAFETY: a live event; blocks until the kernel is complete.
    check(unsafe { clWaitForEvents(1, &ev) }, "clWaitForEvents");
    let status: cl_int = event_value(ev, CL_EVENT_COMMAND_EXECUTION_STATUS);
    assert_eq!(status, CL_COMPLETE);
    // SAFETY: N longs, written by the complete kernel.
    let got = unsafe { std::slice::from_raw_parts(out.at::<u64>(0), N) }.to_vec();
    let want: Vec<u64> = (0..N as u64)
        .map(|i| {
            i.wrapping_mul(i)
                .wrapping_mul(2654435761)
                .wrapping_add(12345)
        })
        .collect();
    assert_same("kernel's values", &got, &want);
    // SAFETY: the event is ours.
    check(unsafe { clReleaseEvent(ev) }, "clReleaseEvent");
}

/// Setting a user event is a synchronization point: a kernel enqueued
/// behind a user event sees the host's in-place writes made after the
/// enqueue but before clSetUserEventStatus.
#[test]
fn host_writes_before_a_user_event_reach_the_kernel() {
    let cl = Cl::new();
    if !has(
        &cl,
        CL_DEVICE_SVM_FINE_GRAIN_BUFFER,
        "fine-grained buffer SVM",
    ) {
        return;
    }
    const N: usize = 1024;
    let data = Fine::new(&cl, N * 4, 0);
    // SAFETY: N ints; no command uses them yet.
    unsafe { ptr::write_bytes(data.at::<i32>(0), 0, N) };
    let k = cl.kernel(
        "kernel void f(global int *p) { size_t i = get_global_id(0); p[i] = p[i] * 2 + 1; }",
        "f",
    );
    set_svm_arg(&k, 0, data.ptr);
    let user = ferrocl_tests::events::Event::user(&cl.context);
    let ev = ferrocl_tests::events::launch(cl.queue.raw(), &k, N, &[&user]);
    // SAFETY: valid queue.
    check(unsafe { clFlush(cl.queue.raw()) }, "clFlush");
    let host: Vec<i32> = (0..N as i32).map(|i| i * 11 - 3000).collect();
    for (i, &v) in host.iter().enumerate() {
        // SAFETY: N ints; the kernel waits for the user event.
        unsafe { *data.at::<i32>(i) = v };
    }
    user.set(CL_COMPLETE);
    cl.queue.finish();
    assert_eq!(ev.status(), CL_COMPLETE);
    // SAFETY: N ints, written by the finished kernel.
    let got = unsafe { std::slice::from_raw_parts(data.at::<i32>(0), N) }.to_vec();
    let want: Vec<i32> = host.iter().map(|v| v * 2 + 1).collect();
    assert_same("kernel after the user event", &got, &want);
}

/// Fine grain is byte-granular: a kernel writes the bytes at even
/// offsets while the host (after the enqueue and a flush, before
/// clFinish) writes those at odd offsets of the same allocation; neither
/// side's bytes are lost (no word-wide read-modify-write on either side).
#[test]
fn host_and_kernel_write_neighbouring_bytes() {
    let cl = Cl::new();
    if !has(
        &cl,
        CL_DEVICE_SVM_FINE_GRAIN_BUFFER,
        "fine-grained buffer SVM",
    ) {
        return;
    }
    const N: usize = 1 << 18;
    let bytes = Fine::new(&cl, N, 0);
    // SAFETY: N bytes; no command uses them yet.
    unsafe { ptr::write_bytes(bytes.at::<u8>(0), 0xff, N) };
    let k = cl.kernel(
        "kernel void f(global uchar *p) {
             size_t i = get_global_id(0) * 2;
             p[i] = (uchar)(i * 7 + 1);
         }",
        "f",
    );
    set_svm_arg(&k, 0, bytes.ptr);
    let ev = enqueue(&cl, &k, N / 2);
    // SAFETY: valid queue.
    check(unsafe { clFlush(cl.queue.raw()) }, "clFlush");
    for i in (1..N).step_by(2) {
        // SAFETY: an odd byte of the allocation, which the kernel does not
        // write; volatile so that the host writes bytes one by one.
        unsafe { bytes.at::<u8>(i).write_volatile((i * 3) as u8) };
    }
    wait_and_release(ev);
    // SAFETY: N bytes, the kernel complete.
    let got = unsafe { std::slice::from_raw_parts(bytes.at::<u8>(0), N) }.to_vec();
    let want: Vec<u8> = (0..N)
        .map(|i| {
            if i % 2 == 0 {
                (i * 7 + 1) as u8
            } else {
                (i * 3) as u8
            }
        })
        .collect();
    assert_same("bytes of the kernel and the host", &got, &want);
}

/// The node of a tree the host builds in fine-grained memory.
#[repr(C)]
#[derive(Clone, Copy)]
struct Node {
    value: i64,
    left: *mut Node,
    right: *mut Node,
    /// Written by the kernel: the node's subtree sum.
    sum: i64,
}

/// Pointers stored in fine-grained memory, both ways, without map: the
/// host builds a binary tree in two allocations (children in the other
/// one, which the kernel reaches only through stored pointers and
/// CL_KERNEL_EXEC_INFO_SVM_PTRS); one work-item per node sums its subtree
/// by following the pointers and stores, in a table, the address of its
/// deepest-left descendant; the host follows those addresses back.
#[test]
fn stored_pointers_followed_both_ways() {
    let cl = Cl::new();
    if !has(
        &cl,
        CL_DEVICE_SVM_FINE_GRAIN_BUFFER,
        "fine-grained buffer SVM",
    ) {
        return;
    }
    const N: usize = 255;
    let size = std::mem::size_of::<Node>();
    let a = Fine::new(&cl, N * size, 0);
    let b = Fine::new(&cl, N * size, 0);
    let table = Fine::new(&cl, N * 8, 0);
    // Node i (heap order: children 2i+1, 2i+2) is in a for even depth,
    // else b, at a shuffled slot.
    let depth = |i: usize| (usize::BITS - 1 - (i + 1).leading_zeros()) as usize;
    let slot = |i: usize| -> *mut Node {
        let base = if depth(i).is_multiple_of(2) { &a } else { &b };
        base.at::<Node>((i * 97) % N)
    };
    let values: Vec<i64> = (0..N as i64).map(|i| (i * 7919) % 1000 - 500).collect();
    for (i, &value) in values.iter().enumerate() {
        let child = |c: usize| if c < N { slot(c) } else { ptr::null_mut() };
        // SAFETY: a slot of a live allocation; no command uses it.
        unsafe {
            *slot(i) = Node {
                value,
                left: child(2 * i + 1),
                right: child(2 * i + 2),
                sum: -1,
            }
        };
    }
    // The roots the kernel starts from: the table holds node i's address.
    for i in 0..N {
        // SAFETY: N entries.
        unsafe { *table.at::<u64>(i) = slot(i) as u64 };
    }
    let k = cl.kernel(
        "typedef struct node { long value; global struct node *left, *right; long sum; } node;
         kernel void f(global ulong *table) {
             size_t i = get_global_id(0);
             global node *root = (global node *)table[i];
             global node *stack[16];
             int top = 0;
             long sum = 0;
             stack[top++] = root;
             while (top > 0) {
                 global node *n = stack[--top];
                 sum += n->value;
                 if (n->left) stack[top++] = n->left;
                 if (n->right) stack[top++] = n->right;
             }
             root->sum = sum;
             global node *l = root;
             while (l->left) l = l->left;
             table[i] = (ulong)l;
         }",
        "f",
    );
    set_svm_arg(&k, 0, table.ptr);
    let extra = [a.ptr, b.ptr];
    // SAFETY: valid kernel, two pointers.
    check(
        unsafe {
            clSetKernelExecInfo(
                k.raw(),
                CL_KERNEL_EXEC_INFO_SVM_PTRS,
                std::mem::size_of_val(&extra),
                extra.as_ptr().cast(),
            )
        },
        "clSetKernelExecInfo(SVM_PTRS)",
    );
    cl.queue.run(&k, &[N], None);
    let subtree = |i: usize| -> i64 {
        let mut stack = vec![i];
        let mut s = 0;
        while let Some(j) = stack.pop() {
            s += values[j];
            stack.extend([2 * j + 1, 2 * j + 2].into_iter().filter(|&c| c < N));
        }
        s
    };
    for i in 0..N {
        // SAFETY: live nodes and table entries written by the finished
        // kernel: a node pointer the host follows.
        let (sum, leftmost) = unsafe { ((*slot(i)).sum, *table.at::<u64>(i) as *const Node) };
        assert_eq!(sum, subtree(i), "subtree sum of node {i}");
        let mut l = i;
        while 2 * l + 1 < N {
            l = 2 * l + 1;
        }
        assert_eq!(leftmost, slot(l) as *const Node, "leftmost of node {i}");
        // SAFETY: the kernel's pointer, to a live node.
        assert_eq!(unsafe { (*leftmost).value }, values[l]);
    }
}

/// clEnqueueSVMMap/Unmap on fine-grained memory still work (as ordering
/// points with events) and change nothing: the host's in-place writes
/// before the map and after the unmap are all there.
#[test]
fn map_and_unmap_are_ordering_points() {
    let cl = Cl::new();
    if !has(
        &cl,
        CL_DEVICE_SVM_FINE_GRAIN_BUFFER,
        "fine-grained buffer SVM",
    ) {
        return;
    }
    let m = Fine::new(&cl, 256, 0);
    for i in 0..64 {
        // SAFETY: 64 ints, no command uses them.
        unsafe { *m.at::<i32>(i) = i as i32 };
    }
    let q = cl.queue.raw();
    let mut map_ev = ptr::null_mut();
    let mut unmap_ev = ptr::null_mut();
    // SAFETY: a live allocation of 256 bytes; events returned to us.
    unsafe {
        check(
            clEnqueueSVMMap(
                q,
                CL_FALSE,
                CL_MAP_READ | CL_MAP_WRITE,
                m.ptr,
                256,
                0,
                ptr::null(),
                &mut map_ev,
            ),
            "clEnqueueSVMMap",
        );
        check(
            clEnqueueSVMUnmap(q, m.ptr, 1, &map_ev, &mut unmap_ev),
            "clEnqueueSVMUnmap",
        );
    }
    let ty: cl_command_type = event_value(unmap_ev, CL_EVENT_COMMAND_TYPE);
    assert_eq!(ty, CL_COMMAND_SVM_UNMAP);
    wait_and_release(unmap_ev);
    let status: cl_int = event_value(map_ev, CL_EVENT_COMMAND_EXECUTION_STATUS);
    assert_eq!(status, CL_COMPLETE, "the map before the unmap");
    // SAFETY: our event.
    check(unsafe { clReleaseEvent(map_ev) }, "clReleaseEvent");
    for i in 64..64 + 8 {
        // SAFETY: inside 256 bytes.
        unsafe { *m.at::<i32>(i - 8) = -(i as i32) };
    }
    // SAFETY: 64 ints.
    let got = unsafe { std::slice::from_raw_parts(m.at::<i32>(0), 64) }.to_vec();
    let mut want: Vec<i32> = (0..64).collect();
    for i in 64..72 {
        want[i - 8] = -(i as i32);
    }
    assert_same("in-place writes around map and unmap", &got, &want);
}

/// The atomics' scope (all SVM devices, the host included; PoCL, the
/// reference, lacks the OpenCL C 3.0 feature macro and has device scope
/// only) and straight-line repetitions (ifs are masks, not loops, so they
/// cost none of lavapipe's 65535 loop passes) for the kernel below.
const PRELUDE: &str = "#ifdef __opencl_c_atomic_scope_all_devices
#define SCOPE memory_scope_all_svm_devices
#else
#define SCOPE memory_scope_device
#endif
#define R4(x) x x x x
#define R16(x) R4(R4(x))
#define R64(x) R4(R16(x))
";

/// SVM atomics, proved while the kernel runs: work-item 0 of a kernel
/// stores 1 in a flag, then keeps adding 1 to a counter and looking at
/// the flag until it reads 2; the host waits (wall clock, 60 s at most)
/// for the 1, adds 1 to the same counter `HOST_ADDS` times while the
/// kernel is adding too, and stores 2; the kernel then stores 3 and how
/// many times it added. So: the host saw a running kernel's store, the
/// kernel saw the host's (its loop is bounded, within lavapipe's loop
/// budget, so that a device that does not see it ends with "not seen"
/// instead of hanging: on lavapipe it gives up after about 2 s, while
/// the host needs milliseconds), and no addition of either side was
/// lost.
#[test]
fn host_and_running_kernel_share_atomics() {
    let cl = Cl::new();
    let both = CL_DEVICE_SVM_FINE_GRAIN_BUFFER | CL_DEVICE_SVM_ATOMICS;
    if !has(&cl, both, "SVM atomics") {
        return;
    }
    const HOST_ADDS: u32 = 5_000;
    let shared = Fine::new(&cl, 64, CL_MEM_SVM_ATOMICS);
    let out = Fine::new(&cl, 16, 0);
    // SAFETY: 16 ints and 4 uints; nothing runs yet.
    unsafe {
        ptr::write_bytes(shared.at::<u32>(0), 0, 16);
        ptr::write_bytes(out.at::<u32>(0), 0, 4);
    }
    let source = format!(
        "{PRELUDE}
         kernel void f(global atomic_int *flag, global atomic_uint *counter,
                       global uint *out) {{
             if (get_global_id(0) != 0) return;
             atomic_store_explicit(flag, 1, memory_order_release, SCOPE);
             uint adds = 0, passes = 0;
             int seen = 0;
             while (!seen && passes < 60000) {{
                 passes++;
                 R64(if (!seen) {{
                     atomic_fetch_add_explicit(counter, 1u, memory_order_relaxed,
                                               SCOPE);
                     adds++;
                     seen = atomic_load_explicit(flag, memory_order_acquire,
                                                 SCOPE) == 2;
                 }})
             }}
             out[0] = adds;
             out[1] = seen;
             out[2] = passes;
             atomic_store_explicit(flag, 3, memory_order_release, SCOPE);
         }}"
    );
    let program = cl
        .try_build(&source, "-cl-std=CL3.0")
        .unwrap_or_else(|e| panic!("{e}"));
    let k = program.kernel("f");
    set_svm_arg(&k, 0, shared.at::<i32>(0).cast());
    set_svm_arg(&k, 1, shared.at::<u32>(8).cast());
    set_svm_arg(&k, 2, out.ptr);
    // SAFETY: inside the live allocation, aligned; the kernel uses them
    // atomically too.
    let (flag, counter) = unsafe {
        (
            &*shared.at::<i32>(0).cast::<AtomicI32>(),
            &*shared.at::<u32>(8).cast::<AtomicU32>(),
        )
    };
    let ev = enqueue(&cl, &k, 64);
    // SAFETY: valid queue.
    check(unsafe { clFlush(cl.queue.raw()) }, "clFlush");
    let start = Instant::now();
    let mut running = false;
    while start.elapsed() < Duration::from_secs(60) {
        match flag.load(Ordering::Acquire) {
            1 => {
                running = true;
                break;
            }
            3 => break,
            _ => std::hint::spin_loop(),
        }
    }
    let mut kernel_was_running = false;
    if running {
        for _ in 0..HOST_ADDS {
            counter.fetch_add(1, Ordering::Relaxed);
        }
        // The kernel is still running if the flag is still 1 here (it
        // stores 3 only after it has seen 2, or given up).
        kernel_was_running = flag
            .compare_exchange(1, 2, Ordering::AcqRel, Ordering::Acquire)
            .is_ok();
    }
    wait_and_release(ev);
    // SAFETY: written by the finished kernel.
    let (adds, seen, passes) = unsafe { (*out.at::<u32>(0), *out.at::<u32>(1), *out.at::<u32>(2)) };
    eprintln!(
        "kernel: {adds} additions in {passes} passes, saw the host's 2: {seen}; host saw the kernel's 1 \
         after {:?}",
        start.elapsed()
    );
    assert!(running, "the host never saw the running kernel's store");
    assert!(
        kernel_was_running,
        "the kernel ended before the host's additions did (it gave up after {passes} passes)"
    );
    assert_eq!(seen, 1, "the kernel did not see the host's store");
    assert_eq!(flag.load(Ordering::Acquire), 3, "the kernel's last store");
    assert_eq!(
        counter.load(Ordering::Relaxed),
        HOST_ADDS + adds,
        "additions of the host and the kernel together"
    );
}
