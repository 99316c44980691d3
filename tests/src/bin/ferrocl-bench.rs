//! ferrocl-bench: the same workloads on two OpenCL platforms, chosen by
//! name, in one run; prints one table with the ratio first / second.
//!
//! ```text
//! ferrocl-bench [--quick] [FIRST [SECOND]]
//! ferrocl-bench --addressing [--quick] [FIRST]
//! ferrocl-bench --pointers [--quick] [FIRST]
//! ferrocl-bench --write-baseline FILE|DIR [--quick] FIRST SECOND
//! ferrocl-bench --check FILE|DIR FIRST SECOND
//! ```
//! FIRST and SECOND are case-insensitive substrings of platform names
//! (default "ferrocl" and the first other platform). `--addressing`
//! compares ferrocl's two global-pointer formats on FIRST instead: the
//! same kernels built with `-ferrocl-addressing=physical` (A) and
//! `-ferrocl-addressing=descriptor` (B). `--pointers` measures the cost of
//! SVM and USM pointers on FIRST: the same kernels with their memory in
//! SVM, USM device and USM shared allocations (A, where the device has
//! them), each against cl_mem buffers (B), in one run
//! (`bench_pointers/mod.rs`). The loader must see
//! both: e.g. `OCL_ICD_VENDORS=<dir with both .icd files>`, or
//! `OCL_ICD_FILENAMES=/path/libferrocl.so:libnvidia-opencl.so.1`.
//!
//! Times are host wall-clock around clFinish, the best of several runs,
//! so both platforms are measured the same way. A benchmark, not a test:
//! it asserts only that results are correct, never a speed, except in the
//! gate:
//!
//! - `--write-baseline` runs every row on both platforms and writes the
//!   ratios FIRST / SECOND, with SECOND's card and driver and the date, to
//!   FILE (a directory: `baseline-<card>.json` in it);
//! - `--check` runs them again (with the baseline's workload sizes) and
//!   compares: it prints a table and exits 1 when a row's ratio is more
//!   than its tolerance (default 10 %) worse than the baseline's, in the
//!   row's direction (for times and latencies lower is better), or when a
//!   baseline row is missing; 2 on a usage error or a baseline of another
//!   card. With a directory it reads `baseline-<card>.json`.
//!
//! The file format and the comparison are in `bench_gate/mod.rs`.

use std::time::{Duration, Instant};

#[path = "bench_gate/mod.rs"]
mod gate;
#[path = "bench_pointers/mod.rs"]
mod pointers;

use ferrocl_tests::info::{device_info, device_string, devices, platform_name, query_value};
use ferrocl_tests::objects::{Context, Queue};
use opencl_sys::*;

struct Sizes {
    /// "quick" or "full" (recorded in a baseline).
    label: &'static str,
    /// float4 elements per copy buffer.
    copy_elems: usize,
    /// Work-items of the compute kernel.
    compute_items: usize,
    /// Bytes per host transfer.
    transfer_bytes: usize,
    launches: usize,
    reps: usize,
}

const SOURCE: &str = r#"
kernel void copy4(global const float4* a, global float4* b) {
    size_t i = get_global_id(0);
    b[i] = a[i];
}
kernel void copy16(global const float16* a, global float16* b) {
    size_t i = get_global_id(0);
    b[i] = a[i];
}
kernel void empty(global int* p) {}
kernel void div64(global ulong* out, ulong d0, ulong mask) {
    ulong x = ((get_global_id(0) + 1) * 0x9E3779B97F4A7C15UL) & mask;
    ulong d = d0 + get_global_id(0);
    ulong acc = 0;
    for (int i = 0; i < 64; i++) {
        acc += x / d;
        x = ((x * 6364136223846793005UL) + 1442695040888963407UL) & mask;
    }
    out[get_global_id(0)] = acc;
}
"#;

/// Divisions per work-item of `div64` (its loop count).
const DIVS: usize = 64;

/// The compute kernel `name`: 256 iterations of 8 four-wide `mad`s on
/// `ty` (`float` or `double`; `suffix` makes its literals that type).
fn mad_loop(name: &str, ty: &str, suffix: &str) -> String {
    format!(
        "kernel void {name}(global {ty}* out, {ty} s) {{
    {ty}4 x = ({ty}4)(get_global_id(0) * 1e-9{suffix}, 1.0{suffix}, 2.0{suffix}, 3.0{suffix});
    {ty}4 y = ({ty}4)(s, s, s, s);
    for (int i = 0; i < 256; i++) {{
        x = mad(y, x, y); y = mad(x, y, x);
        x = mad(y, x, y); y = mad(x, y, x);
        x = mad(y, x, y); y = mad(x, y, x);
        x = mad(y, x, y); y = mad(x, y, x);
    }}
    out[get_global_id(0)] = x.x + x.y + x.z + x.w + y.x + y.y + y.z + y.w;
}}
"
    )
}

/// mad_loop in double precision (built where the device has cl_khr_fp64).
fn fp64_source() -> String {
    format!(
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n{}",
        mad_loop("mad_loop_d", "double", "")
    )
}

/// A kernel without `__local` arguments, launched with a NULL local size:
/// the first launch of a freshly built program (pipelines made ahead).
const FIRST_LAUNCH_SOURCE: &str = r#"
kernel void scale(global float* a, float s) {
    size_t i = get_global_id(0);
    a[i] = a[i] * s + (float)i;
}
kernel void offset(global float* a, float s) {
    size_t i = get_global_id(0);
    a[i] = a[i] + s;
}
"#;

/// A kernel with a `__local` pointer argument, launched with an explicit
/// local size: the first launch of a freshly built program (ferrocl makes
/// a pipeline with room for any `__local` sizes ahead of it).
const LOCAL_FIRST_LAUNCH_SOURCE: &str = r#"
kernel void group_sum(global const float* a, global float* sums, local float* t) {
    size_t l = get_local_id(0);
    t[l] = a[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = get_local_size(0) / 2; s > 0; s /= 2) {
        if (l < s) t[l] += t[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0) sums[get_group_id(0)] = t[0];
}
"#;

/// A larger program: `n` kernels, each with some arithmetic, a loop and
/// local memory, for build-time rows.
fn large_source(n: usize) -> String {
    let mut src = String::new();
    for i in 0..n {
        src.push_str(&format!(
            "kernel void k{i}(global float* a, global const float* b, local float* t, int n) {{
                 size_t g = get_global_id(0), l = get_local_id(0);
                 t[l] = b[g] * {i}.5f;
                 barrier(CLK_LOCAL_MEM_FENCE);
                 float s = 0.0f;
                 for (int j = 0; j < n; j++) s += sin(t[(l + j) % get_local_size(0)]) * (float)j;
                 a[g] = s + (float)(g % {m});
             }}\n",
            m = i + 2
        ));
    }
    src
}

/// Blocking map + unmap through the raw API; returns (map time, unmap time).
fn map_unmap(
    q: &Queue,
    mem: cl_mem,
    flags: cl_map_flags,
    size: usize,
    touch: bool,
) -> [Duration; 2] {
    let mut status = CL_SUCCESS;
    let t = Instant::now();
    // SAFETY: valid queue and buffer; blocking map of `size` bytes.
    let p = unsafe {
        clEnqueueMapBuffer(
            q.raw(),
            mem,
            CL_TRUE,
            flags,
            0,
            size,
            0,
            std::ptr::null(),
            std::ptr::null_mut(),
            &mut status,
        )
    };
    assert_eq!(status, CL_SUCCESS, "clEnqueueMapBuffer");
    let map = t.elapsed();
    if touch {
        // SAFETY: the map covers `size` writable bytes.
        unsafe { std::ptr::write_bytes(p.cast::<u8>(), 1, size) };
    }
    let t = Instant::now();
    // SAFETY: p came from the map above.
    let s = unsafe {
        clEnqueueUnmapMemObject(q.raw(), mem, p, 0, std::ptr::null(), std::ptr::null_mut())
    };
    assert_eq!(s, CL_SUCCESS, "clEnqueueUnmapMemObject");
    q.finish();
    [map, t.elapsed()]
}

/// FLOPs per work-item of mad_loop: 256 iterations x 8 mads x 4 lanes x 2.
const MAD_FLOPS: f64 = 256.0 * 8.0 * 4.0 * 2.0;

fn best(reps: usize, mut f: impl FnMut() -> Duration) -> Duration {
    f(); // warm-up (pipeline creation, first-touch)
    (0..reps).map(|_| f()).min().unwrap_or_default()
}

/// The best wall time of one launch of `k` over `global` work-items, to
/// completion.
fn best_launch(reps: usize, q: &Queue, k: &ferrocl_tests::Kernel, global: usize) -> Duration {
    best(reps, || {
        let t = Instant::now();
        enqueue(q, k, global);
        finish(q);
        t.elapsed()
    })
}

fn finish(q: &Queue) {
    q.finish();
}

fn enqueue(q: &Queue, k: &ferrocl_tests::Kernel, global: usize) {
    q.try_enqueue(k, None, &[global], None)
        .expect("clEnqueueNDRangeKernel");
}

/// Records a row, printing it at once (a run cut short still shows what it measured).
fn push(rows: &mut Vec<Row>, row: Row) {
    eprintln!("  {:<50} {:>14.2} {}", row.name, row.value, row.unit);
    rows.push(row);
}

#[derive(Clone)]
struct Row {
    name: &'static str,
    unit: &'static str,
    /// true: larger is better.
    higher_better: bool,
    value: f64,
}

fn run_platform(platform: cl_platform_id, s: &Sizes) -> (String, Vec<Row>) {
    let device = devices(platform)[0];
    let name = format!(
        "{} / {}",
        platform_name(platform),
        device_string(device, CL_DEVICE_NAME)
    );
    let ctx = Context::on(device);
    let q = ctx.queue();
    let mut rows: Vec<Row> = Vec::new();
    eprintln!("measuring {name}");

    // Build times: a unique source (cold: no cache can know it) then the same again (warm).
    let unique = format!(
        "// {:?}\n{SOURCE}{}",
        Instant::now(),
        mad_loop("mad_loop", "float", "f")
    );
    let t = Instant::now();
    let prog = ctx.build(&unique);
    push(
        &mut rows,
        Row {
            name: "clBuildProgram cold",
            unit: "ms",
            higher_better: false,
            value: t.elapsed().as_secs_f64() * 1e3,
        },
    );
    let t = Instant::now();
    let _again = ctx.build(&unique);
    push(
        &mut rows,
        Row {
            name: "clBuildProgram warm",
            unit: "ms",
            higher_better: false,
            value: t.elapsed().as_secs_f64() * 1e3,
        },
    );

    // A large program, cold then warm.
    let large = format!("// {:?}\n{}", Instant::now(), large_source(64));
    let t = Instant::now();
    let _large = ctx.build(&large);
    push(
        &mut rows,
        Row {
            name: "clBuildProgram cold (64 kernels)",
            unit: "ms",
            higher_better: false,
            value: t.elapsed().as_secs_f64() * 1e3,
        },
    );
    let t = Instant::now();
    let large_again = ctx.build(&large);
    push(
        &mut rows,
        Row {
            name: "clBuildProgram warm (64 kernels)",
            unit: "ms",
            higher_better: false,
            value: t.elapsed().as_secs_f64() * 1e3,
        },
    );

    // clCreateKernel + first enqueue: a kernel never created before.
    let scratch = ctx.buffer::<f32>(1024);
    let t = Instant::now();
    let k = large_again.kernel("k7");
    k.arg(0, &scratch)
        .arg(1, &scratch)
        .arg(2, &ferrocl_tests::Local(64 * 4))
        .arg(3, &4i32);
    q.try_enqueue(&k, None, &[1024], Some(&[64]))
        .expect("clEnqueueNDRangeKernel");
    finish(&q);
    push(
        &mut rows,
        Row {
            name: "clCreateKernel + first enqueue + finish",
            unit: "ms",
            higher_better: false,
            value: t.elapsed().as_secs_f64() * 1e3,
        },
    );

    // A fresh build's first launch, end to end: clBuildProgram of a
    // source no cache knows, clCreateKernel, the first enqueue (NULL
    // local size) and clFinish. Implementations compile at different
    // points (NVIDIA's OpenCL in clBuildProgram, ferrocl's pipelines in
    // the background after it, or at the first launch), so only the sum
    // compares.
    let first = ctx.buffer::<f32>(1 << 16);
    let unique = format!("// {:?}\n{FIRST_LAUNCH_SOURCE}", Instant::now());
    let t = Instant::now();
    let fresh = ctx.build(&unique);
    let k = fresh.kernel("scale");
    k.arg(0, &first).arg(1, &2.0f32);
    enqueue(&q, &k, 1 << 16);
    finish(&q);
    push(
        &mut rows,
        Row {
            name: "clBuildProgram cold + first launch (NULL local)",
            unit: "ms",
            higher_better: false,
            value: t.elapsed().as_secs_f64() * 1e3,
        },
    );
    // The same after 100 ms of the application's own set-up (buffers,
    // data) between clBuildProgram and clCreateKernel: pipelines made in
    // the background meanwhile are ready at the first launch.
    let unique = format!("// {:?}\n{FIRST_LAUNCH_SOURCE}", Instant::now());
    let fresh = ctx.build(&unique);
    std::thread::sleep(Duration::from_millis(100));
    let t = Instant::now();
    let k = fresh.kernel("scale");
    k.arg(0, &first).arg(1, &2.0f32);
    enqueue(&q, &k, 1 << 16);
    finish(&q);
    push(
        &mut rows,
        Row {
            name: "clCreateKernel + first launch, 100 ms after build",
            unit: "ms",
            higher_better: false,
            value: t.elapsed().as_secs_f64() * 1e3,
        },
    );
    // The same for a kernel with a `__local` argument, launched with an
    // explicit local size (64) as such kernels are: its `__local` size is
    // known only at clSetKernelArg.
    let unique = format!("// {:?}\n{LOCAL_FIRST_LAUNCH_SOURCE}", Instant::now());
    let fresh = ctx.build(&unique);
    let sums = ctx.buffer::<f32>((1 << 16) / 64);
    std::thread::sleep(Duration::from_millis(100));
    let t = Instant::now();
    let k = fresh.kernel("group_sum");
    k.arg(0, &first)
        .arg(1, &sums)
        .arg(2, &ferrocl_tests::Local(64 * 4));
    q.try_enqueue(&k, None, &[1 << 16], Some(&[64]))
        .expect("clEnqueueNDRangeKernel");
    finish(&q);
    push(
        &mut rows,
        Row {
            name: "clCreateKernel + __local-arg launch, 100 ms after build",
            unit: "ms",
            higher_better: false,
            value: t.elapsed().as_secs_f64() * 1e3,
        },
    );

    // Global memory bandwidth, float4 copy.
    let a = ctx.buffer::<[f32; 4]>(s.copy_elems);
    let b = ctx.buffer::<[f32; 4]>(s.copy_elems);
    let copy = prog.kernel("copy4");
    copy.arg(0, &a).arg(1, &b);
    let d = best_launch(s.reps, &q, &copy, s.copy_elems);
    let bytes = (s.copy_elems * 16 * 2) as f64;
    push(
        &mut rows,
        Row {
            name: "global memory bandwidth (float4 copy)",
            unit: "GB/s",
            higher_better: true,
            value: bytes / d.as_secs_f64() / 1e9,
        },
    );

    // Global memory bandwidth, float16 copy (the same bytes as float4's).
    let a16 = ctx.buffer::<[f32; 16]>(s.copy_elems / 4);
    let b16 = ctx.buffer::<[f32; 16]>(s.copy_elems / 4);
    let copy16 = prog.kernel("copy16");
    copy16.arg(0, &a16).arg(1, &b16);
    let d = best_launch(s.reps, &q, &copy16, s.copy_elems / 4);
    push(
        &mut rows,
        Row {
            name: "global memory bandwidth (float16 copy)",
            unit: "GB/s",
            higher_better: true,
            value: bytes / d.as_secs_f64() / 1e9,
        },
    );
    drop((a16, b16));

    // Single-precision compute.
    let out = ctx.buffer::<f32>(s.compute_items);
    let mad = prog.kernel("mad_loop");
    mad.arg(0, &out).arg(1, &0.999f32);
    let d = best_launch(s.reps, &q, &mad, s.compute_items);
    push(
        &mut rows,
        Row {
            name: "fp32 compute (float4 mad)",
            unit: "GFLOPS",
            higher_better: true,
            value: s.compute_items as f64 * MAD_FLOPS / d.as_secs_f64() / 1e9,
        },
    );

    // Double-precision compute, where the device has it (clpeak's fp64 row
    // halved once, unnoticed: mad(double) lost its fusion).
    if device_string(device, CL_DEVICE_EXTENSIONS).contains("cl_khr_fp64") {
        let prog64 = ctx.build(&fp64_source());
        let out64 = ctx.buffer::<f64>(s.compute_items);
        let mad64 = prog64.kernel("mad_loop_d");
        mad64.arg(0, &out64).arg(1, &0.999f64);
        let d = best_launch(s.reps, &q, &mad64, s.compute_items);
        push(
            &mut rows,
            Row {
                name: "fp64 compute (double4 mad)",
                unit: "GFLOPS",
                higher_better: true,
                value: s.compute_items as f64 * MAD_FLOPS / d.as_secs_f64() / 1e9,
            },
        );
    }

    // 64-bit division: operands beyond 32 bits (ferrocl divides with a
    // loop there, `udivrem64`: NVIDIA's own expansion miscompiles), and
    // operands that fit (a 32-bit division).
    let div = prog.kernel("div64");
    let items = s.compute_items / 8;
    for (name, d0, mask) in [
        (
            "int64 division (operands beyond 32 bits)",
            0x1_0000_0001u64,
            u64::MAX,
        ),
        ("int64 division (operands within 32 bits)", 3, 0xffff_ffff),
    ] {
        div.arg(0, &out).arg(1, &d0).arg(2, &mask);
        let d = best_launch(s.reps, &q, &div, items);
        push(
            &mut rows,
            Row {
                name,
                unit: "Gdiv/s",
                higher_better: true,
                value: (items * DIVS) as f64 / d.as_secs_f64() / 1e9,
            },
        );
    }

    // Launch latency: one tiny kernel, enqueue to completion.
    let empty = prog.kernel("empty");
    empty.arg(0, &out);
    let n = s.launches.min(2000);
    let d = best(s.reps, || {
        let t = Instant::now();
        for _ in 0..n / 10 {
            enqueue(&q, &empty, 1);
            finish(&q);
        }
        t.elapsed() / (n / 10) as u32
    });
    push(
        &mut rows,
        Row {
            name: "kernel launch latency (enqueue+finish)",
            unit: "us",
            higher_better: false,
            value: d.as_secs_f64() * 1e6,
        },
    );

    // Where a lone launch's time goes (profiling queue, median of 200):
    // QUEUED→SUBMIT (host: record + submit), SUBMIT→START (device pickup),
    // START→END, END→COMPLETE (completion seen), COMPLETE→clFinish return.
    // clpeak's "kernel launch latency" is QUEUED→START.
    {
        use ferrocl_tests::events::{launch, RawQueue};
        let pq = RawQueue::new(&ctx, CL_QUEUE_PROFILING_ENABLE);
        let mut parts: Vec<[f64; 6]> = Vec::new();
        for i in 0..220 {
            let t0 = Instant::now();
            let e = launch(pq.0, &empty, 1, &[]);
            pq.finish();
            let wall = t0.elapsed().as_secs_f64() * 1e6;
            let p = [
                CL_PROFILING_COMMAND_QUEUED,
                CL_PROFILING_COMMAND_SUBMIT,
                CL_PROFILING_COMMAND_START,
                CL_PROFILING_COMMAND_END,
                CL_PROFILING_COMMAND_COMPLETE,
            ]
            .map(|param| {
                let mut v: cl_ulong = 0;
                // SAFETY: valid completed event; a cl_ulong out value.
                unsafe {
                    clGetEventProfilingInfo(
                        e.0,
                        param,
                        8,
                        (&mut v as *mut cl_ulong).cast(),
                        std::ptr::null_mut(),
                    )
                };
                v as f64 / 1e3
            });
            if i >= 20 {
                parts.push([
                    p[1] - p[0],
                    p[2] - p[1],
                    p[3] - p[2],
                    p[4] - p[3],
                    wall - (p[4] - p[0]),
                    p[2] - p[0],
                ]);
            }
        }
        let median = |k: usize| {
            let mut v: Vec<f64> = parts.iter().map(|x| x[k]).collect();
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        eprintln!(
            "  launch breakdown (us, median): queued->submit {:.1}, submit->start {:.1}, \
             start->end {:.1}, end->complete {:.1}, complete->finish returns {:.1}; \
             queued->start (clpeak) {:.1}",
            median(0),
            median(1),
            median(2),
            median(3),
            median(4),
            median(5)
        );
        push(
            &mut rows,
            Row {
                name: "launch latency QUEUED->START (clpeak's)",
                unit: "us",
                higher_better: false,
                value: median(5),
            },
        );
    }

    // Enqueue throughput: many small kernels back to back.
    let d = best(s.reps.min(3), || {
        let t = Instant::now();
        for _ in 0..s.launches {
            enqueue(&q, &empty, 64);
        }
        finish(&q);
        t.elapsed()
    });
    push(
        &mut rows,
        Row {
            name: "enqueue throughput (small kernels)",
            unit: "kernels/s",
            higher_better: true,
            value: s.launches as f64 / d.as_secs_f64(),
        },
    );

    // cl_khr_command_buffer: 1000 tiny kernels recorded once and replayed
    // by one clEnqueueCommandBufferKHR, against the same 1000 enqueued one
    // by one, per kernel to completion (NaN where the platform has no
    // command buffers of the 0.9.5+ API).
    let r = command_buffer_replay(platform, &q, &empty, s.reps);
    for (name, unit, higher_better, value) in [
        (
            "1000 tiny kernels enqueued one by one, per kernel",
            "us",
            false,
            r.plain,
        ),
        (
            "1000 tiny kernels replayed from a command buffer, per kernel",
            "us",
            false,
            r.replay,
        ),
        (
            "command-buffer replay speed-up (plain / replay)",
            "x",
            true,
            r.plain / r.replay,
        ),
        (
            "host time in 1000 enqueue calls, per kernel",
            "us",
            false,
            r.plain_host,
        ),
        (
            "host time in the replay's enqueue call, per kernel",
            "us",
            false,
            r.replay_host,
        ),
    ] {
        push(
            &mut rows,
            Row {
                name,
                unit,
                higher_better,
                value,
            },
        );
    }

    // Host transfers.
    let host = vec![1u8; s.transfer_bytes];
    let mut back: Vec<u8> = Vec::new();
    let dev = ctx.buffer::<u8>(s.transfer_bytes);
    let d = best(s.reps, || {
        let t = Instant::now();
        q.write(&dev, 0, &host);
        t.elapsed()
    });
    push(
        &mut rows,
        Row {
            name: "enqueueWriteBuffer (blocking)",
            unit: "GB/s",
            higher_better: true,
            value: s.transfer_bytes as f64 / d.as_secs_f64() / 1e9,
        },
    );
    back.resize(s.transfer_bytes, 0u8);
    let d = best(s.reps, || {
        let t = Instant::now();
        q.read_into(&dev, &mut back);
        t.elapsed()
    });
    push(
        &mut rows,
        Row {
            name: "enqueueReadBuffer (blocking)",
            unit: "GB/s",
            higher_better: true,
            value: s.transfer_bytes as f64 / d.as_secs_f64() / 1e9,
        },
    );
    assert!(back.iter().all(|&x| x == 1), "read back wrong data");

    // Map for reading, and unmap after writing through the map.
    let mut map_read = Duration::MAX;
    let mut unmap_write = Duration::MAX;
    for _ in 0..s.reps {
        map_read = map_read.min(map_unmap(&q, dev.raw(), CL_MAP_READ, s.transfer_bytes, false)[0]);
        unmap_write =
            unmap_write.min(map_unmap(&q, dev.raw(), CL_MAP_WRITE, s.transfer_bytes, true)[1]);
    }
    for (name, d) in [
        ("enqueueMapBuffer (read, blocking)", map_read),
        ("enqueueUnmapMemObject (after write) + finish", unmap_write),
    ] {
        push(
            &mut rows,
            Row {
                name,
                unit: "GB/s",
                higher_better: true,
                value: s.transfer_bytes as f64 / d.as_secs_f64() / 1e9,
            },
        );
    }
    (name, rows)
}

/// Kernels per command buffer in [`command_buffer_replay`].
const REPLAY_KERNELS: usize = 1000;

/// [`command_buffer_replay`]'s times per kernel, in microseconds (NaN for
/// the replay where the platform has no command buffers).
struct Replay {
    /// Enqueued one by one, to completion.
    plain: f64,
    /// Replayed from a command buffer, to completion.
    replay: f64,
    /// The host's time in the clEnqueueNDRangeKernel calls alone.
    plain_host: f64,
    /// The host's time in the one clEnqueueCommandBufferKHR call.
    replay_host: f64,
}

/// The best time per kernel of [`REPLAY_KERNELS`] launches of `k` (64
/// work-items) enqueued one by one and then finished, and of the same
/// launches recorded once into a command buffer and replayed by one
/// clEnqueueCommandBufferKHR and finished; and the host's time in the
/// enqueue calls alone. The replay is NaN when `platform` lacks
/// cl_khr_command_buffer with the 0.9.5+ API.
fn command_buffer_replay(
    platform: cl_platform_id,
    q: &Queue,
    k: &ferrocl_tests::Kernel,
    reps: usize,
) -> Replay {
    let global = 64usize;
    let per = |d: Duration| d.as_secs_f64() * 1e6 / REPLAY_KERNELS as f64;
    let mut plain_host = Duration::MAX;
    let plain = best(reps, || {
        let t = Instant::now();
        for _ in 0..REPLAY_KERNELS {
            enqueue(q, k, global);
        }
        plain_host = plain_host.min(t.elapsed());
        finish(q);
        t.elapsed()
    });
    let (replay, replay_host) =
        replayed(platform, q, k, global, reps).unwrap_or((f64::NAN, f64::NAN));
    Replay {
        plain: per(plain),
        replay,
        plain_host: per(plain_host),
        replay_host,
    }
}

/// [`command_buffer_replay`]'s replay: per kernel to completion, and in
/// the enqueue call, in microseconds.
fn replayed(
    platform: cl_platform_id,
    q: &Queue,
    k: &ferrocl_tests::Kernel,
    global: usize,
    reps: usize,
) -> Option<(f64, f64)> {
    let device = devices(platform)[0];
    let list: Vec<cl_name_version> =
        ferrocl_tests::info::query(device_info(device, CL_DEVICE_EXTENSIONS_WITH_VERSION)).ok()?;
    let new_api = list.iter().any(|nv| {
        // SAFETY: NUL-terminated within the fixed array.
        let name = unsafe { std::ffi::CStr::from_ptr(nv.name.as_ptr().cast()) };
        name.to_bytes() == b"cl_khr_command_buffer" && nv.version >= (9 << 12) | 5
    });
    if !new_api {
        return None;
    }
    let lookup = |name: &std::ffi::CStr| {
        // SAFETY: a platform of the loader and a NUL-terminated name.
        let f = unsafe { clGetExtensionFunctionAddressForPlatform(platform, name.as_ptr()) };
        (!f.is_null()).then_some(f)
    };
    // SAFETY: the extension's signatures for these names.
    let (create, record, finalize, enqueue_cb, release) = unsafe {
        (
            std::mem::transmute::<*mut std::ffi::c_void, clCreateCommandBufferKHR_t>(lookup(
                c"clCreateCommandBufferKHR",
            )?)?,
            std::mem::transmute::<*mut std::ffi::c_void, clCommandNDRangeKernelKHR_t>(lookup(
                c"clCommandNDRangeKernelKHR",
            )?)?,
            std::mem::transmute::<*mut std::ffi::c_void, clFinalizeCommandBufferKHR_t>(lookup(
                c"clFinalizeCommandBufferKHR",
            )?)?,
            std::mem::transmute::<*mut std::ffi::c_void, clEnqueueCommandBufferKHR_t>(lookup(
                c"clEnqueueCommandBufferKHR",
            )?)?,
            std::mem::transmute::<*mut std::ffi::c_void, clReleaseCommandBufferKHR_t>(lookup(
                c"clReleaseCommandBufferKHR",
            )?)?,
        )
    };
    let qraw = q.raw();
    let mut status = CL_SUCCESS;
    // SAFETY: one valid queue, no properties.
    let cb = unsafe { create(1, &qraw, std::ptr::null(), &mut status) };
    assert_eq!(status, CL_SUCCESS, "clCreateCommandBufferKHR");
    let t = Instant::now();
    for _ in 0..REPLAY_KERNELS {
        // SAFETY: valid command buffer and kernel; a 1-entry global size.
        let s = unsafe {
            record(
                cb,
                std::ptr::null_mut(),
                std::ptr::null(),
                k.raw(),
                1,
                std::ptr::null(),
                &global,
                std::ptr::null(),
                0,
                std::ptr::null(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
        assert_eq!(s, CL_SUCCESS, "clCommandNDRangeKernelKHR");
    }
    // SAFETY: valid command buffer.
    assert_eq!(
        unsafe { finalize(cb) },
        CL_SUCCESS,
        "clFinalizeCommandBufferKHR"
    );
    eprintln!(
        "  (recording and finalizing {REPLAY_KERNELS} kernels: {:.2} ms)",
        t.elapsed().as_secs_f64() * 1e3
    );
    let mut replay_host = Duration::MAX;
    let replay = best(reps, || {
        let t = Instant::now();
        // SAFETY: a finalized command buffer on its own queue.
        let s = unsafe {
            enqueue_cb(
                0,
                std::ptr::null_mut(),
                cb,
                0,
                std::ptr::null(),
                std::ptr::null_mut(),
            )
        };
        assert_eq!(s, CL_SUCCESS, "clEnqueueCommandBufferKHR");
        replay_host = replay_host.min(t.elapsed());
        finish(q);
        t.elapsed()
    });
    // SAFETY: our reference.
    unsafe { release(cb) };
    let per = |d: Duration| d.as_secs_f64() * 1e6 / REPLAY_KERNELS as f64;
    Some((per(replay), per(replay_host)))
}

const ADDRESSING_SOURCE: &str = r#"
kernel void copy4(global const float4* a, global float4* b) {
    size_t i = get_global_id(0);
    b[i] = a[i];
}
kernel void saxpy(global float* y, global const float* x, float a, int n) {
    size_t i = get_global_id(0);
    if (i < n) y[i] = a * x[i] + y[i];
}
kernel void gather(global float* out, global const float* in, global const uint* idx) {
    size_t i = get_global_id(0);
    out[i] = in[idx[i]];
}
kernel void pick(global float* out, global const float* a, global const float* b) {
    size_t i = get_global_id(0);
    global const float* p = (i & 1) ? a : b;
    out[i] = p[i] * 2.0f;
}
kernel void empty4(global int* p, int a, float b, uint c) {}
"#;

/// The `--addressing` rows of one address format (`options`).
fn addressing_rows(ctx: &Context, q: &Queue, s: &Sizes, options: &str) -> Vec<Row> {
    let mut rows = Vec::new();
    let prog = ctx
        .try_build(ADDRESSING_SOURCE, options)
        .unwrap_or_else(|e| panic!("{options}: {e}"));
    let n = s.copy_elems;
    let a = ctx.buffer::<[f32; 4]>(n);
    let b = ctx.buffer::<[f32; 4]>(n);
    let copy = prog.kernel("copy4");
    copy.arg(0, &a).arg(1, &b);
    let d = best_launch(s.reps, q, &copy, n);
    push(
        &mut rows,
        Row {
            name: "float4 copy",
            unit: "GB/s",
            higher_better: true,
            value: (n * 32) as f64 / d.as_secs_f64() / 1e9,
        },
    );
    let m = 4 * n;
    let xs: Vec<f32> = (0..m).map(|i| (i % 1000) as f32).collect();
    let x = ctx.buffer_from(&xs);
    let y = ctx.buffer_from(&xs);
    let saxpy = prog.kernel("saxpy");
    saxpy
        .arg(0, &y)
        .arg(1, &x)
        .arg(2, &0.5f32)
        .arg(3, &(m as i32));
    let d = best_launch(s.reps, q, &saxpy, m);
    push(
        &mut rows,
        Row {
            name: "saxpy (2 buffers + 2 POD)",
            unit: "GB/s",
            higher_better: true,
            value: (m * 12) as f64 / d.as_secs_f64() / 1e9,
        },
    );
    let idx: Vec<u32> = (0..m as u64)
        .map(|i| ((i * 2654435761) % m as u64) as u32)
        .collect();
    let idx = ctx.buffer_from(&idx);
    let out = ctx.buffer::<f32>(m);
    let gather = prog.kernel("gather");
    gather.arg(0, &out).arg(1, &x).arg(2, &idx);
    let d = best_launch(s.reps, q, &gather, m);
    push(
        &mut rows,
        Row {
            name: "gather (random reads)",
            unit: "Gelem/s",
            higher_better: true,
            value: m as f64 / d.as_secs_f64() / 1e9,
        },
    );
    let pick = prog.kernel("pick");
    pick.arg(0, &out).arg(1, &x).arg(2, &y);
    let d = best_launch(s.reps, q, &pick, m);
    push(
        &mut rows,
        Row {
            name: "pointer select between two arguments",
            unit: "Gelem/s",
            higher_better: true,
            value: m as f64 / d.as_secs_f64() / 1e9,
        },
    );
    let empty = prog.kernel("empty4");
    empty
        .arg(0, &out)
        .arg(1, &1i32)
        .arg(2, &2.0f32)
        .arg(3, &3u32);
    let launches = s.launches.min(2000);
    let d = best(s.reps, || {
        let t = Instant::now();
        for _ in 0..launches / 10 {
            enqueue(q, &empty, 1);
            finish(q);
        }
        t.elapsed() / (launches / 10) as u32
    });
    push(
        &mut rows,
        Row {
            name: "launch latency (1 buffer + 3 POD)",
            unit: "us",
            higher_better: false,
            value: d.as_secs_f64() * 1e6,
        },
    );
    let d = best(s.reps.min(3), || {
        let t = Instant::now();
        for _ in 0..s.launches {
            enqueue(q, &empty, 64);
        }
        finish(q);
        t.elapsed()
    });
    push(
        &mut rows,
        Row {
            name: "enqueue throughput (1 buffer + 3 POD)",
            unit: "kernels/s",
            higher_better: true,
            value: s.launches as f64 / d.as_secs_f64(),
        },
    );
    rows
}

/// Prints the comparison table of A's and B's rows.
fn print_table(na: &str, ra: &[Row], other: Option<(String, Vec<Row>)>) {
    println!("A = {na}");
    if let Some((nb, _)) = &other {
        println!("B = {nb}");
    }
    println!(
        "{:<50} {:>10} {:>14} {:>14} {:>8}",
        "workload", "unit", "A", "B", "A/B"
    );
    for r in ra {
        // B's row of the same name (a row only A has shows "-").
        let b = other
            .as_ref()
            .and_then(|(_, rb)| rb.iter().find(|b| b.name == r.name))
            .map(|b| b.value);
        let ratio = b.map(|b| r.value / b);
        println!(
            "{:<50} {:>10} {:>14.2} {:>14} {:>8}",
            r.name,
            r.unit,
            r.value,
            b.map(|v| format!("{v:.2}")).unwrap_or_else(|| "-".into()),
            ratio
                .map(|x| format!(
                    "{x:.2}{}",
                    if r.higher_better {
                        ""
                    } else {
                        " (lower better)"
                    }
                ))
                .unwrap_or_else(|| "-".into())
        );
    }
}

/// What the gate options ask for.
enum Gate {
    None,
    Check(std::path::PathBuf),
    Write(std::path::PathBuf),
}

/// `path`, or for a directory `baseline-<card>.json` in it.
fn baseline_file(path: &std::path::Path, card: &str) -> std::path::PathBuf {
    if path.is_dir() {
        path.join(format!("baseline-{}.json", gate::slug(card)))
    } else {
        path.to_path_buf()
    }
}

fn usage() -> ! {
    eprintln!(
        "usage: ferrocl-bench [--quick] [FIRST [SECOND]]\n       \
         ferrocl-bench --addressing [--quick] [FIRST]\n       \
         ferrocl-bench --pointers [--quick] [FIRST]\n       \
         ferrocl-bench --write-baseline FILE|DIR [--quick] FIRST SECOND\n       \
         ferrocl-bench --check FILE|DIR FIRST SECOND"
    );
    std::process::exit(2);
}

fn main() {
    let mut quick = false;
    let mut addressing = false;
    let mut pointer_rows = false;
    let mut gate_mode = Gate::None;
    let mut names: Vec<String> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--quick" => quick = true,
            "--addressing" => addressing = true,
            "--pointers" => pointer_rows = true,
            "--check" | "--write-baseline" => {
                let Some(path) = args.next() else { usage() };
                gate_mode = if a == "--check" {
                    Gate::Check(path.into())
                } else {
                    Gate::Write(path.into())
                };
            }
            a if a.starts_with("--") => usage(),
            a => names.push(a.to_lowercase()),
        }
    }
    if !matches!(gate_mode, Gate::None) && names.len() != 2 {
        eprintln!("ferrocl-bench: the gate compares two platforms: name FIRST and SECOND");
        usage();
    }
    ferrocl_tests::loader::init();
    let platforms = ferrocl_tests::info::platforms();
    let first_name = names.first().cloned().unwrap_or_else(|| "ferrocl".into());
    let find = |want: &str, not: Option<cl_platform_id>| {
        platforms
            .iter()
            .copied()
            .find(|p| Some(*p) != not && platform_name(*p).to_lowercase().contains(want))
    };
    let Some(first) = find(&first_name, None) else {
        eprintln!("ferrocl-bench: no platform matches {first_name:?}");
        std::process::exit(2);
    };
    let second = match names.get(1) {
        Some(n) => find(n, Some(first)),
        None => platforms.iter().copied().find(|p| *p != first),
    };
    // The baseline of a check decides the workload sizes.
    let mut baseline = None;
    if let Gate::Check(path) = &gate_mode {
        let Some(second) = second else {
            eprintln!("ferrocl-bench: no platform matches {:?}", names[1]);
            std::process::exit(2);
        };
        let card = device_string(devices(second)[0], CL_DEVICE_NAME);
        let file = baseline_file(path, &card);
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| {
            eprintln!("ferrocl-bench: cannot read {}: {e}", file.display());
            std::process::exit(2);
        });
        let b = gate::from_json(&text).unwrap_or_else(|e| {
            eprintln!("ferrocl-bench: {}: {e}", file.display());
            std::process::exit(2);
        });
        if b.card != card {
            eprintln!(
                "ferrocl-bench: {} is the baseline of {:?}, this run's card is {card:?}",
                file.display(),
                b.card
            );
            std::process::exit(2);
        }
        quick = b.sizes == "quick";
        eprintln!(
            "checking against {} ({}, driver {}, {}, {} sizes)",
            file.display(),
            b.card,
            b.driver,
            b.date,
            b.sizes
        );
        baseline = Some(b);
    }
    let gpu = query_value::<cl_device_type>(device_info(devices(first)[0], CL_DEVICE_TYPE))
        .map(|t| t & CL_DEVICE_TYPE_GPU != 0)
        .unwrap_or(false);
    let s = if quick || !gpu {
        Sizes {
            label: "quick",
            copy_elems: 1 << 20,
            compute_items: 1 << 14,
            transfer_bytes: 16 << 20,
            launches: 500,
            reps: 3,
        }
    } else {
        Sizes {
            label: "full",
            copy_elems: 1 << 24,
            compute_items: 1 << 22,
            transfer_bytes: 256 << 20,
            launches: 20000,
            reps: 5,
        }
    };
    if addressing {
        let device = devices(first)[0];
        let name = format!(
            "{} / {}",
            platform_name(first),
            device_string(device, CL_DEVICE_NAME)
        );
        let ctx = Context::on(device);
        let q = ctx.queue();
        eprintln!("measuring {name}, physical addressing");
        let ra = addressing_rows(&ctx, &q, &s, "-ferrocl-addressing=physical");
        eprintln!("measuring {name}, descriptor addressing");
        let rb = addressing_rows(&ctx, &q, &s, "-ferrocl-addressing=descriptor");
        print_table(
            &format!("{name}, physical addressing"),
            &ra,
            Some((format!("{name}, descriptor addressing"), rb)),
        );
        return;
    }
    if pointer_rows {
        let device = devices(first)[0];
        let name = format!(
            "{} / {}",
            platform_name(first),
            device_string(device, CL_DEVICE_NAME)
        );
        let ctx = Context::on(device);
        let q = ctx.queue();
        let mut kinds = pointers::run(first, &ctx, &q, &s);
        let (_, buffers) = kinds.remove(0);
        if kinds.is_empty() {
            print_table(&format!("{name}, cl_mem buffers"), &buffers, None);
        }
        for (kind, rows) in kinds {
            print_table(
                &format!("{name}, {}", kind.label()),
                &rows,
                Some((format!("{name}, cl_mem buffers"), buffers.clone())),
            );
            println!();
        }
        return;
    }
    let (na, ra) = run_platform(first, &s);
    let other = second.map(|p| run_platform(p, &s));
    let measured: Vec<gate::Measured> = ra
        .iter()
        .map(|r| gate::Measured {
            name: r.name.to_string(),
            unit: r.unit.to_string(),
            higher_better: r.higher_better,
            ratio: other
                .as_ref()
                .and_then(|(_, rb)| rb.iter().find(|b| b.name == r.name))
                .map(|b| r.value / b.value),
        })
        .collect();
    let nb = other.as_ref().map(|(n, _)| n.clone());
    print_table(&na, &ra, other);
    match gate_mode {
        Gate::None => {}
        Gate::Write(path) => {
            let second = second.expect("checked above");
            let device = devices(second)[0];
            let card = device_string(device, CL_DEVICE_NAME);
            let b = gate::Baseline {
                driver: device_string(device, CL_DRIVER_VERSION),
                date: gate::today(),
                first: na,
                second: nb.unwrap_or_default(),
                sizes: s.label.to_string(),
                tolerance: gate::TOLERANCE,
                rows: measured
                    .iter()
                    .filter_map(|m| {
                        Some(gate::BaseRow {
                            name: m.name.clone(),
                            unit: m.unit.clone(),
                            higher_better: m.higher_better,
                            ratio: m.ratio.filter(|r| r.is_finite() && *r > 0.0)?,
                            tolerance: None,
                        })
                    })
                    .collect(),
                card,
            };
            let file = baseline_file(&path, &b.card);
            if let Err(e) = std::fs::write(&file, gate::to_json(&b)) {
                eprintln!("ferrocl-bench: cannot write {}: {e}", file.display());
                std::process::exit(2);
            }
            println!("baseline written: {}", file.display());
        }
        Gate::Check(_) => {
            let b = baseline.expect("read above");
            let lines = gate::compare(&b, &measured);
            println!();
            print!("{}", gate::table(&lines));
            if gate::failed(&lines) {
                println!("ferrocl-bench --check: FAILED (a row is worse than its baseline allows, or missing)");
                std::process::exit(1);
            }
            println!("ferrocl-bench --check: passed");
        }
    }
}
