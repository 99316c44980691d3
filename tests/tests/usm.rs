//! Intel unified shared memory (cl_intel_unified_shared_memory): host,
//! device and shared allocations used by kernels through pointer
//! arguments (interior pointers included) and through pointers stored in
//! a shared allocation, clEnqueueMemcpyINTEL between every pair of kinds
//! and host memory, clEnqueueMemFillINTEL with every pattern size, device
//! atomics, clGetMemAllocInfoINTEL on interior and foreign pointers, and
//! the extension's error codes; every value against the same computation
//! on the host. ferrocl's design is in runtime/src/core/usm.rs.
//!
//! Skipped (with a line saying so) where the device does not report the
//! extension; on ferrocl over lavapipe every allocation kind must be there
//! ([`capabilities`]). Host and shared allocations are used only where
//! the device reports them.

use std::ffi::c_void;
use std::ptr;

use ferrocl_tests::sys::*;
use ferrocl_tests::{assert_same, check, device_string, device_value, expect_error, Cl, Kernel};

type AllocFn = unsafe extern "system" fn(
    cl_context,
    cl_device_id,
    *const cl_mem_properties_intel,
    usize,
    cl_uint,
    *mut cl_int,
) -> *mut c_void;
type HostAllocFn = unsafe extern "system" fn(
    cl_context,
    *const cl_mem_properties_intel,
    usize,
    cl_uint,
    *mut cl_int,
) -> *mut c_void;
type FreeFn = unsafe extern "system" fn(cl_context, *mut c_void) -> cl_int;
type InfoFn = unsafe extern "system" fn(
    cl_context,
    *const c_void,
    cl_mem_info_intel,
    usize,
    *mut c_void,
    *mut usize,
) -> cl_int;
type SetArgFn = unsafe extern "system" fn(cl_kernel, cl_uint, *const c_void) -> cl_int;
type FillFn = unsafe extern "system" fn(
    cl_command_queue,
    *mut c_void,
    *const c_void,
    usize,
    usize,
    cl_uint,
    *const cl_event,
    *mut cl_event,
) -> cl_int;
type MemsetFn = unsafe extern "system" fn(
    cl_command_queue,
    *mut c_void,
    cl_int,
    usize,
    cl_uint,
    *const cl_event,
    *mut cl_event,
) -> cl_int;
type MemcpyFn = unsafe extern "system" fn(
    cl_command_queue,
    cl_bool,
    *mut c_void,
    *const c_void,
    usize,
    cl_uint,
    *const cl_event,
    *mut cl_event,
) -> cl_int;
type HintFn = unsafe extern "system" fn(
    cl_command_queue,
    *const c_void,
    usize,
    cl_bitfield,
    cl_uint,
    *const cl_event,
    *mut cl_event,
) -> cl_int;
type AdviseFn = unsafe extern "system" fn(
    cl_command_queue,
    *const c_void,
    usize,
    cl_mem_advice_intel,
    cl_uint,
    *const cl_event,
    *mut cl_event,
) -> cl_int;

/// The extension's entry points.
struct Usm {
    host_alloc: HostAllocFn,
    device_alloc: AllocFn,
    shared_alloc: AllocFn,
    free: FreeFn,
    blocking_free: FreeFn,
    info: InfoFn,
    set_arg: SetArgFn,
    fill: FillFn,
    memset: MemsetFn,
    memcpy: MemcpyFn,
    migrate: HintFn,
    advise: AdviseFn,
}

fn entry(name: &std::ffi::CStr) -> *mut c_void {
    // SAFETY: a NUL-terminated name; the platform is a valid handle.
    let f = unsafe {
        clGetExtensionFunctionAddressForPlatform(ferrocl_tests::platform(), name.as_ptr())
    };
    assert!(!f.is_null(), "{name:?} not found");
    f
}

fn has_extension(cl: &Cl) -> bool {
    device_string(cl.device(), CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .any(|e| e == "cl_intel_unified_shared_memory")
}

/// The entry points, or `None` (test skipped) where the device does not
/// report the extension.
fn usm(cl: &Cl) -> Option<Usm> {
    if !has_extension(cl) {
        eprintln!("skipped: the device does not report cl_intel_unified_shared_memory");
        return None;
    }
    // SAFETY (each): the extension defines these signatures.
    unsafe {
        Some(Usm {
            host_alloc: std::mem::transmute::<*mut c_void, HostAllocFn>(entry(
                c"clHostMemAllocINTEL",
            )),
            device_alloc: std::mem::transmute::<*mut c_void, AllocFn>(entry(
                c"clDeviceMemAllocINTEL",
            )),
            shared_alloc: std::mem::transmute::<*mut c_void, AllocFn>(entry(
                c"clSharedMemAllocINTEL",
            )),
            free: std::mem::transmute::<*mut c_void, FreeFn>(entry(c"clMemFreeINTEL")),
            blocking_free: std::mem::transmute::<*mut c_void, FreeFn>(entry(
                c"clMemBlockingFreeINTEL",
            )),
            info: std::mem::transmute::<*mut c_void, InfoFn>(entry(c"clGetMemAllocInfoINTEL")),
            set_arg: std::mem::transmute::<*mut c_void, SetArgFn>(entry(
                c"clSetKernelArgMemPointerINTEL",
            )),
            fill: std::mem::transmute::<*mut c_void, FillFn>(entry(c"clEnqueueMemFillINTEL")),
            memset: std::mem::transmute::<*mut c_void, MemsetFn>(entry(c"clEnqueueMemsetINTEL")),
            memcpy: std::mem::transmute::<*mut c_void, MemcpyFn>(entry(c"clEnqueueMemcpyINTEL")),
            migrate: std::mem::transmute::<*mut c_void, HintFn>(entry(c"clEnqueueMigrateMemINTEL")),
            advise: std::mem::transmute::<*mut c_void, AdviseFn>(entry(c"clEnqueueMemAdviseINTEL")),
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Host,
    Device,
    Shared,
}

impl Kind {
    fn query(self) -> cl_device_info {
        match self {
            Kind::Host => CL_DEVICE_HOST_MEM_CAPABILITIES_INTEL,
            Kind::Device => CL_DEVICE_DEVICE_MEM_CAPABILITIES_INTEL,
            Kind::Shared => CL_DEVICE_SINGLE_DEVICE_SHARED_MEM_CAPABILITIES_INTEL,
        }
    }

    fn cl_type(self) -> cl_unified_shared_memory_type_intel {
        match self {
            Kind::Host => CL_MEM_TYPE_HOST_INTEL,
            Kind::Device => CL_MEM_TYPE_DEVICE_INTEL,
            Kind::Shared => CL_MEM_TYPE_SHARED_INTEL,
        }
    }

    /// Whether the host may dereference the pointer.
    fn host_accessible(self) -> bool {
        self != Kind::Device
    }
}

/// The kinds the device reports.
fn kinds(cl: &Cl) -> Vec<Kind> {
    [Kind::Host, Kind::Device, Kind::Shared]
        .into_iter()
        .filter(|k| device_value::<u64>(cl.device(), k.query()) != 0)
        .collect()
}

impl Usm {
    /// An allocation of `kind` (`Err` with the code where it fails).
    fn try_alloc(
        &self,
        cl: &Cl,
        kind: Kind,
        props: &[cl_mem_properties_intel],
        bytes: usize,
        alignment: u32,
    ) -> Result<*mut c_void, cl_int> {
        let mut status = CL_SUCCESS;
        let props = if props.is_empty() {
            ptr::null()
        } else {
            props.as_ptr()
        };
        // SAFETY: valid context and device; 0-terminated property list.
        let p = unsafe {
            match kind {
                Kind::Host => (self.host_alloc)(cl.raw(), props, bytes, alignment, &mut status),
                Kind::Device => {
                    (self.device_alloc)(cl.raw(), cl.device(), props, bytes, alignment, &mut status)
                }
                Kind::Shared => {
                    (self.shared_alloc)(cl.raw(), cl.device(), props, bytes, alignment, &mut status)
                }
            }
        };
        if status != CL_SUCCESS {
            assert!(p.is_null(), "a failed allocation returned a pointer");
            return Err(status);
        }
        assert!(!p.is_null(), "a successful allocation returned NULL");
        Ok(p)
    }

    fn alloc(&self, cl: &Cl, kind: Kind, bytes: usize) -> *mut c_void {
        self.try_alloc(cl, kind, &[], bytes, 0)
            .unwrap_or_else(|e| panic!("{kind:?} allocation of {bytes} bytes: error {e}"))
    }

    fn free(&self, cl: &Cl, p: *mut c_void) {
        cl.queue.finish();
        // SAFETY: a live allocation of this context; no command uses it.
        check(unsafe { (self.free)(cl.raw(), p) }, "clMemFreeINTEL");
    }

    /// Blocking copy.
    fn copy(&self, cl: &Cl, dst: *mut c_void, src: *const c_void, bytes: usize) {
        // SAFETY: both ranges valid for `bytes` (allocations or host memory).
        let s = unsafe {
            (self.memcpy)(
                cl.queue.raw(),
                CL_TRUE,
                dst,
                src,
                bytes,
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        };
        check(s, "clEnqueueMemcpyINTEL");
    }

    fn write<T: Copy>(&self, cl: &Cl, dst: *mut c_void, data: &[T]) {
        self.copy(cl, dst, data.as_ptr().cast(), std::mem::size_of_val(data));
    }

    fn read<T: Copy + Default>(&self, cl: &Cl, src: *const c_void, n: usize) -> Vec<T> {
        let mut out = vec![T::default(); n];
        self.copy(
            cl,
            out.as_mut_ptr().cast(),
            src,
            n * std::mem::size_of::<T>(),
        );
        out
    }

    fn set_arg(&self, k: &Kernel, index: u32, p: *const c_void) {
        // SAFETY: valid kernel.
        check(
            unsafe { (self.set_arg)(k.raw(), index, p) },
            "clSetKernelArgMemPointerINTEL",
        );
    }

    fn info<T: Copy + Default>(&self, cl: &Cl, p: *const c_void, param: cl_mem_info_intel) -> T {
        let mut v = T::default();
        let mut size = 0usize;
        // SAFETY: room for one T.
        let s = unsafe {
            (self.info)(
                cl.raw(),
                p,
                param,
                std::mem::size_of::<T>(),
                (&mut v as *mut T).cast(),
                &mut size,
            )
        };
        check(s, "clGetMemAllocInfoINTEL");
        assert_eq!(size, std::mem::size_of::<T>(), "size of query {param:#x}");
        v
    }
}

fn testing_ferrocl_on_lavapipe(cl: &Cl) -> bool {
    !ferrocl_tests::info::testing_pocl()
        && device_string(cl.device(), CL_DEVICE_NAME).contains("llvmpipe")
}

/// The capabilities ferrocl reports on lavapipe (host and shared memory
/// are SVM's there), and rules that hold everywhere: the extension is
/// reported exactly when some capability is non-zero, and device
/// allocations (required by the extension) can be reached.
#[test]
fn capabilities() {
    let cl = Cl::new();
    let caps = |q| device_value::<u64>(cl.device(), q);
    let all = [
        CL_DEVICE_HOST_MEM_CAPABILITIES_INTEL,
        CL_DEVICE_DEVICE_MEM_CAPABILITIES_INTEL,
        CL_DEVICE_SINGLE_DEVICE_SHARED_MEM_CAPABILITIES_INTEL,
        CL_DEVICE_CROSS_DEVICE_SHARED_MEM_CAPABILITIES_INTEL,
        CL_DEVICE_SHARED_SYSTEM_MEM_CAPABILITIES_INTEL,
    ];
    if !has_extension(&cl) {
        eprintln!("skipped: the device does not report cl_intel_unified_shared_memory");
        return;
    }
    assert!(all.iter().any(|&q| caps(q) != 0));
    assert_ne!(
        caps(CL_DEVICE_DEVICE_MEM_CAPABILITIES_INTEL) & CL_UNIFIED_SHARED_MEMORY_ACCESS_INTEL,
        0,
        "device allocations are required"
    );
    if testing_ferrocl_on_lavapipe(&cl) {
        let access =
            CL_UNIFIED_SHARED_MEMORY_ACCESS_INTEL | CL_UNIFIED_SHARED_MEMORY_ATOMIC_ACCESS_INTEL;
        // Host and shared memory is concurrent where SVM atomics hold
        // (lavapipe: svm_fine_grain.rs host_and_running_kernel_share_atomics
        // proves it).
        let concurrent = access
            | CL_UNIFIED_SHARED_MEMORY_CONCURRENT_ACCESS_INTEL
            | CL_UNIFIED_SHARED_MEMORY_CONCURRENT_ATOMIC_ACCESS_INTEL;
        let want = [concurrent, access, concurrent, 0, 0];
        let got: Vec<u64> = all.iter().map(|&q| caps(q)).collect();
        assert_eq!(got, want, "host, device, shared, cross-device, system");
    }
}

/// Each kind: the host's data copied in, a kernel given an interior
/// pointer (16 ints in) updating every element it reaches and reporting
/// the pointer value it saw, the result copied out (and, for host and
/// shared allocations, read by the host in place).
#[test]
fn kernel_reads_and_writes_each_kind() {
    let cl = Cl::new();
    let Some(u) = usm(&cl) else { return };
    const N: usize = 1024;
    const SKIP: usize = 16;
    let k = cl.kernel(
        "kernel void f(global int *p, global ulong *seen) {
             size_t i = get_global_id(0);
             p[i] = p[i] * 3 + (int)i;
             if (i == 0) *seen = (ulong)p;
         }",
        "f",
    );
    for kind in kinds(&cl) {
        let p = u.alloc(&cl, kind, N * 4);
        let seen = u.alloc(&cl, Kind::Device, 8);
        let host: Vec<i32> = (0..N as i32).map(|i| i * 7 - 100).collect();
        u.write(&cl, p, &host);
        // SAFETY: an interior pointer of the allocation.
        let inner = unsafe { p.cast::<i32>().add(SKIP) }.cast::<c_void>();
        u.set_arg(&k, 0, inner);
        u.set_arg(&k, 1, seen);
        cl.queue.run(&k, &[N - SKIP], None);
        let got: Vec<i32> = u.read(&cl, p, N);
        let mut want = host.clone();
        for (i, w) in want[SKIP..].iter_mut().enumerate() {
            *w = *w * 3 + i as i32;
        }
        assert_same(
            &format!("{kind:?} allocation after the kernel"),
            &got,
            &want,
        );
        let seen_value: Vec<u64> = u.read(&cl, seen, 1);
        assert_eq!(
            seen_value[0], inner as u64,
            "{kind:?}: the kernel's pointer"
        );
        if kind.host_accessible() {
            // SAFETY: host-accessible memory of N ints; the queue is idle.
            let direct = unsafe { std::slice::from_raw_parts(p.cast::<i32>(), N) }.to_vec();
            assert_same(
                &format!("{kind:?} allocation read in place"),
                &direct,
                &want,
            );
        }
        u.free(&cl, p);
        u.free(&cl, seen);
    }
}

/// Pointers stored inside a shared allocation: a table of three pointers
/// (into a device allocation, an interior pointer of a host allocation,
/// and back into the table's own allocation) that the kernel follows,
/// with the allocations reached only indirectly announced through
/// CL_KERNEL_EXEC_INFO_INDIRECT_DEVICE_ACCESS_INTEL and
/// CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL. The kernel also stores a pointer
/// that the host then follows.
#[test]
fn pointers_stored_in_a_shared_allocation() {
    let cl = Cl::new();
    let Some(u) = usm(&cl) else { return };
    let have = kinds(&cl);
    if !have.contains(&Kind::Shared) || !have.contains(&Kind::Host) {
        eprintln!("skipped: no host and shared allocations on this device");
        return;
    }
    const N: usize = 256;
    let dev = u.alloc(&cl, Kind::Device, N * 4);
    let host = u.alloc(&cl, Kind::Host, (N + 8) * 4);
    // table[0..3]: pointers; table[4..]: N ints.
    let table = u.alloc(&cl, Kind::Shared, 32 + N * 4);
    let a: Vec<i32> = (0..N as i32).map(|i| i * i % 1000).collect();
    let b: Vec<i32> = (0..N as i32 + 8).map(|i| 5 - i).collect();
    let c: Vec<i32> = (0..N as i32).map(|i| i ^ 0x55).collect();
    u.write(&cl, dev, &a);
    u.write(&cl, host, &b);
    // SAFETY: the host fills the shared allocation in place; the queue is
    // idle. Three pointers then N ints at byte 32.
    unsafe {
        let t = table.cast::<*mut c_void>();
        *t = dev;
        *t.add(1) = host.cast::<i32>().add(8).cast();
        *t.add(2) = table.cast::<u8>().add(32).cast();
        *t.add(3) = ptr::null_mut();
        ptr::copy_nonoverlapping(c.as_ptr(), table.cast::<u8>().add(32).cast::<i32>(), N);
    }
    let k = cl.kernel(
        "typedef struct { global int *a, *b, *c, *stored; } Table;
         kernel void f(global Table *t, global int *out) {
             size_t i = get_global_id(0);
             global int *a = t->a, *b = t->b, *c = t->c;
             out[i] = a[i] * 2 + b[i] - c[i];
             c[i] = a[i] + 1;
             if (i == 0) t->stored = c + 5;
         }",
        "f",
    );
    let out = u.alloc(&cl, Kind::Device, N * 4);
    u.set_arg(&k, 0, table);
    u.set_arg(&k, 1, out);
    let on: cl_bool = CL_TRUE;
    let listed = [host];
    // SAFETY: valid kernel; a cl_bool and a list of one pointer.
    unsafe {
        check(
            clSetKernelExecInfo(
                k.raw(),
                CL_KERNEL_EXEC_INFO_INDIRECT_DEVICE_ACCESS_INTEL,
                std::mem::size_of::<cl_bool>(),
                (&on as *const cl_bool).cast(),
            ),
            "INDIRECT_DEVICE_ACCESS",
        );
        check(
            clSetKernelExecInfo(
                k.raw(),
                CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL,
                std::mem::size_of_val(&listed),
                listed.as_ptr().cast(),
            ),
            "USM_PTRS",
        );
    }
    cl.queue.run(&k, &[N], None);
    let got: Vec<i32> = u.read(&cl, out, N);
    let want: Vec<i32> = (0..N).map(|i| a[i] * 2 + b[i + 8] - c[i]).collect();
    assert_same("values reached through stored pointers", &got, &want);
    // SAFETY: the queue is idle; the kernel stored a pointer into the table's
    // own allocation, which the host follows.
    unsafe {
        let stored = *table.cast::<*const i32>().add(3);
        assert_eq!(stored, table.cast::<u8>().add(32 + 20).cast::<i32>());
        let in_place = std::slice::from_raw_parts(table.cast::<u8>().add(32).cast::<i32>(), N);
        let want_c: Vec<i32> = a.iter().map(|x| x + 1).collect();
        assert_same("the kernel's writes through c", in_place, &want_c);
        assert_eq!(*stored, want_c[5]);
    }
    for p in [dev, host, table, out] {
        u.free(&cl, p);
    }
}

/// clEnqueueMemcpyINTEL through every kind and host memory, interior
/// pointers on both sides: host → device → device (another allocation,
/// shifted) → shared → host allocation → host, checked against the same
/// moves on a host vector.
#[test]
fn memcpy_between_kinds() {
    let cl = Cl::new();
    let Some(u) = usm(&cl) else { return };
    let have = kinds(&cl);
    const N: usize = 2048;
    let data: Vec<u32> = (0..N as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 3)
        .collect();
    let chain: Vec<Kind> = [Kind::Device, Kind::Device, Kind::Shared, Kind::Host]
        .into_iter()
        .filter(|k| have.contains(k))
        .collect();
    let allocs: Vec<*mut c_void> = chain.iter().map(|&k| u.alloc(&cl, k, N * 4)).collect();
    // Zero everything first (a 4-byte fill), then move data along the chain,
    // each step `shift` ints further in, shortening the range.
    let zero = 0u32;
    let mut model = vec![vec![0u32; N]; allocs.len()];
    for &p in &allocs {
        // SAFETY: a live allocation of N ints.
        check(
            unsafe {
                (u.fill)(
                    cl.queue.raw(),
                    p,
                    (&zero as *const u32).cast(),
                    4,
                    N * 4,
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                )
            },
            "clEnqueueMemFillINTEL",
        );
    }
    u.write(&cl, allocs[0], &data);
    model[0].copy_from_slice(&data);
    let shift = 3;
    for s in 1..allocs.len() {
        let len = N - shift * s;
        // SAFETY: interior pointers with `len` ints left in both.
        let (dst, src) = unsafe {
            (
                allocs[s].cast::<u32>().add(shift * s),
                allocs[s - 1].cast::<u32>().add(shift * (s - 1)),
            )
        };
        u.copy(&cl, dst.cast(), src.cast(), len * 4);
        let from = model[s - 1][shift * (s - 1)..shift * (s - 1) + len].to_vec();
        model[s][shift * s..shift * s + len].copy_from_slice(&from);
    }
    for (s, &p) in allocs.iter().enumerate() {
        let got: Vec<u32> = u.read(&cl, p, N);
        assert_same(&format!("step {s} ({:?})", chain[s]), &got, &model[s]);
    }
    // Host to host through the command (neither pointer in an allocation).
    let mut plain = vec![0u32; 100];
    u.copy(&cl, plain.as_mut_ptr().cast(), data.as_ptr().cast(), 400);
    assert_same("host to host", &plain, &data[..100]);
    for p in allocs {
        u.free(&cl, p);
    }
}

/// clEnqueueMemFillINTEL with every pattern size (1 to 128 bytes) over an
/// interior range of a device allocation, the bytes around it untouched.
#[test]
fn memfill_patterns() {
    let cl = Cl::new();
    let Some(u) = usm(&cl) else { return };
    const BYTES: usize = 4096;
    for kind in kinds(&cl) {
        let p = u.alloc(&cl, kind, BYTES);
        for size in [1usize, 2, 4, 8, 16, 32, 64, 128] {
            let background = 0xa5u8;
            // SAFETY: a live allocation of BYTES bytes; one-byte pattern.
            check(
                unsafe {
                    (u.fill)(
                        cl.queue.raw(),
                        p,
                        (&background as *const u8).cast(),
                        1,
                        BYTES,
                        0,
                        ptr::null(),
                        ptr::null_mut(),
                    )
                },
                "background fill",
            );
            let pattern: Vec<u8> = (0..size).map(|i| (i * 37 + size) as u8).collect();
            let (start, len) = (size * 3, size * 9);
            // SAFETY: [start, start + len) lies in the allocation.
            check(
                unsafe {
                    (u.fill)(
                        cl.queue.raw(),
                        p.cast::<u8>().add(start).cast(),
                        pattern.as_ptr().cast(),
                        size,
                        len,
                        0,
                        ptr::null(),
                        ptr::null_mut(),
                    )
                },
                "pattern fill",
            );
            let got: Vec<u8> = u.read(&cl, p, BYTES);
            let mut want = vec![background; BYTES];
            for (i, w) in want[start..start + len].iter_mut().enumerate() {
                *w = pattern[i % size];
            }
            assert_same(&format!("{kind:?}, pattern of {size}"), &got, &want);
        }
        u.free(&cl, p);
    }
}

/// clEnqueueMemsetINTEL (the deprecated byte fill): `value` converted to
/// an unsigned char over an interior range of each kind (odd start and
/// length), the bytes around it untouched; its event is a
/// CL_COMMAND_MEMFILL_INTEL command; a NULL pointer is CL_INVALID_VALUE.
#[test]
fn memset_bytes() {
    let cl = Cl::new();
    let Some(u) = usm(&cl) else { return };
    const BYTES: usize = 1000;
    for kind in kinds(&cl) {
        let p = u.alloc(&cl, kind, BYTES);
        let background: Vec<u8> = (0..BYTES).map(|i| (i * 7) as u8).collect();
        u.write(&cl, p, &background);
        let (start, len, value) = (13usize, 517usize, 0x1234_56c3);
        let mut ev = ptr::null_mut();
        // SAFETY: [start, start + len) lies in the allocation.
        check(
            unsafe {
                (u.memset)(
                    cl.queue.raw(),
                    p.cast::<u8>().add(start).cast(),
                    value,
                    len,
                    0,
                    ptr::null(),
                    &mut ev,
                )
            },
            "clEnqueueMemsetINTEL",
        );
        let mut ty: cl_command_type = 0;
        // SAFETY: our event; a cl_command_type-sized out value.
        unsafe {
            check(
                clGetEventInfo(
                    ev,
                    CL_EVENT_COMMAND_TYPE,
                    std::mem::size_of_val(&ty),
                    (&mut ty as *mut cl_command_type).cast(),
                    ptr::null_mut(),
                ),
                "clGetEventInfo",
            );
            check(clReleaseEvent(ev), "clReleaseEvent");
        }
        assert_eq!(ty, CL_COMMAND_MEMFILL_INTEL, "command type");
        let got: Vec<u8> = u.read(&cl, p, BYTES);
        let mut want = background.clone();
        want[start..start + len].fill(0xc3);
        assert_same(&format!("{kind:?} memset"), &got, &want);
        u.free(&cl, p);
    }
    // SAFETY: a NULL destination, refused before anything is read.
    expect_error(
        unsafe {
            (u.memset)(
                cl.queue.raw(),
                ptr::null_mut(),
                0,
                4,
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        },
        CL_INVALID_VALUE,
        "memset of NULL",
    );
}

/// Device atomics on device, host and shared allocations: 4096
/// work-items each add their id to one counter and increment another.
#[test]
fn atomics_on_each_kind() {
    let cl = Cl::new();
    let Some(u) = usm(&cl) else { return };
    const N: usize = 4096;
    let k = cl.kernel(
        "kernel void f(global int *c) {
             atomic_add(&c[0], (int)get_global_id(0));
             atomic_inc(&c[1]);
         }",
        "f",
    );
    for kind in kinds(&cl) {
        let caps: u64 = device_value(cl.device(), kind.query());
        if caps & CL_UNIFIED_SHARED_MEMORY_ATOMIC_ACCESS_INTEL == 0 {
            continue;
        }
        let p = u.alloc(&cl, kind, 64);
        u.write(&cl, p, &[0i32; 16]);
        // SAFETY: an interior pointer 8 ints in.
        let inner = unsafe { p.cast::<i32>().add(8) }.cast::<c_void>();
        u.set_arg(&k, 0, inner);
        cl.queue.run(&k, &[N], None);
        let got: Vec<i32> = u.read(&cl, p, 16);
        let mut want = vec![0i32; 16];
        want[8] = (N * (N - 1) / 2) as i32;
        want[9] = N as i32;
        assert_same(&format!("{kind:?} counters"), &got, &want);
        u.free(&cl, p);
    }
}

/// clGetMemAllocInfoINTEL on a base and an interior pointer of each kind,
/// on a pointer just past an allocation, on host memory, and with another
/// context.
#[test]
fn alloc_info_on_interior_pointers() {
    let cl = Cl::new();
    let Some(u) = usm(&cl) else { return };
    let flags = [
        CL_MEM_ALLOC_FLAGS_INTEL,
        CL_MEM_ALLOC_WRITE_COMBINED_INTEL,
        0,
    ];
    for kind in kinds(&cl) {
        let p = u
            .try_alloc(&cl, kind, &flags, 1000, 64)
            .expect("allocation");
        assert!((p as usize).is_multiple_of(64), "alignment 64");
        for off in [0usize, 1, 999] {
            // SAFETY: pointer arithmetic inside the allocation.
            let q = unsafe { p.cast::<u8>().add(off) }.cast::<c_void>();
            let what = format!("{kind:?} + {off}");
            assert_eq!(
                u.info::<u32>(&cl, q, CL_MEM_ALLOC_TYPE_INTEL),
                kind.cl_type(),
                "{what}"
            );
            assert_eq!(
                u.info::<usize>(&cl, q, CL_MEM_ALLOC_BASE_PTR_INTEL),
                p as usize,
                "{what}"
            );
            assert_eq!(
                u.info::<usize>(&cl, q, CL_MEM_ALLOC_SIZE_INTEL),
                1000,
                "{what}"
            );
            let device = u.info::<usize>(&cl, q, CL_MEM_ALLOC_DEVICE_INTEL);
            let want = if kind == Kind::Host {
                0
            } else {
                cl.device() as usize
            };
            assert_eq!(device, want, "{what}: device");
            assert_eq!(
                u.info::<u64>(&cl, q, CL_MEM_ALLOC_FLAGS_INTEL as cl_mem_info_intel),
                CL_MEM_ALLOC_WRITE_COMBINED_INTEL,
                "{what}: flags"
            );
        }
        // One past the end (a 1024-byte request would round it up; 1000 is
        // the size asked for) and another context: unknown.
        let other = Cl::new();
        // SAFETY: pointer arithmetic, never dereferenced.
        let past = unsafe { p.cast::<u8>().add(1000) }.cast::<c_void>();
        for (ctx, q) in [(&cl, past), (&other, p)] {
            assert_eq!(
                u.info::<u32>(ctx, q, CL_MEM_ALLOC_TYPE_INTEL),
                CL_MEM_TYPE_UNKNOWN_INTEL
            );
            assert_eq!(u.info::<usize>(ctx, q, CL_MEM_ALLOC_BASE_PTR_INTEL), 0);
            assert_eq!(u.info::<usize>(ctx, q, CL_MEM_ALLOC_SIZE_INTEL), 0);
            assert_eq!(u.info::<usize>(ctx, q, CL_MEM_ALLOC_DEVICE_INTEL), 0);
        }
        u.free(&cl, p);
        // A freed pointer is unknown too.
        assert_eq!(
            u.info::<u32>(&cl, p, CL_MEM_ALLOC_TYPE_INTEL),
            CL_MEM_TYPE_UNKNOWN_INTEL
        );
    }
    let host_memory = [0u8; 16];
    assert_eq!(
        u.info::<u32>(&cl, host_memory.as_ptr().cast(), CL_MEM_ALLOC_TYPE_INTEL),
        CL_MEM_TYPE_UNKNOWN_INTEL
    );
}

/// clMemBlockingFreeINTEL waits for the commands before it: a kernel and a
/// non-blocking copy out of the allocation are complete when it returns.
#[test]
fn blocking_free_waits_for_commands() {
    let cl = Cl::new();
    let Some(u) = usm(&cl) else { return };
    const N: usize = 1 << 16;
    let p = u.alloc(&cl, Kind::Device, N * 4);
    let k = cl.kernel(
        "kernel void f(global int *p) {
             int i = (int)get_global_id(0);
             int x = i;
             for (int r = 0; r < 64; r++) x = x * 1103515245 + 12345;
             p[i] = x;
         }",
        "f",
    );
    u.set_arg(&k, 0, p);
    let mut out = vec![0i32; N];
    // SAFETY: valid kernel and queue; `out` outlives the copy (the free
    // below waits for it).
    unsafe {
        check(
            clEnqueueNDRangeKernel(
                cl.queue.raw(),
                k.raw(),
                1,
                ptr::null(),
                [N].as_ptr(),
                ptr::null(),
                0,
                ptr::null(),
                ptr::null_mut(),
            ),
            "clEnqueueNDRangeKernel",
        );
        check(
            (u.memcpy)(
                cl.queue.raw(),
                CL_FALSE,
                out.as_mut_ptr().cast(),
                p,
                N * 4,
                0,
                ptr::null(),
                ptr::null_mut(),
            ),
            "non-blocking clEnqueueMemcpyINTEL",
        );
        check((u.blocking_free)(cl.raw(), p), "clMemBlockingFreeINTEL");
    }
    let want: Vec<i32> = (0..N as i32)
        .map(|i| {
            let mut x = i;
            for _ in 0..64 {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            }
            x
        })
        .collect();
    assert_same("copied out before the free returned", &out, &want);
}

/// Migration and advice are commands in queue order with their own
/// command types.
#[test]
fn migrate_and_advise_are_ordered_commands() {
    let cl = Cl::new();
    let Some(u) = usm(&cl) else { return };
    for kind in kinds(&cl) {
        let p = u.alloc(&cl, kind, 256);
        let mut e1: cl_event = ptr::null_mut();
        let mut e2: cl_event = ptr::null_mut();
        // SAFETY: valid queue and allocation; events returned.
        unsafe {
            check(
                (u.migrate)(
                    cl.queue.raw(),
                    p,
                    256,
                    CL_MIGRATE_MEM_OBJECT_HOST,
                    0,
                    ptr::null(),
                    &mut e1,
                ),
                "clEnqueueMigrateMemINTEL",
            );
            check(
                (u.advise)(cl.queue.raw(), p, 256, 0, 1, &e1, &mut e2),
                "clEnqueueMemAdviseINTEL",
            );
            check(clWaitForEvents(1, &e2), "clWaitForEvents");
            for (e, want) in [
                (e1, CL_COMMAND_MIGRATEMEM_INTEL),
                (e2, CL_COMMAND_MEMADVISE_INTEL),
            ] {
                let mut ty: cl_command_type = 0;
                check(
                    clGetEventInfo(
                        e,
                        CL_EVENT_COMMAND_TYPE,
                        4,
                        (&mut ty as *mut cl_command_type).cast(),
                        ptr::null_mut(),
                    ),
                    "clGetEventInfo",
                );
                assert_eq!(ty, want, "{kind:?}");
                let mut status: cl_int = 1;
                check(
                    clGetEventInfo(
                        e,
                        CL_EVENT_COMMAND_EXECUTION_STATUS,
                        4,
                        (&mut status as *mut cl_int).cast(),
                        ptr::null_mut(),
                    ),
                    "clGetEventInfo",
                );
                assert_eq!(status, CL_COMPLETE);
                clReleaseEvent(e);
            }
        }
        u.free(&cl, p);
    }
}

/// The extension's error codes.
#[test]
fn error_codes() {
    let cl = Cl::new();
    let Some(u) = usm(&cl) else { return };
    let kinds = kinds(&cl);
    for &kind in &kinds {
        let what = format!("{kind:?}");
        let bad = |props: &[u64], size, align| u.try_alloc(&cl, kind, props, size, align);
        // "CL_INVALID_VALUE if alignment is not zero or a power of two",
        // "[...] greater than the size of the largest data type" (128).
        assert_eq!(
            bad(&[], 64, 3),
            Err(CL_INVALID_VALUE),
            "{what}: alignment 3"
        );
        assert_eq!(
            bad(&[], 64, 256),
            Err(CL_INVALID_VALUE),
            "{what}: alignment 256"
        );
        // "CL_INVALID_BUFFER_SIZE if size is zero or greater than
        // CL_DEVICE_MAX_MEM_ALLOC_SIZE".
        assert_eq!(
            bad(&[], 0, 0),
            Err(CL_INVALID_BUFFER_SIZE),
            "{what}: size 0"
        );
        let max: u64 = device_value(cl.device(), CL_DEVICE_MAX_MEM_ALLOC_SIZE);
        assert_eq!(
            bad(&[], max as usize + 1, 0),
            Err(CL_INVALID_BUFFER_SIZE),
            "{what}: size above the maximum"
        );
        // CL_INVALID_PROPERTY: unknown name, bad value, repeated name.
        assert_eq!(
            bad(&[0x1234, 0, 0], 64, 0),
            Err(CL_INVALID_PROPERTY),
            "{what}"
        );
        assert_eq!(
            bad(&[CL_MEM_ALLOC_FLAGS_INTEL, 1 << 9, 0], 64, 0),
            Err(CL_INVALID_PROPERTY),
            "{what}"
        );
        assert_eq!(
            bad(
                &[CL_MEM_ALLOC_FLAGS_INTEL, 0, CL_MEM_ALLOC_FLAGS_INTEL, 0, 0],
                64,
                0
            ),
            Err(CL_INVALID_PROPERTY),
            "{what}: repeated"
        );
        // Placement flags: only shared allocations take one, never both.
        let device_first = [
            CL_MEM_ALLOC_FLAGS_INTEL,
            CL_MEM_ALLOC_INITIAL_PLACEMENT_DEVICE_INTEL,
            0,
        ];
        let both = [
            CL_MEM_ALLOC_FLAGS_INTEL,
            CL_MEM_ALLOC_INITIAL_PLACEMENT_DEVICE_INTEL | CL_MEM_ALLOC_INITIAL_PLACEMENT_HOST_INTEL,
            0,
        ];
        if kind == Kind::Shared {
            let p = bad(&device_first, 64, 0).expect("shared with a placement flag");
            u.free(&cl, p);
            assert_eq!(bad(&both, 64, 0), Err(CL_INVALID_PROPERTY), "{what}: both");
        } else {
            assert_eq!(
                bad(&device_first, 64, 0),
                Err(CL_INVALID_PROPERTY),
                "{what}: placement"
            );
        }
    }
    let mut status = CL_SUCCESS;
    // SAFETY (all below): invalid handles and pointers are what is tested;
    // nothing is dereferenced by the implementation for them.
    unsafe {
        // "CL_INVALID_CONTEXT if context is not a valid context."
        let p = (u.host_alloc)(ptr::null_mut(), ptr::null(), 64, 0, &mut status);
        assert!(p.is_null());
        expect_error(status, CL_INVALID_CONTEXT, "host alloc, NULL context");
        // "CL_INVALID_DEVICE if device is not a valid device" (NULL for a
        // device allocation).
        let p = (u.device_alloc)(cl.raw(), ptr::null_mut(), ptr::null(), 64, 0, &mut status);
        assert!(p.is_null());
        expect_error(status, CL_INVALID_DEVICE, "device alloc, NULL device");
        // A shared allocation without a device is allowed.
        if kinds.contains(&Kind::Shared) {
            let p = (u.shared_alloc)(cl.raw(), ptr::null_mut(), ptr::null(), 64, 0, &mut status);
            check(status, "shared alloc without a device");
            assert_eq!(u.info::<usize>(&cl, p, CL_MEM_ALLOC_DEVICE_INTEL), 0);
            u.free(&cl, p);
        }

        let p = u.alloc(&cl, Kind::Device, 256);
        let other = Cl::new();
        // Freeing: an interior pointer, another context's pointer, then a
        // freed one; NULL is no error.
        expect_error(
            (u.free)(cl.raw(), p.cast::<u8>().add(4).cast()),
            CL_INVALID_VALUE,
            "free of an interior pointer",
        );
        expect_error(
            (u.free)(other.raw(), p),
            CL_INVALID_VALUE,
            "free in another context",
        );
        expect_error(
            (u.free)(ptr::null_mut(), p),
            CL_INVALID_CONTEXT,
            "free, NULL context",
        );
        check((u.free)(cl.raw(), ptr::null_mut()), "free(NULL)");
        check((u.free)(cl.raw(), p), "free");
        expect_error(
            (u.free)(cl.raw(), p),
            CL_INVALID_VALUE,
            "free of a freed pointer",
        );
        expect_error(
            (u.blocking_free)(cl.raw(), p),
            CL_INVALID_VALUE,
            "blocking free of a freed pointer",
        );

        let p = u.alloc(&cl, Kind::Device, 256);
        let q = cl.queue.raw();
        let pat = [0u8; 8];
        let fill = |dst: *mut c_void, pattern: *const c_void, psize, size| {
            (u.fill)(
                q,
                dst,
                pattern,
                psize,
                size,
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        };
        expect_error(
            fill(ptr::null_mut(), pat.as_ptr().cast(), 4, 16),
            CL_INVALID_VALUE,
            "fill NULL",
        );
        expect_error(
            fill(p, ptr::null(), 4, 16),
            CL_INVALID_VALUE,
            "fill NULL pattern",
        );
        expect_error(
            fill(p, pat.as_ptr().cast(), 3, 12),
            CL_INVALID_VALUE,
            "pattern size 3",
        );
        expect_error(
            fill(p, pat.as_ptr().cast(), 256, 256),
            CL_INVALID_VALUE,
            "pattern 256",
        );
        expect_error(
            fill(p.cast::<u8>().add(2).cast(), pat.as_ptr().cast(), 4, 16),
            CL_INVALID_VALUE,
            "misaligned",
        );
        expect_error(
            fill(p, pat.as_ptr().cast(), 4, 18),
            CL_INVALID_VALUE,
            "size not a multiple",
        );
        expect_error(
            fill(p.cast::<u8>().add(128).cast(), pat.as_ptr().cast(), 4, 256),
            CL_INVALID_VALUE,
            "past the end",
        );
        let mut host = [0u8; 64];
        expect_error(
            fill(host.as_mut_ptr().cast(), pat.as_ptr().cast(), 4, 16),
            CL_INVALID_VALUE,
            "fill of host memory",
        );

        let copy = |dst: *mut c_void, src: *const c_void, size| {
            (u.memcpy)(q, CL_TRUE, dst, src, size, 0, ptr::null(), ptr::null_mut())
        };
        expect_error(
            copy(ptr::null_mut(), p, 4),
            CL_INVALID_VALUE,
            "memcpy NULL dst",
        );
        expect_error(copy(p, ptr::null(), 4), CL_INVALID_VALUE, "memcpy NULL src");
        expect_error(
            copy(p.cast::<u8>().add(8).cast(), p, 16),
            CL_MEM_COPY_OVERLAP,
            "overlap",
        );
        expect_error(
            copy(host.as_mut_ptr().cast(), p.cast::<u8>().add(250).cast(), 16),
            CL_INVALID_VALUE,
            "past the end",
        );
        let bad_event: cl_event = ptr::null_mut();
        expect_error(
            (u.memcpy)(
                q,
                CL_TRUE,
                host.as_mut_ptr().cast(),
                p,
                4,
                1,
                &bad_event,
                ptr::null_mut(),
            ),
            CL_INVALID_EVENT_WAIT_LIST,
            "memcpy with a NULL event",
        );
        expect_error(
            (u.memcpy)(
                ptr::null_mut(),
                CL_TRUE,
                host.as_mut_ptr().cast(),
                p,
                4,
                0,
                ptr::null(),
                ptr::null_mut(),
            ),
            CL_INVALID_COMMAND_QUEUE,
            "memcpy without a queue",
        );
        expect_error(
            (u.migrate)(q, p, 64, 0, 0, ptr::null(), ptr::null_mut()),
            CL_INVALID_VALUE,
            "migrate with no flags",
        );
        expect_error(
            (u.migrate)(q, p, 64, 1 << 7, 0, ptr::null(), ptr::null_mut()),
            CL_INVALID_VALUE,
            "migrate with an unknown flag",
        );
        expect_error(
            (u.advise)(q, p, 64, 0x4208, 0, ptr::null(), ptr::null_mut()),
            CL_INVALID_VALUE,
            "reserved advice",
        );

        let mut v = 0u32;
        expect_error(
            (u.info)(
                cl.raw(),
                p,
                0x1234,
                4,
                (&mut v as *mut u32).cast(),
                ptr::null_mut(),
            ),
            CL_INVALID_VALUE,
            "unknown query",
        );
        expect_error(
            (u.info)(
                cl.raw(),
                p,
                CL_MEM_ALLOC_SIZE_INTEL,
                4,
                (&mut v as *mut u32).cast(),
                ptr::null_mut(),
            ),
            CL_INVALID_VALUE,
            "size_t query into 4 bytes",
        );
        expect_error(
            (u.info)(
                ptr::null_mut(),
                p,
                CL_MEM_ALLOC_SIZE_INTEL,
                0,
                ptr::null_mut(),
                ptr::null_mut(),
            ),
            CL_INVALID_CONTEXT,
            "query without a context",
        );

        let k = cl.kernel("kernel void f(global int *p, int n) { p[0] = n; }", "f");
        expect_error(
            (u.set_arg)(k.raw(), 2, p),
            CL_INVALID_ARG_INDEX,
            "argument 2 of 2",
        );
        expect_error(
            (u.set_arg)(k.raw(), 1, p),
            CL_INVALID_ARG_VALUE,
            "an int argument",
        );
        expect_error(
            (u.set_arg)(ptr::null_mut(), 0, p),
            CL_INVALID_KERNEL,
            "no kernel",
        );
        let on: cl_bool = CL_TRUE;
        expect_error(
            clSetKernelExecInfo(
                k.raw(),
                CL_KERNEL_EXEC_INFO_INDIRECT_HOST_ACCESS_INTEL,
                8,
                (&on as *const cl_bool).cast(),
            ),
            if kinds.contains(&Kind::Host) {
                CL_INVALID_VALUE
            } else {
                CL_INVALID_OPERATION
            },
            "INDIRECT_HOST_ACCESS with 8 bytes",
        );
        expect_error(
            clSetKernelExecInfo(
                k.raw(),
                CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL,
                3,
                (&p as *const *mut c_void).cast(),
            ),
            CL_INVALID_VALUE,
            "USM_PTRS of 3 bytes",
        );
        u.free(&cl, p);
    }
}

/// A kernel built with descriptor addressing sees pointers as binding
/// slots, never as device addresses: it takes no USM pointer
/// (ferrocl's own build option; design.md, "Unified memory").
#[test]
fn descriptor_addressed_kernels_take_no_usm_pointers() {
    let cl = Cl::new();
    if ferrocl_tests::info::testing_pocl() {
        eprintln!("skipped: a ferrocl build option");
        return;
    }
    let Some(u) = usm(&cl) else { return };
    let k = cl
        .try_build(
            "kernel void f(global int *p) { p[0] = 1; }",
            "-ferrocl-addressing=descriptor",
        )
        .expect("descriptor-addressed build")
        .kernel("f");
    let p = u.alloc(&cl, Kind::Device, 64);
    // SAFETY: valid kernel; a cl_bool and a one-pointer list.
    unsafe {
        expect_error(
            (u.set_arg)(k.raw(), 0, p),
            CL_INVALID_OPERATION,
            "clSetKernelArgMemPointerINTEL",
        );
        expect_error(
            clSetKernelExecInfo(
                k.raw(),
                CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL,
                std::mem::size_of::<*mut c_void>(),
                (&p as *const *mut c_void).cast(),
            ),
            CL_INVALID_OPERATION,
            "USM_PTRS",
        );
    }
    u.free(&cl, p);
}
