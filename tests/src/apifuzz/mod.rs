//! API fuzzing (`ferrocl-apifuzz`): a seeded random driver of the OpenCL
//! API through the ICD loader. Every entry point ferrocl's dispatch table
//! and extension lookup give (`icd/src/dispatch.rs`, `icd/src/lib.rs`) is
//! called with valid, invalid and boundary arguments from several threads
//! at once, and each returned code is checked against the set the
//! specification allows for that function (`spec`).
//!
//! - [`pool`]: the shared objects arguments are picked from.
//! - [`gen`]: one thread's state and argument generators.
//! - `calls_*`: one generator per entry point (or family).
//! - [`spec`]: the allowed codes, with the spec section of each.
//!
//! What is passed as a bad handle is what ferrocl's handle check claims
//! to catch (`runtime/src/core/object.rs`): NULL, live objects of another
//! kind, a forged handle (ferrocl's dispatch pointer, an unknown tag) and
//! handles whose reference count reached zero while another object keeps
//! the memory alive. Freed memory is never passed (undefined behaviour
//! for the application, in every implementation).

// The deprecated entry points are fuzzed too.
#![allow(deprecated)]

pub mod calls_cmdbuf;
pub mod calls_core;
pub mod calls_mem;
pub mod calls_prog;
pub mod gen;
pub mod pool;
pub mod spec;

use std::collections::BTreeMap;

use gen::{Kind, Violation, G};

type Call = fn(&mut G);

/// Every generator with its weight (calls per 1000, roughly): cheap
/// queries often, program builds and context creation rarely.
pub const CALLS: &[(&str, u32, Call)] = &[
    ("platform_ids", 10, calls_core::get_platform_ids),
    ("platform_info", 20, calls_core::get_platform_info),
    ("device_ids", 10, calls_core::get_device_ids),
    ("device_info", 30, calls_core::get_device_info),
    ("sub_devices", 5, calls_core::create_sub_devices),
    ("retain_release_device", 5, |g| {
        calls_core::retain_release(g, Kind::Device)
    }),
    ("timers", 5, calls_core::get_device_and_host_timer),
    ("create_context", 3, calls_core::create_context),
    (
        "create_context_from_type",
        2,
        calls_core::create_context_from_type,
    ),
    ("retain_release_context", 10, |g| {
        calls_core::retain_release(g, Kind::Context)
    }),
    ("context_info", 20, calls_core::get_context_info),
    (
        "context_destructor",
        5,
        calls_core::set_context_destructor_callback,
    ),
    (
        "create_queue_props",
        10,
        calls_core::create_command_queue_with_properties,
    ),
    ("create_queue", 5, calls_core::create_command_queue),
    ("retain_release_queue", 10, |g| {
        calls_core::retain_release(g, Kind::Queue)
    }),
    ("queue_info", 20, calls_core::get_command_queue_info),
    ("queue_property", 3, calls_core::set_command_queue_property),
    ("flush_finish", 15, calls_core::flush_finish),
    ("wait_for_events", 15, calls_core::wait_for_events),
    ("event_info", 20, calls_core::get_event_info),
    ("event_profiling", 10, calls_core::get_event_profiling_info),
    ("user_event", 15, calls_core::user_event),
    ("event_callback", 10, calls_core::set_event_callback),
    ("retain_release_event", 10, |g| {
        calls_core::retain_release(g, Kind::Event)
    }),
    ("marker_barrier", 20, calls_core::marker_barrier),
    (
        "extension_address",
        5,
        calls_core::get_extension_function_address,
    ),
    ("create_buffer", 25, calls_mem::create_buffer),
    ("sub_buffer", 15, calls_mem::create_sub_buffer),
    ("retain_release_mem", 10, |g| {
        calls_core::retain_release(g, Kind::Mem)
    }),
    ("mem_info", 20, calls_mem::get_mem_object_info),
    ("mem_destructor", 5, calls_mem::set_mem_destructor_callback),
    ("read_write_buffer", 40, calls_mem::read_write_buffer),
    ("read_write_rect", 25, calls_mem::read_write_buffer_rect),
    ("copy_buffer", 25, calls_mem::copy_buffer),
    ("copy_buffer_rect", 20, calls_mem::copy_buffer_rect),
    ("fill_buffer", 20, calls_mem::fill_buffer),
    ("map_buffer", 20, calls_mem::map_buffer),
    ("unmap_bad", 10, calls_mem::unmap_bad),
    ("migrate", 10, calls_mem::migrate_mem_objects),
    ("create_image", 20, calls_mem::create_image),
    ("image_formats", 10, calls_mem::get_supported_image_formats),
    ("image_info", 15, calls_mem::get_image_info),
    ("read_write_image", 20, calls_mem::read_write_image),
    ("copy_fill_image", 25, calls_mem::copy_fill_image),
    ("map_image", 15, calls_mem::map_image),
    ("pipes", 5, calls_mem::pipes),
    ("samplers", 15, calls_mem::samplers),
    ("retain_release_sampler", 5, |g| {
        calls_core::retain_release(g, Kind::Sampler)
    }),
    ("svm_alloc_free", 10, calls_mem::svm_alloc_free),
    ("svm_enqueue", 25, calls_mem::svm_enqueue),
    ("create_program", 8, calls_prog::create_program),
    ("build_program", 2, calls_prog::build_program),
    ("retain_release_program", 10, |g| {
        calls_core::retain_release(g, Kind::Program)
    }),
    ("program_info", 20, calls_prog::program_info),
    ("program_misc", 10, calls_prog::program_misc),
    ("unsupported", 3, calls_core::unsupported),
    ("create_kernels", 15, calls_prog::create_kernels),
    ("retain_release_kernel", 10, |g| {
        calls_core::retain_release(g, Kind::Kernel)
    }),
    ("set_kernel_arg", 40, calls_prog::set_kernel_arg),
    (
        "kernel_arg_svm_exec_info",
        10,
        calls_prog::set_kernel_arg_svm_exec_info,
    ),
    ("kernel_info", 25, calls_prog::kernel_info),
    ("clone_kernel", 5, calls_prog::clone_kernel),
    ("enqueue_kernel", 35, calls_prog::enqueue_kernel),
    ("suggested_local", 10, calls_prog::suggested_local_size),
    (
        "device_pointer",
        5,
        calls_prog::set_kernel_arg_device_pointer,
    ),
    ("cmdbuf_create", 5, calls_cmdbuf::create),
    ("cmdbuf_retain_release", 5, calls_cmdbuf::retain_release),
    (
        "cmdbuf_finalize_enqueue_info",
        15,
        calls_cmdbuf::finalize_enqueue_info,
    ),
    ("cmdbuf_record", 20, calls_cmdbuf::record),
    ("cmdbuf_record_more", 15, calls_cmdbuf::record_more),
    ("mutable_dispatch", 10, calls_cmdbuf::mutable_dispatch),
];

/// What one batch of calls found.
#[derive(Default)]
pub struct Outcome {
    pub counts: BTreeMap<(&'static str, i32), u64>,
    pub violations: Vec<Violation>,
    pub calls: u64,
}

/// Runs `calls` calls on each of `threads` threads over `pool`; thread
/// `t`'s calls come from the stream `(seed, batch, t)`. With
/// `APIFUZZ_TRACE` set, each call's generator and codes go to stderr.
pub fn run_batch(pool: &pool::Pool, seed: u64, batch: u64, threads: usize, calls: u64) -> Outcome {
    let weights: Vec<u32> = CALLS.iter().map(|c| c.1).collect();
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let weights = &weights;
                s.spawn(move || {
                    let stream = batch.wrapping_mul(64).wrapping_add(t as u64);
                    let rng = crate::fuzz::rng::Rng::for_item(seed, stream);
                    let mut g = G::new(pool, rng);
                    for n in 0..calls {
                        let i = g.rng.weighted(weights);
                        if g.trace {
                            eprintln!("apifuzz: batch {batch} thread {t} call {n}: {}", CALLS[i].0);
                        }
                        (CALLS[i].2)(&mut g);
                    }
                    g.finish()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("fuzzing thread"))
            .collect()
    });
    let mut out = Outcome::default();
    for (counts, violations, n) in results {
        for (k, v) in counts {
            *out.counts.entry(k).or_default() += v;
        }
        out.violations.extend(violations);
        out.calls += n;
    }
    out
}
