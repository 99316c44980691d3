//! `ferrocl-bench --pointers`: the cost of SVM and USM pointers against
//! plain buffers. The same kernels (a float4 copy, saxpy, a gather and
//! the fp32 mad loop) run on one platform with their memory in cl_mem
//! buffers (clSetKernelArg), in SVM allocations (clSVMAlloc,
//! clSetKernelArgSVMPointer) and in USM device and shared allocations
//! (clDeviceMemAllocINTEL / clSharedMemAllocINTEL,
//! clSetKernelArgMemPointerINTEL), where the platform has them. Inputs
//! are written by kernels, so every kind is filled the same way; the
//! gather's result is read back and checked.
//!
//! Where the device has the generic address space, the same rows run
//! once more on cl_mem buffers with the kernels reaching their memory
//! through generic pointers (OpenCL C 3.0 unqualified pointers: helper
//! functions, two of them `noinline`, called with global pointers, so
//! the space is known after inference and specialization), plus a copy
//! whose source is chosen at run time between a private and a global
//! pointer (a truly generic access, dispatched on the pointer's space).
//! The issue's target: the known-space rows at the plain rows' speed.

use std::ffi::c_void;
use std::ptr;

use ferrocl_tests::objects::{Context, Queue};
use ferrocl_tests::{device_string, device_value, Kernel};
use opencl_sys::*;

use super::{best_launch, push, Row, Sizes, MAD_FLOPS};

/// The kernels that fill the inputs, in both programs.
const INIT: &str = r#"
kernel void init_x(global float* x) {
    size_t i = get_global_id(0);
    x[i] = (float)(i % 1000);
}
kernel void init_idx(global uint* idx, uint m) {
    size_t i = get_global_id(0);
    idx[i] = (uint)((i * 2654435761ul) % m);
}
"#;

const SOURCE: &str = r#"
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
"#;

/// The kernels of the generic-pointer rows (`Storage::Generic`): the
/// same names as SOURCE's, built with -cl-std=CL3.0.
const GENERIC_SOURCE: &str = r#"
__attribute__((noinline)) void copy_one(const float4 *a, float4 *b, size_t i) {
    b[i] = a[i];
}
kernel void copy4(global const float4* a, global float4* b) {
    copy_one(a, b, get_global_id(0));
}
void saxpy_one(float *y, const float *x, float a, size_t i) {
    y[i] = a * x[i] + y[i];
}
kernel void saxpy(global float* y, global const float* x, float a, int n) {
    size_t i = get_global_id(0);
    if (i < n) saxpy_one(y, x, a, i);
}
__attribute__((noinline)) float load_at(const float *p, uint k) {
    return p[k];
}
kernel void gather(global float* out, global const float* in, global const uint* idx) {
    size_t i = get_global_id(0);
    float *o = out;
    o[i] = load_at(in, idx[i]);
}
kernel void copy4_dyn(global const float4* a, global float4* b, int from_private) {
    size_t i = get_global_id(0);
    float4 t = (float4)(1.0f);
    const float4 *src = from_private ? (const float4 *)&t : (const float4 *)(a + i);
    b[i] = *src;
}
"#;

/// Where a row's memory lives.
#[derive(Clone, Copy, PartialEq)]
pub enum Storage {
    Buffer,
    /// cl_mem buffers, reached through generic pointers.
    Generic,
    Svm,
    UsmDevice,
    UsmShared,
}

impl Storage {
    pub fn label(self) -> &'static str {
        match self {
            Storage::Buffer => "cl_mem buffers",
            Storage::Generic => "cl_mem buffers through generic pointers",
            Storage::Svm => "SVM allocations",
            Storage::UsmDevice => "USM device allocations",
            Storage::UsmShared => "USM shared allocations",
        }
    }
}

type UsmAlloc = unsafe extern "system" fn(
    cl_context,
    cl_device_id,
    *const cl_mem_properties_intel,
    usize,
    cl_uint,
    *mut cl_int,
) -> *mut c_void;
type UsmFree = unsafe extern "system" fn(cl_context, *mut c_void) -> cl_int;
type UsmSetArg = unsafe extern "system" fn(cl_kernel, cl_uint, *const c_void) -> cl_int;
type UsmMemcpy = unsafe extern "system" fn(
    cl_command_queue,
    cl_bool,
    *mut c_void,
    *const c_void,
    usize,
    cl_uint,
    *const cl_event,
    *mut cl_event,
) -> cl_int;

/// The USM entry points of a platform.
struct Usm {
    device_alloc: UsmAlloc,
    shared_alloc: UsmAlloc,
    free: UsmFree,
    set_arg: UsmSetArg,
    memcpy: UsmMemcpy,
}

fn usm_entry_points(platform: cl_platform_id) -> Option<Usm> {
    let get = |name: &std::ffi::CStr| {
        // SAFETY: a NUL-terminated name and a valid platform.
        let f = unsafe { clGetExtensionFunctionAddressForPlatform(platform, name.as_ptr()) };
        (!f.is_null()).then_some(f)
    };
    // SAFETY (each): the extension defines these signatures.
    unsafe {
        Some(Usm {
            device_alloc: std::mem::transmute::<*mut c_void, UsmAlloc>(get(
                c"clDeviceMemAllocINTEL",
            )?),
            shared_alloc: std::mem::transmute::<*mut c_void, UsmAlloc>(get(
                c"clSharedMemAllocINTEL",
            )?),
            free: std::mem::transmute::<*mut c_void, UsmFree>(get(c"clMemFreeINTEL")?),
            set_arg: std::mem::transmute::<*mut c_void, UsmSetArg>(get(
                c"clSetKernelArgMemPointerINTEL",
            )?),
            memcpy: std::mem::transmute::<*mut c_void, UsmMemcpy>(get(c"clEnqueueMemcpyINTEL")?),
        })
    }
}

/// One allocation of a row's storage kind, freed on drop.
struct Alloc<'a> {
    ctx: &'a Context,
    usm: Option<&'a Usm>,
    storage: Storage,
    /// cl_mem for buffers, else the pointer.
    raw: *mut c_void,
}

impl<'a> Alloc<'a> {
    fn new(ctx: &'a Context, usm: Option<&'a Usm>, storage: Storage, bytes: usize) -> Self {
        let mut status = CL_SUCCESS;
        // SAFETY: a valid context and device; no properties.
        let raw = unsafe {
            match storage {
                Storage::Buffer | Storage::Generic => clCreateBuffer(
                    ctx.raw(),
                    CL_MEM_READ_WRITE,
                    bytes,
                    ptr::null_mut(),
                    &mut status,
                )
                .cast(),
                Storage::Svm => clSVMAlloc(ctx.raw(), CL_MEM_READ_WRITE, bytes, 0),
                Storage::UsmDevice | Storage::UsmShared => {
                    let u = usm.expect("USM rows only with USM");
                    let f = if storage == Storage::UsmDevice {
                        u.device_alloc
                    } else {
                        u.shared_alloc
                    };
                    f(ctx.raw(), ctx.device(), ptr::null(), bytes, 0, &mut status)
                }
            }
        };
        assert!(
            status == CL_SUCCESS && !raw.is_null(),
            "{}: allocation of {bytes} bytes failed ({status})",
            storage.label()
        );
        Alloc {
            ctx,
            usm,
            storage,
            raw,
        }
    }

    /// Whether an SVM allocation of `bytes` can be had (clSVMAlloc returns
    /// NULL where it cannot: ferrocl on the H200 did for 256 MiB before
    /// its placement retries). Other kinds: true.
    fn possible(ctx: &Context, storage: Storage, bytes: usize) -> bool {
        if storage != Storage::Svm {
            return true;
        }
        // SAFETY: a valid context; the allocation is freed at once.
        let raw = unsafe { clSVMAlloc(ctx.raw(), CL_MEM_READ_WRITE, bytes, 0) };
        if raw.is_null() {
            return false;
        }
        // SAFETY: our allocation, unused.
        unsafe { clSVMFree(ctx.raw(), raw) };
        true
    }

    fn set_arg(&self, k: &Kernel, index: u32) {
        // SAFETY: valid kernel; the memory lives as long as `self`.
        let s = unsafe {
            match self.storage {
                Storage::Buffer | Storage::Generic => clSetKernelArg(
                    k.raw(),
                    index,
                    std::mem::size_of::<cl_mem>(),
                    (&self.raw as *const *mut c_void).cast(),
                ),
                Storage::Svm => clSetKernelArgSVMPointer(k.raw(), index, self.raw),
                Storage::UsmDevice | Storage::UsmShared => {
                    (self.usm.expect("USM").set_arg)(k.raw(), index, self.raw)
                }
            }
        };
        assert_eq!(
            s,
            CL_SUCCESS,
            "{}: setting argument {index}",
            self.storage.label()
        );
    }

    /// The first `n` floats, read by a blocking command.
    fn read_f32(&self, q: &Queue, n: usize) -> Vec<f32> {
        let mut out = vec![0f32; n];
        let dst = out.as_mut_ptr().cast::<c_void>();
        // SAFETY: `out` holds n floats; the allocation at least as many.
        let s = unsafe {
            match self.storage {
                Storage::Buffer | Storage::Generic => clEnqueueReadBuffer(
                    q.raw(),
                    self.raw.cast(),
                    CL_TRUE,
                    0,
                    n * 4,
                    dst,
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                ),
                Storage::Svm => clEnqueueSVMMemcpy(
                    q.raw(),
                    CL_TRUE,
                    dst,
                    self.raw,
                    n * 4,
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                ),
                Storage::UsmDevice | Storage::UsmShared => (self.usm.expect("USM").memcpy)(
                    q.raw(),
                    CL_TRUE,
                    dst,
                    self.raw,
                    n * 4,
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                ),
            }
        };
        assert_eq!(s, CL_SUCCESS, "{}: read back", self.storage.label());
        out
    }
}

impl Drop for Alloc<'_> {
    fn drop(&mut self) {
        // SAFETY: our allocation; the caller finished the queue.
        unsafe {
            match self.storage {
                Storage::Buffer | Storage::Generic => {
                    clReleaseMemObject(self.raw.cast());
                }
                Storage::Svm => clSVMFree(self.ctx.raw(), self.raw),
                Storage::UsmDevice | Storage::UsmShared => {
                    (self.usm.expect("USM").free)(self.ctx.raw(), self.raw);
                }
            }
        }
    }
}

/// The storage kinds `platform`'s first device has, buffers first.
fn kinds(platform: cl_platform_id, ctx: &Context) -> Vec<Storage> {
    let mut v = vec![Storage::Buffer];
    let generic: cl_bool = device_value(ctx.device(), CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT);
    if generic == CL_TRUE {
        v.push(Storage::Generic);
    }
    let svm: cl_device_svm_capabilities = device_value(ctx.device(), CL_DEVICE_SVM_CAPABILITIES);
    if svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER != 0 {
        v.push(Storage::Svm);
    }
    let has_usm = device_string(ctx.device(), CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .any(|e| e == "cl_intel_unified_shared_memory");
    if has_usm && usm_entry_points(platform).is_some() {
        v.push(Storage::UsmDevice);
        let shared: u64 = device_value(
            ctx.device(),
            CL_DEVICE_SINGLE_DEVICE_SHARED_MEM_CAPABILITIES_INTEL,
        );
        if shared != 0 {
            v.push(Storage::UsmShared);
        }
    }
    v
}

/// The rows of every storage kind the platform has, each kind's rows
/// under its label.
pub fn run(
    platform: cl_platform_id,
    ctx: &Context,
    q: &Queue,
    s: &Sizes,
) -> Vec<(Storage, Vec<Row>)> {
    let usm = usm_entry_points(platform);
    let mad = super::mad_loop("mad_loop", "float", "f");
    let prog = ctx.build(&format!("{INIT}{SOURCE}{mad}"));
    let bytes = s.copy_elems * 16;
    kinds(platform, ctx)
        .into_iter()
        .filter(|&kind| {
            let ok = Alloc::possible(ctx, kind, bytes);
            if !ok {
                eprintln!(
                    "{}: an allocation of {bytes} bytes fails; no rows",
                    kind.label()
                );
            }
            ok
        })
        .map(|kind| {
            eprintln!("measuring {}", kind.label());
            let generic;
            let prog = if kind == Storage::Generic {
                generic = ctx
                    .try_build(&format!("{INIT}{GENERIC_SOURCE}{mad}"), "-cl-std=CL3.0")
                    .unwrap_or_else(|e| panic!("generic-pointer kernels: {e}"));
                &generic
            } else {
                &prog
            };
            (kind, rows(ctx, q, s, prog, usm.as_ref(), kind))
        })
        .collect()
}

fn rows(
    ctx: &Context,
    q: &Queue,
    s: &Sizes,
    prog: &ferrocl_tests::Program,
    usm: Option<&Usm>,
    kind: Storage,
) -> Vec<Row> {
    let mut rows = Vec::new();
    let alloc = |bytes| Alloc::new(ctx, usm, kind, bytes);
    let run = |k: &Kernel, n: usize| {
        q.try_enqueue(k, None, &[n], None)
            .expect("clEnqueueNDRangeKernel");
    };
    let n = s.copy_elems;
    let m = 4 * n;
    let (a, b) = (alloc(n * 16), alloc(n * 16));
    let (x, y, out, idx) = (alloc(m * 4), alloc(m * 4), alloc(m * 4), alloc(m * 4));
    let init_x = prog.kernel("init_x");
    for buf in [&a, &b] {
        buf.set_arg(&init_x, 0);
        run(&init_x, n * 4);
    }
    for buf in [&x, &y] {
        buf.set_arg(&init_x, 0);
        run(&init_x, m);
    }
    let init_idx = prog.kernel("init_idx");
    idx.set_arg(&init_idx, 0);
    init_idx.arg(1, &(m as u32));
    run(&init_idx, m);
    q.finish();

    let copy = prog.kernel("copy4");
    a.set_arg(&copy, 0);
    b.set_arg(&copy, 1);
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
    if kind == Storage::Generic {
        let dyn_copy = prog.kernel("copy4_dyn");
        a.set_arg(&dyn_copy, 0);
        b.set_arg(&dyn_copy, 1);
        dyn_copy.arg(2, &0i32);
        let d = best_launch(s.reps, q, &dyn_copy, n);
        push(
            &mut rows,
            Row {
                name: "float4 copy, space chosen at run time",
                unit: "GB/s",
                higher_better: true,
                value: (n * 32) as f64 / d.as_secs_f64() / 1e9,
            },
        );
    }
    let saxpy = prog.kernel("saxpy");
    y.set_arg(&saxpy, 0);
    x.set_arg(&saxpy, 1);
    saxpy.arg(2, &0.5f32).arg(3, &(m as i32));
    let d = best_launch(s.reps, q, &saxpy, m);
    push(
        &mut rows,
        Row {
            name: "saxpy",
            unit: "GB/s",
            higher_better: true,
            value: (m * 12) as f64 / d.as_secs_f64() / 1e9,
        },
    );
    let gather = prog.kernel("gather");
    out.set_arg(&gather, 0);
    x.set_arg(&gather, 1);
    idx.set_arg(&gather, 2);
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
    let check = 4096.min(m);
    let got = out.read_f32(q, check);
    for (i, g) in got.iter().enumerate() {
        let j = (i as u64 * 2_654_435_761) % m as u64;
        assert_eq!(*g, (j % 1000) as f32, "{}: gather[{i}]", kind.label());
    }
    let mad = prog.kernel("mad_loop");
    let items = s.compute_items.min(m);
    out.set_arg(&mad, 0);
    mad.arg(1, &0.999f32);
    let d = best_launch(s.reps, q, &mad, items);
    push(
        &mut rows,
        Row {
            name: "fp32 compute (float4 mad)",
            unit: "GFLOPS",
            higher_better: true,
            value: items as f64 * MAD_FLOPS / d.as_secs_f64() / 1e9,
        },
    );
    q.finish();
    rows
}
