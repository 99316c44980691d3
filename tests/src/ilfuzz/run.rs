//! Running one mutant through the API: clCreateProgramWithIL (or
//! WithBinary), clBuildProgram, clCreateKernelsInProgram and, where that
//! works, one launch of the first kernel with dummy arguments. Raw calls
//! only, so that no harness assertion can take the worker down: every
//! status is recorded, including those of the releases.

use std::ffi::c_void;
use std::ptr;

use opencl_sys::*;

use crate::error::error_name;

/// What one mutant did.
#[derive(Debug, Default)]
pub struct Report {
    /// clCreateProgramWithIL / WithBinary's status.
    pub create: cl_int,
    /// clBuildProgram's status, when the program was created.
    pub build: Option<cl_int>,
    /// The build log (after a build).
    pub log: String,
    /// clCreateKernelsInProgram's status and kernel count, after a build.
    pub kernels: Option<(cl_int, u32)>,
    /// The first kernel's launch: the first failing status of setting its
    /// arguments, enqueueing it and waiting, or CL_SUCCESS.
    pub launch: Option<cl_int>,
    /// The first kernel argument that took none of the dummy values (a
    /// sampler, an image, an odd struct size): then no launch.
    pub unsettable_arg: Option<cl_uint>,
    /// Calls that returned a status no input may cause (a release that
    /// failed, CL_OUT_OF_HOST_MEMORY: the code ferrocl's API boundary
    /// returns for a caught panic).
    pub suspicious: Vec<String>,
}

impl Report {
    /// The outcome class: `create:CODE`, `build:CODE`, `kernels:CODE`,
    /// `launch:CODE` for the first failing step, or `ok`.
    pub fn class(&self) -> String {
        if self.create != CL_SUCCESS {
            return format!("create:{}", error_name(self.create));
        }
        match self.build {
            Some(s) if s != CL_SUCCESS => return format!("build:{}", error_name(s)),
            _ => {}
        }
        if let Some((s, _)) = self.kernels {
            if s != CL_SUCCESS {
                return format!("kernels:{}", error_name(s));
            }
        }
        match (self.launch, self.unsettable_arg) {
            (Some(s), _) if s != CL_SUCCESS => format!("launch:{}", error_name(s)),
            (_, Some(_)) => "ok:not-launched".into(),
            _ => "ok".into(),
        }
    }

    /// Defects this mutant shows, whatever the outcome: an internal
    /// compiler error, a build failure without a log, a suspicious status.
    pub fn defects(&self) -> Vec<String> {
        let mut d = self.suspicious.clone();
        if let Some(line) = self
            .log
            .lines()
            .find(|l| l.contains("internal compiler error"))
        {
            d.push(format!("ice: {}", signature(line)));
        }
        if matches!(self.build, Some(s) if s != CL_SUCCESS) && self.log.trim().is_empty() {
            d.push("build failure with an empty log".into());
        }
        d
    }
}

/// A line made fit for grouping: digits, ids and offsets folded to `#`,
/// at most 120 characters.
pub fn signature(line: &str) -> String {
    let mut s = String::new();
    let mut last_digit = false;
    for c in line.trim().chars() {
        if c.is_ascii_digit() {
            if !last_digit {
                s.push('#');
            }
            last_digit = true;
        } else {
            s.push(c);
            last_digit = false;
        }
    }
    s.chars().take(120).collect()
}

/// The first line of a build log that says what failed.
pub fn log_signature(log: &str) -> String {
    let line = log
        .lines()
        .find(|l| l.contains("error"))
        .or_else(|| log.lines().find(|l| !l.trim().is_empty()))
        .unwrap_or("");
    signature(line)
}

/// Where a mutant runs: a ferrocl context, its device and a queue.
pub struct Target {
    pub context: cl_context,
    pub device: cl_device_id,
    pub queue: cl_command_queue,
}

/// Dummy buffers: zeros, larger than any corpus kernel indexes.
const DUMMY_BYTES: usize = 1 << 16;

/// Runs `bytes` (a program binary when `binary`, else SPIR-V) through the
/// API. `phase` is told each step before it starts ("build", "kernels",
/// "launch"), so that a crash or hang can be placed.
pub fn run_mutant(
    t: &Target,
    bytes: &[u8],
    binary: bool,
    launch: bool,
    phase: &mut dyn FnMut(&str),
) -> Report {
    let mut r = Report::default();
    let mut status = CL_SUCCESS;
    phase("create");
    let program = if binary {
        let len = bytes.len();
        let ptr = bytes.as_ptr();
        let mut binary_status = CL_SUCCESS;
        // SAFETY: one device, one binary of `len` readable bytes.
        unsafe {
            clCreateProgramWithBinary(
                t.context,
                1,
                &t.device,
                &len,
                &ptr,
                &mut binary_status,
                &mut status,
            )
        }
    } else {
        // SAFETY: `bytes.len()` readable bytes.
        unsafe { clCreateProgramWithIL(t.context, bytes.as_ptr().cast(), bytes.len(), &mut status) }
    };
    r.create = status;
    if status != CL_SUCCESS {
        return r;
    }
    phase("build");
    // SAFETY: a live program, one device, no options, no callback.
    let s = unsafe { clBuildProgram(program, 1, &t.device, c"".as_ptr(), None, ptr::null_mut()) };
    r.build = Some(s);
    r.log = build_log(program, t.device, &mut r.suspicious);
    if s == CL_SUCCESS {
        phase("kernels");
        kernels_and_launch(t, program, launch, &mut r, phase);
    }
    note(
        &mut r.suspicious,
        "clReleaseProgram",
        // SAFETY: the one reference this function holds.
        unsafe { clReleaseProgram(program) },
    );
    r
}

/// Records `status` of `call` as suspicious unless it is CL_SUCCESS.
fn note(suspicious: &mut Vec<String>, call: &str, status: cl_int) {
    if status != CL_SUCCESS {
        suspicious.push(format!("{call}: {}", error_name(status)));
    }
}

fn build_log(program: cl_program, device: cl_device_id, suspicious: &mut Vec<String>) -> String {
    let mut size = 0usize;
    // SAFETY: size query only.
    let s = unsafe {
        clGetProgramBuildInfo(
            program,
            device,
            CL_PROGRAM_BUILD_LOG,
            0,
            ptr::null_mut(),
            &mut size,
        )
    };
    if s != CL_SUCCESS {
        note(suspicious, "clGetProgramBuildInfo", s);
        return String::new();
    }
    let mut bytes = vec![0u8; size];
    // SAFETY: `size` writable bytes.
    let s = unsafe {
        clGetProgramBuildInfo(
            program,
            device,
            CL_PROGRAM_BUILD_LOG,
            size,
            bytes.as_mut_ptr().cast(),
            ptr::null_mut(),
        )
    };
    note(suspicious, "clGetProgramBuildInfo", s);
    if bytes.last() != Some(&0) {
        suspicious.push("build log not NUL-terminated".into());
    } else {
        bytes.pop();
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn kernels_and_launch(
    t: &Target,
    program: cl_program,
    launch: bool,
    r: &mut Report,
    phase: &mut dyn FnMut(&str),
) {
    let mut n: cl_uint = 0;
    // SAFETY: count query only.
    let s = unsafe { clCreateKernelsInProgram(program, 0, ptr::null_mut(), &mut n) };
    if s != CL_SUCCESS {
        r.kernels = Some((s, 0));
        return;
    }
    let mut kernels = vec![ptr::null_mut(); n as usize];
    // SAFETY: room for `n` kernels.
    let s = unsafe { clCreateKernelsInProgram(program, n, kernels.as_mut_ptr(), ptr::null_mut()) };
    r.kernels = Some((s, n));
    if s != CL_SUCCESS {
        return;
    }
    if launch {
        if let Some(&k) = kernels.first() {
            phase("launch");
            match launch_dummy(t, k, &mut r.suspicious) {
                Ok(s) => r.launch = Some(s),
                Err(i) => r.unsettable_arg = Some(i),
            }
        }
    }
    for k in kernels {
        // SAFETY: each kernel created above, released once.
        note(&mut r.suspicious, "clReleaseKernel", unsafe {
            clReleaseKernel(k)
        });
    }
}

/// Sets every argument of `k` to something that fits (a zeroed buffer, a
/// `__local` size, or zero bytes of the size the kernel takes), launches a
/// few work-items and waits. Returns the first failing status, or the
/// index of an argument none of the dummies fit (no launch then).
fn launch_dummy(t: &Target, k: cl_kernel, suspicious: &mut Vec<String>) -> Result<cl_int, cl_uint> {
    let mut args: cl_uint = 0;
    // SAFETY: a cl_uint query into a live local.
    let s = unsafe {
        clGetKernelInfo(
            k,
            CL_KERNEL_NUM_ARGS,
            size_of::<cl_uint>(),
            (&mut args as *mut cl_uint).cast(),
            ptr::null_mut(),
        )
    };
    if s != CL_SUCCESS {
        return Ok(s);
    }
    let mut buffers = Vec::new();
    let unsettable = (0..args).find(|&i| !set_dummy_arg(t, k, i, &mut buffers));
    let mut result = CL_SUCCESS;
    if unsettable.is_none() {
        let mut reqd = [0usize; 3];
        // SAFETY: three size_t into a live local.
        let s = unsafe {
            clGetKernelWorkGroupInfo(
                k,
                t.device,
                CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                size_of_val(&reqd),
                reqd.as_mut_ptr().cast(),
                ptr::null_mut(),
            )
        };
        let global = if s == CL_SUCCESS && reqd[0] > 0 {
            reqd
        } else {
            [8, 1, 1]
        };
        // SAFETY: a live queue and kernel, three dimensions given.
        result = unsafe {
            clEnqueueNDRangeKernel(
                t.queue,
                k,
                3,
                ptr::null(),
                global.as_ptr(),
                ptr::null(),
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        };
        // SAFETY: a live queue.
        let f = unsafe { clFinish(t.queue) };
        if result == CL_SUCCESS {
            result = f;
        }
    }
    for b in buffers {
        // SAFETY: each buffer created by set_dummy_arg, released once.
        note(suspicious, "clReleaseMemObject", unsafe {
            clReleaseMemObject(b)
        });
    }
    match unsettable {
        Some(i) => Err(i),
        None => Ok(result),
    }
}

/// Tries a buffer, a `__local` size, then plain bytes of common sizes.
fn set_dummy_arg(t: &Target, k: cl_kernel, i: cl_uint, buffers: &mut Vec<cl_mem>) -> bool {
    let mut status = CL_SUCCESS;
    let zeros = vec![0u8; DUMMY_BYTES];
    // SAFETY: COPY_HOST_PTR reads DUMMY_BYTES bytes of `zeros`.
    let b = unsafe {
        clCreateBuffer(
            t.context,
            CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
            DUMMY_BYTES,
            zeros.as_ptr().cast_mut().cast(),
            &mut status,
        )
    };
    if status == CL_SUCCESS {
        buffers.push(b);
        // SAFETY: a cl_mem value of its own size.
        let s = unsafe {
            clSetKernelArg(
                k,
                i,
                size_of::<cl_mem>(),
                (&b as *const cl_mem).cast::<c_void>(),
            )
        };
        if s == CL_SUCCESS {
            return true;
        }
    }
    // SAFETY: a `__local` size with no value.
    if unsafe { clSetKernelArg(k, i, 256, ptr::null()) } == CL_SUCCESS {
        return true;
    }
    [4usize, 8, 16, 2, 1, 32, 64, 12, 24, 48, 128]
        .into_iter()
        // SAFETY: `size` readable zero bytes.
        .any(|size| unsafe { clSetKernelArg(k, i, size, zeros.as_ptr().cast()) } == CL_SUCCESS)
}
