//! Unit tests of pipelines made ahead of launches (`super`), on the first
//! device Vulkan offers (lavapipe in CI): programs are built with the
//! real compiler, the background worker runs, and the tests look at the
//! kernels' pipeline slots. Launch-level behaviour (results, errors
//! through the API) is in tests/tests/prewarm.rs.

use std::sync::Arc;

use super::*;
use crate::core::context::Context;
use crate::core::kernel::Kernel;
use crate::core::local_args;
use crate::core::platform::Platform;
use crate::core::program::{Program, Source};
use crate::vk::pipeline::test_failures;
use crate::vk::pipeline_lock::Priority;

/// Waits (20 s at most) until `cond` holds: whether it did. Tests that
/// hold the pipeline lock assert it only after letting go of the lock, so
/// that a failure does not leave their other threads waiting for it.
fn wait_until(cond: impl Fn() -> bool) -> bool {
    let t = std::time::Instant::now();
    while !cond() {
        if t.elapsed() > std::time::Duration::from_secs(20) {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    true
}

/// The first device, or `None` (the test then passes vacuously, saying so).
fn device() -> Option<Arc<Device>> {
    let d = Platform::get().devices.first().cloned();
    if d.is_none() {
        eprintln!("no Vulkan device: test skipped");
    }
    d
}

/// The first device where pipelines are made ahead (not with
/// `FERROCL_PREWARM=0`).
fn prewarm_device() -> Option<Arc<Device>> {
    if !enabled() {
        eprintln!("FERROCL_PREWARM=0: test skipped");
        return None;
    }
    device()
}

fn build(d: &Arc<Device>, src: &str, options: &str) -> Arc<Program> {
    let ctx = Context::new(vec![d.clone()], Vec::new(), None);
    let p = Program::new(ctx, Source::Text(src.to_string()));
    p.build(std::slice::from_ref(d), options)
        .unwrap_or_else(|e| panic!("build failed ({e}): {}", p.build_info(d).log));
    p
}

/// The slot of `name`, its pipelines object made.
fn made(p: &Program, d: &Device, name: &str) -> (Arc<KernelSlot>, Arc<KernelPipelines>) {
    let slot = p.pipelines.find(d, name).expect("a slot per kernel");
    let kp = slot
        .pipelines_if_made()
        .expect("pipelines object made ahead");
    (slot, kp)
}

#[test]
fn build_makes_the_predicted_pipelines() {
    let Some(d) = prewarm_device() else { return };
    let p = build(
        &d,
        "kernel void pw_one(global float* a) { a[get_global_id(0)] = 1.0f; }
         kernel void pw_two(global float* a) { a[get_global_id(1) * get_global_size(0) + get_global_id(0)] = 2.0f; }
         kernel void pw_three(global float* a) { a[get_global_id(2)] = 3.0f; }
         __attribute__((reqd_work_group_size(8, 4, 1)))
         kernel void pw_reqd(global float* a) { a[get_global_id(0)] = 4.0f; }",
        "",
    );
    wait_idle();
    let limits = device_limits(&d);
    for (name, dims) in [("pw_one", 1), ("pw_two", 2), ("pw_three", 3)] {
        let (slot, kp) = made(&p, &d, name);
        let specs = slot.predicted_specs(kp.subgroup_mode());
        // What a NULL local size picks for large global sizes comes first.
        let mut global = [1usize; 3];
        global[..dims].fill(1 << 20);
        let max = work_group_size(slot.info(), &d, kp.subgroup_mode());
        let null = launch::choose_local_size(dims, &global, max, &limits).map(|l| l as u32);
        assert_eq!(specs[0], launch::dispatch_spec(null, null, &[]), "{name}");
        for s in &specs {
            assert!(kp.is_ready(s), "{name}: pipeline {s:?} made ahead");
        }
        assert_eq!(kp.creations() as usize, specs.len(), "{name}");
    }
    let (slot, kp) = made(&p, &d, "pw_reqd");
    let specs = slot.predicted_specs(kp.subgroup_mode());
    assert_eq!(
        specs,
        vec![launch::dispatch_spec([8, 4, 1], [8, 4, 1], &[])],
        "reqd_work_group_size is the one prediction"
    );
    assert!(kp.is_ready(&specs[0]));
}

#[test]
fn kernels_share_the_pipelines_made_ahead() {
    let Some(d) = prewarm_device() else { return };
    let p = build(
        &d,
        "kernel void pw_share(global int* a) { a[get_global_id(0)] += 1; }",
        "",
    );
    // No wait: clCreateKernel joins whatever the worker is doing.
    let k1 = Kernel::new(&p, "pw_share").expect("clCreateKernel");
    let k2 = Kernel::new(&p, "pw_share").expect("clCreateKernel");
    assert!(Arc::ptr_eq(
        &k1.per_device[0].pipelines,
        &k2.per_device[0].pipelines
    ));
    wait_idle();
    let (slot, kp) = made(&p, &d, "pw_share");
    assert!(Arc::ptr_eq(&kp, &k1.per_device[0].pipelines));
    let spec = slot.predicted_specs(kp.subgroup_mode())[0].clone();
    assert!(kp.is_ready(&spec));
    let before = kp.creations();
    // The launch's lookup finds it: nothing is created again.
    kp.get(&spec).expect("pipeline");
    assert_eq!(kp.creations(), before);
    // A size nobody predicted is created at its first use, once.
    let other = launch::dispatch_spec([3, 1, 1], [3, 1, 1], &[]);
    assert!(!kp.is_ready(&other));
    kp.get(&other).expect("pipeline");
    kp.get(&other).expect("pipeline");
    assert_eq!(kp.creations(), before + 1);
}

#[test]
fn concurrent_first_uses_create_a_pipeline_once() {
    let Some(d) = device() else { return };
    let p = build(
        &d,
        "kernel void pw_race(global int* a) { a[get_global_id(0)] = 7; }",
        "",
    );
    let k = Kernel::new(&p, "pw_race").expect("clCreateKernel");
    let kp = k.per_device[0].pipelines.clone();
    let spec = launch::dispatch_spec([5, 1, 1], [5, 1, 1], &[]);
    let before = kp.creations();
    let pipelines: Vec<ash::vk::Pipeline> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..6)
            .map(|i| {
                let kp = &kp;
                let spec = &spec;
                s.spawn(move || {
                    if i % 2 == 0 {
                        kp.get(spec).expect("pipeline")
                    } else {
                        let _ = kp.prefetch(spec).expect("prefetch");
                        kp.get(spec).expect("pipeline")
                    }
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().expect("thread")).collect()
    });
    assert!(pipelines.iter().all(|p| *p == pipelines[0]));
    wait_idle();
    // The worker's predicted pipelines may have been made meanwhile; the
    // raced one was made once.
    let predicted = p
        .pipelines
        .find(&d, "pw_race")
        .map(|s| s.predicted_specs(kp.subgroup_mode()).len() as u32)
        .unwrap_or(0);
    assert!(kp.creations() <= before + 1 + predicted);
    assert!(kp.is_ready(&spec));
}

#[test]
fn a_failed_creation_ahead_surfaces_at_the_launch() {
    let Some(d) = device() else { return };
    let p = build(
        &d,
        "kernel void pw_fail(global int* a) { a[get_global_id(0)] = 1; }",
        "",
    );
    wait_idle();
    let k = Kernel::new(&p, "pw_fail").expect("clCreateKernel");
    wait_idle();
    let kp = k.per_device[0].pipelines.clone();
    let spec = launch::dispatch_spec([6, 1, 1], [6, 1, 1], &[]);
    // Made ahead, failing: nothing is left behind...
    test_failures::fail_next("pw_fail", 1);
    assert_eq!(kp.prefetch(&spec), Err(CL_OUT_OF_RESOURCES));
    assert!(!kp.is_ready(&spec));
    // ...so the launch creates it (here: successfully).
    kp.get(&spec).expect("created at the launch");
    // A creation that keeps failing gives the launch its error, each time.
    let spec2 = launch::dispatch_spec([7, 1, 1], [7, 1, 1], &[]);
    test_failures::fail_next("pw_fail", 3);
    assert_eq!(kp.prefetch(&spec2), Err(CL_OUT_OF_RESOURCES));
    assert_eq!(kp.get(&spec2), Err(CL_OUT_OF_RESOURCES));
    assert_eq!(kp.get(&spec2), Err(CL_OUT_OF_RESOURCES));
    kp.get(&spec2).expect("the failures are spent");
}

#[test]
fn local_pointer_arguments_get_generic_pipelines_ahead() {
    let Some(d) = prewarm_device() else { return };
    let p = build(
        &d,
        "kernel void pw_local(global float* a, local float* t) {
             __local int own[5];
             own[get_local_id(0) % 5] = 1;
             t[get_local_id(0)] = a[get_global_id(0)];
             barrier(CLK_LOCAL_MEM_FENCE);
             a[get_global_id(0)] = t[0] + own[0];
         }",
        "",
    );
    wait_idle();
    let (slot, kp) = made(&p, &d, "pw_local");
    let specs = slot.predicted_specs(kp.subgroup_mode());
    // The likely sizes, then the explicit ones applications pick for
    // such kernels; each with the largest region the device leaves
    // after the kernel's 20 bytes (rounded up to 16).
    let generic = local_args::generic_region(&d, 20);
    assert_eq!(
        generic,
        (d.local_mem_size() as u32 - 32 - local_args::BESIDE_ARRAY) / 16 * 16
    );
    let locals: Vec<[u32; 3]> = specs.iter().map(|s| [s[0].1, s[1].1, s[2].1]).collect();
    assert!(locals.contains(&[64, 1, 1]) && locals.contains(&[128, 1, 1]));
    for s in &specs {
        assert_eq!(
            s.last(),
            Some(&(ferrocl_compiler::LOCAL_ARGS_SPEC_ID, generic))
        );
        assert!(kp.is_ready(s), "pipeline {s:?} made ahead");
    }
    assert_eq!(kp.creations() as usize, specs.len());
}

#[test]
fn releasing_programs_while_pipelines_are_made() {
    let Some(d) = prewarm_device() else { return };
    let src: String = (0..12)
        .map(|i| {
            format!("kernel void pw_rel{i}(global float* a) {{ a[get_global_id(0)] = {i}.0f; }}\n")
        })
        .collect();
    let mut watched = Vec::new();
    for round in 0..4 {
        let p = build(&d, &src, "");
        if round % 2 == 1 {
            // Let the worker get into the middle of this program.
            while p
                .pipelines
                .find(&d, "pw_rel0")
                .and_then(|s| s.pipelines_if_made())
                .is_none()
            {
                std::thread::yield_now();
            }
        }
        if let Some(kp) = p
            .pipelines
            .find(&d, "pw_rel0")
            .and_then(|s| s.pipelines_if_made())
        {
            watched.push(Arc::downgrade(&kp));
        }
        drop(p);
    }
    wait_idle();
    // Every pipelines object of the released programs is gone, freed by
    // whoever held it last (this thread or the worker).
    assert!(watched.iter().all(|w| w.upgrade().is_none()));
    // And the device still builds and makes pipelines.
    let p = build(&d, &src, "");
    let k = Kernel::new(&p, "pw_rel11").expect("clCreateKernel");
    wait_idle();
    assert!(k.per_device[0].pipelines.creations() > 0);
}

#[test]
fn a_rebuild_replaces_the_slots() {
    let Some(d) = prewarm_device() else { return };
    let p = build(
        &d,
        "kernel void pw_rebuild(global int* a) { a[get_global_id(0)] = VALUE; }",
        "-DVALUE=1",
    );
    wait_idle();
    let (_, first) = made(&p, &d, "pw_rebuild");
    p.build(std::slice::from_ref(&d), "-DVALUE=2")
        .expect("rebuild");
    wait_idle();
    let (_, second) = made(&p, &d, "pw_rebuild");
    assert!(!Arc::ptr_eq(&first, &second));
    let k = Kernel::new(&p, "pw_rebuild").expect("clCreateKernel");
    assert!(Arc::ptr_eq(&k.per_device[0].pipelines, &second));
}

/// Launches through the object model: buffers, arguments, NDRanges.
mod launches {
    use super::*;
    use crate::core::kernel::ArgValue;
    use crate::core::memory::Mem;
    use crate::core::prepared_launch::enqueue_ndrange;
    use crate::core::queue::Queue;
    use crate::core::transfer::enqueue_read;

    fn int_buffer(p: &Program, values: &[i32]) -> Arc<Mem> {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        Mem::new_buffer(
            p.context.clone(),
            CL_MEM_READ_WRITE,
            bytes.len(),
            0,
            Some(&bytes),
            Vec::new(),
        )
        .expect("buffer")
    }

    fn read_ints(q: &Arc<Queue>, m: &Arc<Mem>, n: usize) -> Vec<i32> {
        let mut bytes = vec![0u8; n * 4];
        let e = enqueue_read(q, m, 0, n * 4, bytes.as_mut_ptr(), Vec::new()).expect("read");
        assert_eq!(e.wait(), CL_COMPLETE);
        bytes
            .chunks(4)
            .map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect()
    }

    fn launch(
        q: &Arc<Queue>,
        k: &Arc<Kernel>,
        global: usize,
        local: Option<usize>,
    ) -> CLResult<()> {
        let e = enqueue_ndrange(
            q,
            k,
            1,
            [0; 3],
            [global, 1, 1],
            local.map(|l| [l, 1, 1]),
            Vec::new(),
        )?;
        assert_eq!(e.wait(), CL_COMPLETE);
        Ok(())
    }

    #[test]
    fn many_kernels_launched_from_many_threads() {
        let Some(d) = device() else { return };
        let n_kernels: usize = 24;
        let src: String = (0..n_kernels)
            .map(|i| {
                format!(
                    "kernel void pw_many{i}(global int* a) {{ a[get_global_id(0)] += {i} + 1; }}\n"
                )
            })
            .collect();
        let p = build(&d, &src, "");
        // No wait for the worker: launches race with it.
        std::thread::scope(|s| {
            for t in 0..4 {
                let p = &p;
                let d = &d;
                s.spawn(move || {
                    let q = Queue::new(p.context.clone(), d.clone(), 0, Vec::new()).expect("queue");
                    for i in (t..n_kernels).step_by(4) {
                        let k = Kernel::new(p, &format!("pw_many{i}")).expect("clCreateKernel");
                        let buf = int_buffer(p, &vec![0; 1024]);
                        k.set_arg(0, ArgValue::Buffer(Some(Arc::downgrade(&buf))));
                        // NULL local size (predicted), then an explicit one.
                        launch(&q, &k, 1024, None).expect("launch");
                        launch(&q, &k, 1024, Some(64)).expect("launch");
                        let got = read_ints(&q, &buf, 1024);
                        assert!(got.iter().all(|&v| v == 2 * (i as i32 + 1)), "pw_many{i}");
                        // Each pipeline was created once: the predicted
                        // ones and the local size 64 one at most.
                        let kp = &k.per_device[0].pipelines;
                        let slot = p.pipelines.find(d, &format!("pw_many{i}")).expect("slot");
                        let predicted = slot.predicted_specs(kp.subgroup_mode()).len() as u32;
                        assert!(kp.creations() <= predicted + 1, "pw_many{i}");
                    }
                });
            }
        });
        wait_idle();
    }

    /// `__local` pointer arguments of odd sizes and alignments (char,
    /// float4, double16 pointees) after the kernel's own 12 bytes of
    /// `__local` data: any overlap of the parts changes the sums.
    pub(crate) const ODD_LOCALS: &str = "
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
                d[i] = (double16)(0.5 * i + g) + (double16)(0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0,
                    7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0);
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
        }";

    /// What `odd_locals` writes for work-item `gid` in groups of `n`.
    pub(crate) fn odd_locals_reference(
        seeds: &[i32],
        n: usize,
        gid: usize,
        (nc, nf, nd): (usize, usize, usize),
    ) -> i64 {
        let (lid, g) = (gid % n, i64::from(seeds[gid / n]));
        let mine = |len: usize| (n - 1 - lid..len).step_by(n).map(|i| i as i64);
        let mut s = g + (lid % 3) as i64;
        s += mine(nc).map(|i| (g + 7 * i) & 127).sum::<i64>();
        s += mine(nf).map(|i| 10 * (i + g) + 20).sum::<i64>();
        s += mine(nd).map(|i| 3 * i + 6 * g + 44).sum::<i64>();
        s
    }

    fn set_odd_locals(k: &Kernel, seed: &Arc<Mem>, out: &Arc<Mem>, sizes: (usize, usize, usize)) {
        let (nc, nf, nd) = sizes;
        k.set_arg(0, ArgValue::Buffer(Some(Arc::downgrade(seed))));
        k.set_arg(1, ArgValue::Buffer(Some(Arc::downgrade(out))));
        k.set_arg(2, ArgValue::Local(nc));
        k.set_arg(3, ArgValue::Pod((nc as i32).to_le_bytes().to_vec()));
        k.set_arg(4, ArgValue::Local(nf * 16));
        k.set_arg(5, ArgValue::Pod((nf as i32).to_le_bytes().to_vec()));
        k.set_arg(6, ArgValue::Local(nd * 128));
        k.set_arg(7, ArgValue::Pod((nd as i32).to_le_bytes().to_vec()));
    }

    fn read_longs(q: &Arc<Queue>, m: &Arc<Mem>, n: usize) -> Vec<i64> {
        let mut bytes = vec![0u8; n * 8];
        let e = enqueue_read(q, m, 0, n * 8, bytes.as_mut_ptr(), Vec::new()).expect("read");
        assert_eq!(e.wait(), CL_COMPLETE);
        bytes
            .chunks(8)
            .map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect()
    }

    #[test]
    fn local_argument_launches_run_generic_then_exact_pipelines() {
        let Some(d) = prewarm_device() else { return };
        if !d.fp64() {
            eprintln!("no fp64: test skipped");
            return;
        }
        let p = build(&d, ODD_LOCALS, "");
        // The application's own set-up time: the generic pipelines are
        // made meanwhile.
        wait_idle();
        let k = Kernel::new(&p, "odd_locals").expect("clCreateKernel");
        wait_idle();
        let kp = k.per_device[0].pipelines.clone();
        let q = Queue::new(p.context.clone(), d.clone(), 0, Vec::new()).expect("queue");
        let (n, groups) = (64usize, 2usize);
        let seeds = [5, 11];
        let seed = int_buffer(&p, &seeds);
        let out = int_buffer(&p, &vec![0; 2 * n * groups]);
        let mut launches = 0;
        for nc in [1, 3, 17, 1001] {
            for nf in [1, 5, 64] {
                for nd in [1, 3, 40] {
                    set_odd_locals(&k, &seed, &out, (nc, nf, nd));
                    for _ in 0..2 {
                        launch(&q, &k, n * groups, Some(n)).expect("launch");
                        launches += 1;
                        let got = read_longs(&q, &out, n * groups);
                        for (gid, v) in got.iter().enumerate() {
                            let want = odd_locals_reference(&seeds, n, gid, (nc, nf, nd));
                            assert_eq!(*v, want, "sizes ({nc}, {nf}, {nd}), work-item {gid}");
                        }
                    }
                }
            }
        }
        // No launch created a pipeline: the generic one ran until the
        // exact one of its region was made in the background.
        assert_eq!(kp.launch_creations(), 0);
        let (exact, generic) = kp.variant_counts();
        assert_eq!(exact + generic, launches);
        assert!(
            generic >= 1,
            "the first launch ran with the generic pipeline"
        );
        // Once the worker is done, every region has its exact pipeline.
        wait_idle();
        launch(&q, &k, n * groups, Some(n)).expect("launch");
        assert_eq!(kp.variant_counts(), (exact + 1, generic));
        let got = read_longs(&q, &out, n * groups);
        for (gid, v) in got.iter().enumerate() {
            assert_eq!(*v, odd_locals_reference(&seeds, n, gid, (1001, 64, 40)));
        }
        assert_eq!(kp.launch_creations(), 0);
    }

    #[test]
    fn the_first_local_argument_launch_creates_no_pipeline() {
        let Some(d) = prewarm_device() else { return };
        let p = build(
            &d,
            "kernel void pw_first_local(global int* a, local int* t) {
                 t[get_local_id(0)] = a[get_global_id(0)];
                 barrier(CLK_LOCAL_MEM_FENCE);
                 a[get_global_id(0)] = t[get_local_size(0) - 1 - get_local_id(0)] * 2;
             }",
            "",
        );
        wait_idle();
        let k = Kernel::new(&p, "pw_first_local").expect("clCreateKernel");
        let kp = k.per_device[0].pipelines.clone();
        let made_ahead = kp.creations();
        assert!(made_ahead > 0);
        let q = Queue::new(p.context.clone(), d.clone(), 0, Vec::new()).expect("queue");
        let input: Vec<i32> = (0..1024).collect();
        let buf = int_buffer(&p, &input);
        k.set_arg(0, ArgValue::Buffer(Some(Arc::downgrade(&buf))));
        // A NULL local size: its local size is chosen at the launch; the
        // argument is as large as the largest group allowed.
        k.set_arg(1, ArgValue::Local(4 * k.work_group_size(&d)));
        launch(&q, &k, 1024, None).expect("launch");
        assert_eq!(
            kp.launch_creations(),
            0,
            "no pipeline created at the launch"
        );
        assert_eq!(kp.variant_counts(), (0, 1));
        // The group size it chose, from the reversal.
        let got = read_ints(&q, &buf, 1024);
        let group = got[0] as usize / 2 + 1;
        assert!(group.is_power_of_two() && group <= k.work_group_size(&d));
        let want: Vec<i32> = input
            .chunks(group)
            .flat_map(|c| c.iter().rev().map(|v| v * 2))
            .collect();
        assert_eq!(got, want);
        // An explicit local size applications often pick: made ahead too.
        k.set_arg(1, ArgValue::Local(4 * 64));
        launch(&q, &k, 1024, Some(64)).expect("launch");
        assert_eq!(
            kp.launch_creations(),
            0,
            "no pipeline created at the launch"
        );
        assert_eq!(kp.variant_counts().0 + kp.variant_counts().1, 2);
        wait_idle();
    }

    #[test]
    fn a_launch_goes_before_the_background_queue() {
        let Some(d) = prewarm_device() else { return };
        let vkdev = d.vk().expect("device");
        let p = build(
            &d,
            "kernel void pw_urgent(global int* a) { a[get_global_id(0)] = (int)get_local_size(0); }",
            "",
        );
        let k = Kernel::new(&p, "pw_urgent").expect("clCreateKernel");
        let kp = k.per_device[0].pipelines.clone();
        let q = Queue::new(p.context.clone(), d.clone(), 0, Vec::new()).expect("queue");
        let buf = int_buffer(&p, &[0; 24]);
        k.set_arg(0, ArgValue::Buffer(Some(Arc::downgrade(&buf))));
        // The creation in progress: the worker waits behind it with a
        // long queue (another program's predicted pipelines).
        let hold = vkdev.pipeline_lock.lock(Priority::Now);
        let many: String = (0..8)
            .map(|i| {
                format!(
                    "kernel void pw_backlog{i}(global int* a) {{ a[get_global_id(0)] = {i}; }}\n"
                )
            })
            .collect();
        let backlog = build(&d, &many, "");
        let groups: Vec<usize> = (0..8)
            .map(|i| {
                let slot = backlog.pipelines.find(&d, &format!("pw_backlog{i}"));
                Arc::as_ptr(&slot.expect("slot")) as usize
            })
            .collect();
        let queued = || {
            let st = worker().state.lock();
            st.jobs.iter().filter(|j| groups.contains(&j.group)).count()
        };
        // At least one pipeline per kernel, less the job the worker may
        // have taken (it waits for the lock).
        assert!(queued() >= 7, "the backlog is queued");
        std::thread::scope(|s| {
            // Local size 3: a pipeline nothing made ahead.
            let launcher = s.spawn(|| launch(&q, &k, 24, Some(3)));
            let id = launcher.thread().id();
            let waiting = wait_until(|| vkdev.pipeline_lock.is_waiting_now(id));
            let (_, background) = vkdev.pipeline_lock.grants();
            drop(hold);
            launcher.join().expect("no panic").expect("launch");
            assert!(waiting, "the launch waited for the pipeline lock");
            // Its creation came right after the one in progress: no
            // background creation in between.
            assert_eq!(kp.launch_creations(), 1);
            assert_eq!(kp.last_launch_after(), background);
        });
        assert!(read_ints(&q, &buf, 24).iter().all(|&v| v == 3));
        wait_idle();
        // The worker then went through the whole backlog.
        for i in 0..8 {
            let (_, kp) = made(&backlog, &d, &format!("pw_backlog{i}"));
            assert!(kp.creations() > 0, "pw_backlog{i}");
        }
    }

    #[test]
    fn local_arguments_past_the_device_fail_the_launch() {
        let Some(d) = device() else { return };
        let p = build(
            &d,
            "kernel void pw_big_local(global int* a, local char* c, local long16* l) {
                 c[0] = 1;
                 l[get_local_id(0)] = (long16)(a[0]);
                 barrier(CLK_LOCAL_MEM_FENCE);
                 a[get_global_id(0)] = c[0] + (int)l[0].s3;
             }",
            "",
        );
        let k = Kernel::new(&p, "pw_big_local").expect("clCreateKernel");
        let q = Queue::new(p.context.clone(), d.clone(), 0, Vec::new()).expect("queue");
        let buf = int_buffer(&p, &[3; 16]);
        k.set_arg(0, ArgValue::Buffer(Some(Arc::downgrade(&buf))));
        let max = d.local_mem_size() as usize;
        // CL_KERNEL_LOCAL_MEM_SIZE is within the device's, but the long16
        // part starts at 128 (after 16 bytes of chars): it does not fit.
        k.set_arg(1, ArgValue::Local(4));
        k.set_arg(2, ArgValue::Local(max - 4));
        assert!(k.local_mem_size() <= max as u64);
        assert_eq!(launch(&q, &k, 16, Some(16)), Err(CL_OUT_OF_RESOURCES));
        // More than the device has at all.
        k.set_arg(2, ArgValue::Local(max));
        assert_eq!(launch(&q, &k, 16, Some(16)), Err(CL_OUT_OF_RESOURCES));
        // What fits exactly runs (with a pipeline of its own: larger than
        // the generic region).
        k.set_arg(2, ArgValue::Local(max - 128));
        launch(&q, &k, 16, Some(16)).expect("launch");
        assert!(read_ints(&q, &buf, 16).iter().all(|&v| v == 4));
        wait_idle();
    }

    #[test]
    fn a_failed_creation_ahead_fails_the_launch_as_before() {
        let Some(d) = device() else { return };
        let p = build(
            &d,
            "kernel void pw_launchfail(global int* a) { a[get_global_id(0)] = 5; }",
            "",
        );
        let k = Kernel::new(&p, "pw_launchfail").expect("clCreateKernel");
        wait_idle();
        let q = Queue::new(p.context.clone(), d.clone(), 0, Vec::new()).expect("queue");
        let buf = int_buffer(&p, &[0; 64]);
        k.set_arg(0, ArgValue::Buffer(Some(Arc::downgrade(&buf))));
        // The background creation of local size 32 fails, and so does the
        // launch's own: clEnqueueNDRangeKernel returns the error.
        let spec = launch::dispatch_spec([32, 1, 1], [32, 1, 1], &[]);
        test_failures::fail_next("pw_launchfail", 2);
        assert_eq!(
            k.per_device[0].pipelines.prefetch(&spec),
            Err(CL_OUT_OF_RESOURCES)
        );
        assert_eq!(launch(&q, &k, 64, Some(32)), Err(CL_OUT_OF_RESOURCES));
        // Nothing of it stays: the next launch creates the pipeline.
        launch(&q, &k, 64, Some(32)).expect("launch");
        assert!(read_ints(&q, &buf, 64).iter().all(|&v| v == 5));
    }

    #[test]
    fn a_kernel_outlives_its_released_program() {
        let Some(d) = device() else { return };
        let p = build(
            &d,
            "kernel void pw_outlive(global int* a) { a[get_global_id(0)] = 9; }
             kernel void pw_other(global int* a) { a[get_global_id(0)] = 8; }",
            "",
        );
        let k = Kernel::new(&p, "pw_outlive").expect("clCreateKernel");
        let q = Queue::new(p.context.clone(), d.clone(), 0, Vec::new()).expect("queue");
        let buf = int_buffer(&p, &[0; 256]);
        drop(p);
        k.set_arg(0, ArgValue::Buffer(Some(Arc::downgrade(&buf))));
        launch(&q, &k, 256, None).expect("launch");
        assert!(read_ints(&q, &buf, 256).iter().all(|&v| v == 9));
        wait_idle();
    }
}

#[test]
fn a_later_build_is_made_ahead_first() {
    let Some(d) = prewarm_device() else { return };
    let vkdev = d.vk().expect("device");
    // The worker blocks at its first pipeline while this is held, so the
    // queue keeps the order the builds gave it.
    let hold = vkdev.pipeline_lock.lock(Priority::Now);
    let many: String = (0..6)
        .map(|i| format!("kernel void pw_old{i}(global int* a) {{ a[get_global_id(0)] = {i}; }}\n"))
        .collect();
    let old = build(&d, &many, "");
    let new = build(
        &d,
        "kernel void pw_new(global int* a) { a[get_global_id(0)] = 7; }",
        "",
    );
    let group =
        |p: &Program, name: &str| Arc::as_ptr(&p.pipelines.find(&d, name).unwrap()) as usize;
    let new_group = group(&new, "pw_new");
    let old_groups: Vec<usize> = (0..6).map(|i| group(&old, &format!("pw_old{i}"))).collect();
    let order: Vec<usize> = worker().state.lock().jobs.iter().map(|j| j.group).collect();
    drop(hold);
    let first_old = order.iter().position(|g| old_groups.contains(g));
    let last_new = order.iter().rposition(|g| *g == new_group);
    assert!(
        last_new.is_some(),
        "the later build's jobs are queued: {order:?}"
    );
    if let Some(first_old) = first_old {
        assert!(
            last_new.unwrap() < first_old,
            "the later build's jobs come first: {order:?}"
        );
    }
    wait_idle();
}

#[test]
fn identical_kernels_of_two_programs_share_their_pipelines() {
    let Some(d) = prewarm_device() else { return };
    let src = "kernel void pw_twice(global int* a) { a[get_global_id(0)] = 11; }";
    let first = build(&d, src, "");
    let second = build(&d, src, "");
    let k1 = Kernel::new(&first, "pw_twice").expect("clCreateKernel");
    let k2 = Kernel::new(&second, "pw_twice").expect("clCreateKernel");
    wait_idle();
    assert!(
        Arc::ptr_eq(&k1.per_device[0].pipelines, &k2.per_device[0].pipelines),
        "one pipelines object for the same kernel built twice"
    );
    // Another kernel (other code) has its own.
    let other = build(
        &d,
        "kernel void pw_twice(global int* a) { a[get_global_id(0)] = 12; }",
        "",
    );
    let k3 = Kernel::new(&other, "pw_twice").expect("clCreateKernel");
    assert!(!Arc::ptr_eq(
        &k1.per_device[0].pipelines,
        &k3.per_device[0].pipelines
    ));
}

#[test]
fn a_warm_rebuild_queues_no_copies_and_creates_no_pipeline() {
    let Some(d) = prewarm_device() else { return };
    let vkdev = d.vk().expect("device");
    let names: Vec<String> = (0..4).map(|i| format!("pw_warm{i}")).collect();
    let src: String = (0..4)
        .map(|i| {
            format!(
                "kernel void pw_warm{i}(global int* a, local int* t) {{
                     t[get_local_id(0)] = a[get_global_id(0)] + {i};
                     barrier(CLK_LOCAL_MEM_FENCE);
                     a[get_global_id(0)] = t[0];
                 }}\n"
            )
        })
        .collect();
    // The worker waits at its first creation while this is held (the
    // creation in progress), so the queue keeps what both builds put
    // there.
    let mut hold = Some(vkdev.pipeline_lock.lock(Priority::Now));
    let cold = build(&d, &src, "");
    // The same source again: the program cache's executable, the same
    // kernels.
    let warm = build(&d, &src, "");
    let slot = |p: &Program, name: &str| p.pipelines.find(&d, name).expect("slot");
    let kernels: Vec<u64> = names
        .iter()
        .map(|n| shared::Key::new(&d, slot(&warm, n).info()).digest())
        .collect();
    let predicted: usize = names
        .iter()
        .map(|n| slot(&warm, n).predicted_specs(None).len())
        .sum();
    let queued: Vec<(u64, usize)> = {
        let st = worker().state.lock();
        st.jobs
            .iter()
            .filter_map(|j| j.what)
            .filter(|(k, _)| kernels.contains(k))
            .collect()
    };
    let mut once = queued.clone();
    once.sort_unstable();
    once.dedup();
    assert_eq!(once.len(), queued.len(), "no job twice: {queued:?}");
    // Every predicted pipeline of the warm build is queued, but the job
    // the worker may have taken (it waits for the lock).
    assert!(
        (predicted - 1..=predicted).contains(&queued.len()),
        "{predicted} predicted: {queued:?}"
    );
    // clCreateKernel on the cold build: its kernel's jobs are the warm
    // build's now, and they move to the front.
    let last = names.last().expect("kernels");
    std::thread::scope(|s| {
        let k = s.spawn(|| Kernel::new(&cold, last).expect("clCreateKernel"));
        let id = k.thread().id();
        // It waits for the lock (its shader module), after promoting.
        let waiting = wait_until(|| vkdev.pipeline_lock.is_waiting_now(id));
        let order: Vec<u64> = {
            let st = worker().state.lock();
            st.jobs
                .iter()
                .filter_map(|j| j.what.map(|(k, _)| k))
                .filter(|k| kernels.contains(k))
                .collect()
        };
        // Let it through, then hold the lock again (after the creation
        // in progress, if the worker started one meanwhile).
        drop(hold.take());
        k.join().expect("no panic");
        assert!(waiting, "clCreateKernel waited for the pipeline lock");
        let first_other = order.iter().position(|k| *k != kernels[3]);
        let last_mine = order.iter().rposition(|k| *k == kernels[3]);
        assert!(
            last_mine.is_some() && first_other.is_some_and(|o| o > last_mine.unwrap()),
            "{last}'s jobs first: {order:?}"
        );
        hold = Some(vkdev.pipeline_lock.lock(Priority::Now));
    });
    // clCreateKernel on the warm build while the worker makes the cold
    // build's first pipelines object (in progress: waited for, not made
    // twice).
    std::thread::scope(|s| {
        let k = s.spawn(|| Kernel::new(&warm, "pw_warm0").expect("clCreateKernel"));
        std::thread::sleep(std::time::Duration::from_millis(20));
        drop(hold.take());
        let k = k.join().expect("no panic");
        let k0 = Kernel::new(&cold, "pw_warm0").expect("clCreateKernel");
        assert!(Arc::ptr_eq(
            &k.per_device[0].pipelines,
            &k0.per_device[0].pipelines
        ));
    });
    wait_idle();
    for n in &names {
        let kw = Kernel::new(&warm, n).expect("clCreateKernel");
        let kc = Kernel::new(&cold, n).expect("clCreateKernel");
        let kp = &kw.per_device[0].pipelines;
        assert!(Arc::ptr_eq(kp, &kc.per_device[0].pipelines), "{n}");
        // Each predicted pipeline made once, for both programs.
        let specs = slot(&warm, n).predicted_specs(kp.subgroup_mode());
        for s in &specs {
            assert!(kp.is_ready(s), "{n}: {s:?}");
        }
        assert_eq!(kp.creations() as usize, specs.len(), "{n}");
        assert_eq!(kp.launch_creations(), 0, "{n}");
    }
}
