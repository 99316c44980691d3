//! One fuzzing thread's state and its argument generators: handles of
//! every kind (valid, NULL, of another kind, forged, released, of another
//! context), sizes, flags, host pointers (always inside the thread's own
//! scratch memory, large enough for anything a valid call may touch),
//! wait lists and returned events.

use std::collections::BTreeMap;
use std::ffi::c_void;
use std::ptr;

use opencl_sys::*;

use super::pool::Pool;
use crate::fuzz::rng::Rng;

/// Bytes of each thread's host scratch memory.
pub const SCRATCH_BYTES: usize = 4 << 20;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Context,
    Queue,
    Mem,
    Image,
    Sampler,
    Program,
    Kernel,
    Event,
    Device,
    Platform,
}

/// A returned code outside the spec's set, or an object returned together
/// with an error (or none with CL_SUCCESS).
#[derive(Debug)]
pub struct Violation {
    pub function: &'static str,
    pub code: cl_int,
}

pub struct G<'a> {
    pub rng: Rng,
    pub pool: &'a Pool,
    pub scratch: Vec<u64>,
    /// This thread's kernels: `k` and `l` (set and launched), `d` (only
    /// given arguments, never launched).
    pub kernels: [cl_kernel; 3],
    /// Events returned to this thread, released when over 32.
    pub events: Vec<cl_event>,
    /// This thread's command buffers.
    pub cmdbufs: Vec<cl_command_buffer_khr>,
    /// Mutable commands recorded into them.
    pub mutables: Vec<(cl_command_buffer_khr, cl_mutable_command_khr)>,
    /// Wait list storage of the current call.
    pub wl: Vec<cl_event>,
    /// The returned-event slot of the current call.
    pub ev: cl_event,
    /// (function, code) → calls.
    pub counts: BTreeMap<(&'static str, cl_int), u64>,
    pub violations: Vec<Violation>,
    pub calls: u64,
    /// `APIFUZZ_TRACE` is set: print each call and code to stderr.
    pub trace: bool,
}

/// A callback that does nothing (event, memory, context, program, SVM).
pub extern "C" fn noop_event(_: cl_event, _: cl_int, _: *mut c_void) {}
pub extern "C" fn noop_mem(_: cl_mem, _: *mut c_void) {}
pub extern "C" fn noop_context(_: cl_context, _: *mut c_void) {}
pub extern "C" fn noop_program(_: cl_program, _: *mut c_void) {}
pub extern "C" fn noop_notify(
    _: *const std::ffi::c_char,
    _: *const c_void,
    _: usize,
    _: *mut c_void,
) {
}
pub extern "C" fn noop_native(_: *mut c_void) {}
pub extern "C" fn noop_svm(_: cl_command_queue, _: cl_uint, _: *mut *mut c_void, _: *mut c_void) {}

impl<'a> G<'a> {
    pub fn new(pool: &'a Pool, rng: Rng) -> G<'a> {
        let mut kernels = [ptr::null_mut(); 3];
        for (i, name) in [c"k", c"l", c"k"].iter().enumerate() {
            let mut e = 0;
            // SAFETY: live program, NUL-terminated name.
            kernels[i] = unsafe { clCreateKernel(pool.program, name.as_ptr(), &mut e) };
            assert_eq!(e, CL_SUCCESS, "apifuzz: clCreateKernel");
        }
        G {
            rng,
            pool,
            scratch: vec![0u64; SCRATCH_BYTES / 8],
            kernels,
            events: Vec::new(),
            cmdbufs: Vec::new(),
            mutables: Vec::new(),
            wl: Vec::new(),
            ev: ptr::null_mut(),
            counts: BTreeMap::new(),
            violations: Vec::new(),
            calls: 0,
            trace: std::env::var_os("APIFUZZ_TRACE").is_some(),
        }
    }

    /// Counts a call and checks its code against `allowed` (CL_SUCCESS,
    /// CL_OUT_OF_RESOURCES and CL_OUT_OF_HOST_MEMORY are always allowed).
    pub fn rec(&mut self, function: &'static str, code: cl_int) {
        if self.trace {
            eprintln!("  {function} -> {code}");
        }
        self.calls += 1;
        *self.counts.entry((function, code)).or_default() += 1;
        if code != CL_SUCCESS
            && code != CL_OUT_OF_RESOURCES
            && code != CL_OUT_OF_HOST_MEMORY
            && !super::spec::allows(function, code)
        {
            self.violations.push(Violation { function, code });
        }
    }

    /// [`G::rec`] for a function returning an object: the object must be
    /// non-NULL exactly when the code is CL_SUCCESS.
    pub fn rec_obj(&mut self, function: &'static str, code: cl_int, obj: *mut c_void) -> bool {
        self.rec(function, code);
        if obj.is_null() == (code == CL_SUCCESS) {
            self.violations.push(Violation { function, code: 1 });
        }
        !obj.is_null()
    }

    /// A call that succeeded where the spec requires an error.
    pub fn violation(&mut self, function: &'static str) {
        self.violations.push(Violation { function, code: 2 });
    }

    /// Whether `q` is one of the pool's queues.
    pub fn pool_queue(&self, q: cl_command_queue) -> bool {
        let p = self.pool;
        [p.queue, p.queue_ooo, p.queue2].contains(&q)
    }

    pub fn chance(&mut self, p: u32) -> bool {
        self.rng.chance(p)
    }

    pub fn below(&mut self, n: usize) -> usize {
        self.rng.below(n)
    }

    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        *self.rng.pick(items)
    }

    fn valid(&mut self, kind: Kind) -> *mut c_void {
        let p = self.pool;
        let other_context = self.chance(8);
        match kind {
            Kind::Context if other_context => p.context2.cast(),
            Kind::Context => p.context.cast(),
            Kind::Queue if other_context => p.queue2.cast(),
            Kind::Queue => {
                if self.chance(25) {
                    p.queue_ooo.cast()
                } else {
                    p.queue.cast()
                }
            }
            Kind::Mem if other_context => p.buffer2.cast(),
            Kind::Mem => {
                if p.has_images && self.chance(10) {
                    p.image.cast()
                } else {
                    self.pick(&p.buffers).cast()
                }
            }
            Kind::Image if other_context => p.buffers[0].cast(),
            Kind::Image => p.image.cast(),
            Kind::Sampler => p.sampler.cast(),
            Kind::Program => {
                if self.chance(15) {
                    p.program_unbuilt.cast()
                } else {
                    p.program.cast()
                }
            }
            Kind::Kernel => self.kernels[self.rng.below(2)].cast(),
            Kind::Event => {
                if !self.events.is_empty() && self.chance(50) {
                    self.pick(&self.events.clone()).cast()
                } else {
                    self.pick(&p.events).cast()
                }
            }
            Kind::Device => p.device.cast(),
            Kind::Platform => p.platform.cast(),
        }
    }

    /// A handle for an argument of `kind`: mostly a valid one, else NULL,
    /// an object of another kind, the forged handle or a released one.
    pub fn h(&mut self, kind: Kind) -> *mut c_void {
        let bad_ok = !matches!(kind, Kind::Platform | Kind::Device);
        match self.rng.weighted(&[80, 6, 8, 3, 3]) {
            0 => self.valid(kind),
            1 => ptr::null_mut(),
            2 | 3 if !bad_ok => self.valid(kind),
            2 => {
                let kinds = [
                    Kind::Context,
                    Kind::Queue,
                    Kind::Mem,
                    Kind::Program,
                    Kind::Kernel,
                    Kind::Event,
                    Kind::Sampler,
                ];
                let other = loop {
                    let k = self.pick(&kinds);
                    if k != kind && (k != Kind::Sampler || self.pool.has_images) {
                        break k;
                    }
                };
                self.valid(other)
            }
            3 => self.pool.forged(),
            _ => {
                let i = match kind {
                    Kind::Context => 0,
                    Kind::Mem => 1,
                    Kind::Program => 2,
                    Kind::Queue => 3,
                    _ => return self.valid(kind),
                };
                self.pool.dead[i]
            }
        }
    }

    pub fn ctx(&mut self) -> cl_context {
        self.h(Kind::Context).cast()
    }
    pub fn queue(&mut self) -> cl_command_queue {
        self.h(Kind::Queue).cast()
    }
    pub fn mem(&mut self) -> cl_mem {
        self.h(Kind::Mem).cast()
    }
    pub fn image(&mut self) -> cl_mem {
        if self.pool.has_images {
            self.h(Kind::Image).cast()
        } else {
            self.mem()
        }
    }
    pub fn program(&mut self) -> cl_program {
        self.h(Kind::Program).cast()
    }
    pub fn kernel(&mut self) -> cl_kernel {
        self.h(Kind::Kernel).cast()
    }
    pub fn event(&mut self) -> cl_event {
        self.h(Kind::Event).cast()
    }
    pub fn device(&mut self) -> cl_device_id {
        self.h(Kind::Device).cast()
    }
    pub fn platform(&mut self) -> cl_platform_id {
        self.h(Kind::Platform).cast()
    }
    pub fn sampler(&mut self) -> cl_sampler {
        if self.pool.has_images {
            self.h(Kind::Sampler).cast()
        } else {
            ptr::null_mut()
        }
    }

    /// A size or offset: small, boundary or huge.
    pub fn size(&mut self) -> usize {
        self.pick(&[
            0,
            1,
            3,
            4,
            16,
            64,
            1000,
            1024,
            4092,
            4096,
            4097,
            1 << 20,
            1 << 40,
            usize::MAX / 2,
            usize::MAX,
        ])
    }

    /// A size or offset for a host-memory extent: at most 64 KiB, or huge
    /// (which a valid call can never accept).
    pub fn host_size(&mut self) -> usize {
        self.pick(&[0, 1, 4, 16, 64, 1024, 4096, 4097, 1 << 16, usize::MAX])
    }

    /// Small counts and indices.
    pub fn small(&mut self) -> usize {
        self.pick(&[0, 0, 1, 1, 1, 2, 3, 4, 7, 64, 0x7fff_ffff])
    }

    /// One of `valid`, or zero, or random bits.
    pub fn flags(&mut self, valid: &[u64]) -> u64 {
        match self.rng.weighted(&[75, 8, 10, 7]) {
            0 => self.pick(valid),
            1 => 0,
            2 => 1u64 << self.below(64),
            _ => self.rng.next_u64(),
        }
    }

    /// A parameter name for a clGet*Info: mostly `base..base+span`.
    pub fn param(&mut self, base: u32, span: u32) -> u32 {
        if self.chance(88) {
            base + self.below(span as usize) as u32
        } else {
            self.rng.next_u64() as u32
        }
    }

    /// Host scratch memory at `offset` bytes (NULL 10% of the time when
    /// `may_null`).
    pub fn host(&mut self, may_null: bool) -> *mut c_void {
        if may_null && self.chance(10) {
            ptr::null_mut()
        } else {
            self.scratch.as_mut_ptr().cast()
        }
    }

    /// A clGet*Info's (size, value, size_ret).
    pub fn info_out(&mut self) -> (usize, *mut c_void, *mut usize) {
        let size = self.pick(&[0, 1, 2, 4, 8, 16, 64, 256, 4096, 65536]);
        let value = if self.chance(15) {
            ptr::null_mut()
        } else {
            // The second half: wait lists and arrays use the first.
            // SAFETY: inside the scratch.
            unsafe { self.scratch.as_mut_ptr().add(SCRATCH_BYTES / 16) }.cast()
        };
        let ret = if self.chance(30) {
            ptr::null_mut()
        } else {
            // SAFETY: inside the scratch.
            unsafe { self.scratch.as_mut_ptr().add(1) }.cast()
        };
        (size, value, ret)
    }

    /// An event wait list: (count, pointer), valid or not.
    pub fn wait_list(&mut self) -> (cl_uint, *const cl_event) {
        self.wl.clear();
        match self.rng.weighted(&[50, 6, 6, 38]) {
            0 => (0, ptr::null()),
            1 => (1 + self.below(3) as cl_uint, ptr::null()),
            2 => {
                self.wl.push(self.pool.events[0]);
                (0, self.wl.as_ptr())
            }
            _ => {
                let n = 1 + self.below(3);
                for _ in 0..n {
                    let e = if self.chance(88) {
                        self.valid(Kind::Event)
                    } else {
                        self.h(Kind::Event)
                    };
                    self.wl.push(e.cast());
                }
                (n as cl_uint, self.wl.as_ptr())
            }
        }
    }

    /// Where a returned event goes: NULL or the slot.
    pub fn ev_out(&mut self) -> *mut cl_event {
        self.ev = ptr::null_mut();
        if self.chance(40) {
            &mut self.ev
        } else {
            ptr::null_mut()
        }
    }

    /// Keeps an event a call returned (if any), releasing the oldest.
    pub fn keep_event(&mut self) {
        if self.ev.is_null() {
            return;
        }
        self.events.push(self.ev);
        self.ev = ptr::null_mut();
        if self.events.len() > 32 {
            let old = self.events.remove(0);
            // SAFETY: this thread's own reference.
            let code = unsafe { clReleaseEvent(old) };
            self.rec("clReleaseEvent", code);
        }
    }

    /// Three coordinates from `choices`.
    pub fn triple(&mut self, choices: &[usize]) -> [usize; 3] {
        [self.pick(choices), self.pick(choices), self.pick(choices)]
    }

    /// Waits for this thread's commands and releases its objects.
    pub fn finish(mut self) -> (BTreeMap<(&'static str, cl_int), u64>, Vec<Violation>, u64) {
        // SAFETY: pool queues are live; own objects are released once.
        unsafe {
            clFinish(self.pool.queue);
            clFinish(self.pool.queue_ooo);
            clFinish(self.pool.queue2);
            for e in self.events.drain(..) {
                clReleaseEvent(e);
            }
            for k in self.kernels {
                clReleaseKernel(k);
            }
        }
        super::calls_cmdbuf::release_all(&mut self);
        (self.counts, self.violations, self.calls)
    }
}
