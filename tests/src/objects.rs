//! Owned OpenCL objects (released on drop) and the operations the tests use.
//! Everything panics with the failing call's name and error, except the
//! `try_*` forms, which return the status for tests that expect an error.

use std::ffi::{c_void, CString};
use std::marker::PhantomData;
use std::mem::size_of;
use std::ptr;

use opencl_sys::*;

use crate::error::{check, cl_result, ClError};
use crate::info::{self, program_build_info, query_string};
use crate::pod::{zeroed_vec, Pod};

/// Releases `raw` with `release`; a failure panics unless the thread is
/// already unwinding (a refcount bug in the implementation should not pass
/// silently, but must not turn a failing test into an abort).
fn release(
    raw: *mut c_void,
    release: unsafe extern "system" fn(*mut c_void) -> cl_int,
    call: &str,
) {
    // SAFETY: `raw` is an object this harness created and owns one
    // reference to; it is released exactly once, here.
    let status = unsafe { release(raw) };
    if !std::thread::panicking() {
        check(status, call);
    }
}

/// A context on one device.
pub struct Context {
    raw: cl_context,
    device: cl_device_id,
}

impl Context {
    /// A context on the device under test ([`info::device`]).
    pub fn new() -> Self {
        Self::on(info::device())
    }

    /// A context on `device`.
    pub fn on(device: cl_device_id) -> Self {
        let mut status = CL_SUCCESS;
        // SAFETY: one valid device, no properties, no callback.
        let raw =
            unsafe { clCreateContext(ptr::null(), 1, &device, None, ptr::null_mut(), &mut status) };
        check(status, "clCreateContext");
        Self { raw, device }
    }

    /// A context on several devices (the first is [`Context::device`]:
    /// what [`Context::queue`] and [`Context::build`] use).
    pub fn with_devices(devices: &[cl_device_id]) -> Self {
        let mut status = CL_SUCCESS;
        // SAFETY: `devices` holds valid devices, no properties, no callback.
        let raw = unsafe {
            clCreateContext(
                ptr::null(),
                devices.len() as cl_uint,
                devices.as_ptr(),
                None,
                ptr::null_mut(),
                &mut status,
            )
        };
        check(status, "clCreateContext");
        Self {
            raw,
            device: devices[0],
        }
    }

    /// Takes ownership of a context created by the caller (one reference),
    /// with `device` as its device for [`Context::queue`] and builds.
    pub fn from_raw(raw: cl_context, device: cl_device_id) -> Self {
        Self { raw, device }
    }

    /// An in-order queue on `device` of this context.
    // A cl_device_id is an opaque handle that is only passed on to OpenCL,
    // which validates it; this code never dereferences it.
    #[allow(clippy::not_unsafe_ptr_arg_deref)]
    pub fn queue_on(&self, device: cl_device_id) -> Queue {
        let mut status = CL_SUCCESS;
        // SAFETY: valid context and device, no properties.
        let raw = unsafe {
            clCreateCommandQueueWithProperties(self.raw, device, ptr::null(), &mut status)
        };
        check(status, "clCreateCommandQueueWithProperties");
        Queue { raw }
    }

    /// Builds `source` for every device of the context (clBuildProgram
    /// with no device list); panics with the status on failure.
    #[track_caller]
    pub fn build_for_all(&self, source: &str) -> Program {
        let mut status = CL_SUCCESS;
        let text = source.as_ptr().cast();
        let len = source.len();
        // SAFETY: one string given with its length.
        let raw = unsafe { clCreateProgramWithSource(self.raw, 1, &text, &len, &mut status) };
        check(status, "clCreateProgramWithSource");
        let program = Program {
            raw,
            device: self.device,
        };
        // SAFETY: valid program, no device list (all devices), no options,
        // synchronous build.
        let status =
            unsafe { clBuildProgram(raw, 0, ptr::null(), ptr::null(), None, ptr::null_mut()) };
        if status != CL_SUCCESS {
            panic!(
                "clBuildProgram for all devices failed: {}\n{}",
                crate::error_name(status),
                program.build_log()
            );
        }
        program
    }

    pub fn raw(&self) -> cl_context {
        self.raw
    }

    pub fn device(&self) -> cl_device_id {
        self.device
    }

    /// An in-order queue on this context's device.
    pub fn queue(&self) -> Queue {
        let mut status = CL_SUCCESS;
        // SAFETY: valid context and device, no properties.
        let raw = unsafe {
            clCreateCommandQueueWithProperties(self.raw, self.device, ptr::null(), &mut status)
        };
        check(status, "clCreateCommandQueueWithProperties");
        Queue { raw }
    }

    /// A queue on this context's device with `properties`
    /// (CL_QUEUE_PROPERTIES bits: out-of-order, profiling).
    pub fn queue_with(&self, properties: cl_command_queue_properties) -> Queue {
        self.queue_on_with(self.device, properties)
    }

    /// A queue on `device` of this context with `properties`
    /// (CL_QUEUE_PROPERTIES bits: out-of-order, profiling).
    // An opaque handle, as in `queue_on`.
    #[allow(clippy::not_unsafe_ptr_arg_deref)]
    pub fn queue_on_with(
        &self,
        device: cl_device_id,
        properties: cl_command_queue_properties,
    ) -> Queue {
        let props = [CL_QUEUE_PROPERTIES as cl_queue_properties, properties, 0];
        let mut status = CL_SUCCESS;
        // SAFETY: valid context and device, a 0-terminated property list.
        let raw = unsafe {
            clCreateCommandQueueWithProperties(self.raw, device, props.as_ptr(), &mut status)
        };
        check(status, "clCreateCommandQueueWithProperties");
        Queue { raw }
    }

    /// Builds `source` with `options` for this context's device. On failure
    /// returns the status with the build log.
    pub fn try_build(&self, source: &str, options: &str) -> Result<Program, BuildError> {
        let mut status = CL_SUCCESS;
        let text = source.as_ptr().cast();
        let len = source.len();
        // SAFETY: one string given with its length (no NUL needed).
        let raw = unsafe { clCreateProgramWithSource(self.raw, 1, &text, &len, &mut status) };
        self.build_created(raw, status, options)
    }

    /// As `try_build`, but through clCreateProgramWithIL: `source` is
    /// compiled to OpenCL SPIR-V by clang-15 and llvm-spirv-15 first
    /// ([`crate::spirv_of`]), as an application would.
    pub fn try_build_il(&self, source: &str, options: &str) -> Result<Program, BuildError> {
        self.try_build_spirv(&crate::spirv_of(source), options)
    }

    /// Builds the SPIR-V module `il` (clCreateProgramWithIL) with
    /// `options`. On failure returns the status with the build log.
    pub fn try_build_spirv(&self, il: &[u8], options: &str) -> Result<Program, BuildError> {
        let mut status = CL_SUCCESS;
        // SAFETY: il.len() readable bytes.
        let raw =
            unsafe { clCreateProgramWithIL(self.raw, il.as_ptr().cast(), il.len(), &mut status) };
        self.build_created(raw, status, options)
    }

    /// Builds the program `raw` that a create call returned with `status`.
    fn build_created(
        &self,
        raw: cl_program,
        status: cl_int,
        options: &str,
    ) -> Result<Program, BuildError> {
        cl_result(status).map_err(|e| BuildError {
            status: e,
            log: String::new(),
        })?;
        let program = Program {
            raw,
            device: self.device,
        };
        let options = CString::new(options).expect("build options contain a NUL");
        // SAFETY: valid program and device list of one, NUL-terminated
        // options, no callback (synchronous build).
        let status = unsafe {
            clBuildProgram(
                raw,
                1,
                &self.device,
                options.as_ptr(),
                None,
                ptr::null_mut(),
            )
        };
        match cl_result(status) {
            Ok(()) => Ok(program),
            Err(e) => Err(BuildError {
                status: e,
                log: program.build_log(),
            }),
        }
    }

    /// Builds `source` with no options; panics with the build log on failure.
    #[track_caller]
    pub fn build(&self, source: &str) -> Program {
        self.try_build(source, "").unwrap_or_else(|e| panic!("{e}"))
    }

    /// Builds `source` and creates its kernel `name`.
    #[track_caller]
    pub fn kernel(&self, source: &str, name: &str) -> Kernel {
        self.build(source).kernel(name)
    }

    /// A read-write buffer of `len` uninitialised `T`s.
    pub fn buffer<T: Pod>(&self, len: usize) -> Buffer<T> {
        self.create_buffer(CL_MEM_READ_WRITE, len, ptr::null_mut())
    }

    /// A read-write buffer initialised from `data` (CL_MEM_COPY_HOST_PTR).
    pub fn buffer_from<T: Pod>(&self, data: &[T]) -> Buffer<T> {
        self.buffer_with(CL_MEM_READ_WRITE, data)
    }

    /// A buffer with `flags | CL_MEM_COPY_HOST_PTR` initialised from `data`.
    pub fn buffer_with<T: Pod>(&self, flags: cl_mem_flags, data: &[T]) -> Buffer<T> {
        // COPY_HOST_PTR only reads from host_ptr, so the const cast is sound.
        self.create_buffer(
            flags | CL_MEM_COPY_HOST_PTR,
            data.len(),
            data.as_ptr().cast_mut().cast(),
        )
    }

    fn create_buffer<T: Pod>(
        &self,
        flags: cl_mem_flags,
        len: usize,
        host: *mut c_void,
    ) -> Buffer<T> {
        let mut status = CL_SUCCESS;
        // SAFETY: `host` is null or points at `len` Ts that the call copies.
        let raw =
            unsafe { clCreateBuffer(self.raw, flags, len * size_of::<T>(), host, &mut status) };
        check(status, "clCreateBuffer");
        Buffer {
            raw,
            len,
            elem: PhantomData,
        }
    }
}

impl Default for Context {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        release(self.raw, clReleaseContext, "clReleaseContext");
    }
}

/// A failed program build.
#[derive(Debug)]
pub struct BuildError {
    pub status: ClError,
    pub log: String,
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "program build failed: {}\n--- build log ---\n{}",
            self.status, self.log
        )
    }
}

impl std::error::Error for BuildError {}

/// A program built for one device.
pub struct Program {
    raw: cl_program,
    device: cl_device_id,
}

impl Program {
    pub fn raw(&self) -> cl_program {
        self.raw
    }

    /// CL_PROGRAM_BUILD_LOG for the device (empty if it cannot be read).
    pub fn build_log(&self) -> String {
        query_string(program_build_info(
            self.raw,
            self.device,
            CL_PROGRAM_BUILD_LOG,
        ))
        .unwrap_or_default()
    }

    /// clCreateKernel; returns the status on failure.
    pub fn try_kernel(&self, name: &str) -> Result<Kernel, ClError> {
        let name = CString::new(name).expect("kernel name contains a NUL");
        let mut status = CL_SUCCESS;
        // SAFETY: valid program, NUL-terminated name.
        let raw = unsafe { clCreateKernel(self.raw, name.as_ptr(), &mut status) };
        cl_result(status)?;
        Ok(Kernel { raw })
    }

    /// clCreateKernel; panics on failure.
    #[track_caller]
    pub fn kernel(&self, name: &str) -> Kernel {
        self.try_kernel(name)
            .unwrap_or_else(|e| panic!("clCreateKernel({name:?}) failed: {e}"))
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        release(self.raw, clReleaseProgram, "clReleaseProgram");
    }
}

/// Something that can be a kernel argument: its size and a pointer to its
/// bytes as clSetKernelArg takes them.
pub trait KernelArg {
    fn arg_size(&self) -> usize;
    fn arg_value(&self) -> *const c_void;
}

impl<T: Pod> KernelArg for T {
    fn arg_size(&self) -> usize {
        size_of::<T>()
    }
    fn arg_value(&self) -> *const c_void {
        (self as *const T).cast()
    }
}

impl<T: Pod> KernelArg for Buffer<T> {
    fn arg_size(&self) -> usize {
        size_of::<cl_mem>()
    }
    fn arg_value(&self) -> *const c_void {
        (&self.raw as *const cl_mem).cast()
    }
}

/// A `__local` pointer argument of this many bytes.
#[derive(Clone, Copy, Debug)]
pub struct Local(pub usize);

impl KernelArg for Local {
    fn arg_size(&self) -> usize {
        self.0
    }
    fn arg_value(&self) -> *const c_void {
        ptr::null()
    }
}

/// A kernel object.
pub struct Kernel {
    raw: cl_kernel,
}

impl Kernel {
    /// Takes ownership of a kernel created elsewhere (released on drop).
    pub fn from_raw(raw: cl_kernel) -> Self {
        Kernel { raw }
    }

    pub fn raw(&self) -> cl_kernel {
        self.raw
    }

    /// clSetKernelArg; returns the status on failure.
    pub fn try_arg(&self, index: u32, value: &dyn KernelArg) -> Result<(), ClError> {
        // SAFETY: `arg_value` points at `arg_size` readable bytes (or is null
        // for a __local size), which the call copies.
        cl_result(unsafe { clSetKernelArg(self.raw, index, value.arg_size(), value.arg_value()) })
    }

    /// clSetKernelArg; panics on failure. Chains:
    /// `kernel.arg(0, &buf).arg(1, &2.0f32)`.
    #[track_caller]
    pub fn arg(&self, index: u32, value: &dyn KernelArg) -> &Self {
        if let Err(e) = self.try_arg(index, value) {
            panic!("clSetKernelArg({index}) failed: {e}");
        }
        self
    }
}

impl Drop for Kernel {
    fn drop(&mut self) {
        release(self.raw, clReleaseKernel, "clReleaseKernel");
    }
}

/// A buffer of `len` values of `T`.
pub struct Buffer<T: Pod> {
    raw: cl_mem,
    len: usize,
    elem: PhantomData<T>,
}

impl<T: Pod> Buffer<T> {
    /// Takes ownership of a buffer (one reference) of `len` `T`s created
    /// by the caller (sub-buffers, host-pointer flags).
    pub fn from_raw(raw: cl_mem, len: usize) -> Self {
        Buffer {
            raw,
            len,
            elem: PhantomData,
        }
    }

    pub fn raw(&self) -> cl_mem {
        self.raw
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn check_range(&self, offset: usize, len: usize) {
        assert!(
            offset + len <= self.len,
            "range {offset}..{} outside a buffer of {}",
            offset + len,
            self.len
        );
    }
}

impl<T: Pod> Drop for Buffer<T> {
    fn drop(&mut self) {
        release(self.raw, clReleaseMemObject, "clReleaseMemObject");
    }
}

/// An in-order command queue.
pub struct Queue {
    raw: cl_command_queue,
}

impl Queue {
    pub fn raw(&self) -> cl_command_queue {
        self.raw
    }

    /// clFinish; panics on failure.
    pub fn finish(&self) {
        // SAFETY: valid queue.
        check(unsafe { clFinish(self.raw) }, "clFinish");
    }

    /// Blocking read of the whole buffer.
    pub fn read<T: Pod>(&self, buffer: &Buffer<T>) -> Vec<T> {
        self.read_range(buffer, 0, buffer.len)
    }

    /// Blocking read of the whole buffer into `out` (as long as the buffer).
    pub fn read_into<T: Pod>(&self, buffer: &Buffer<T>, out: &mut [T]) {
        assert_eq!(out.len(), buffer.len, "read_into: lengths differ");
        // SAFETY: blocking read of the whole buffer into `out`, as long.
        let status = unsafe {
            clEnqueueReadBuffer(
                self.raw,
                buffer.raw,
                CL_TRUE,
                0,
                std::mem::size_of_val(out),
                out.as_mut_ptr().cast(),
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        };
        check(status, "clEnqueueReadBuffer");
    }

    /// Blocking read of `len` values starting at value `offset`.
    pub fn read_range<T: Pod>(&self, buffer: &Buffer<T>, offset: usize, len: usize) -> Vec<T> {
        let read = self.try_read_range(buffer, offset, len);
        read.unwrap_or_else(|e| panic!("clEnqueueReadBuffer failed: {e}"))
    }

    /// Blocking read of the whole buffer, or the error (a failed command
    /// before it: CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST).
    pub fn try_read<T: Pod>(&self, buffer: &Buffer<T>) -> Result<Vec<T>, ClError> {
        self.try_read_range(buffer, 0, buffer.len)
    }

    fn try_read_range<T: Pod>(
        &self,
        buffer: &Buffer<T>,
        offset: usize,
        len: usize,
    ) -> Result<Vec<T>, ClError> {
        buffer.check_range(offset, len);
        let mut data = zeroed_vec::<T>(len);
        // SAFETY: blocking read of `len` Ts into `data`, which holds `len`.
        cl_result(unsafe {
            clEnqueueReadBuffer(
                self.raw,
                buffer.raw,
                CL_TRUE,
                offset * size_of::<T>(),
                len * size_of::<T>(),
                data.as_mut_ptr().cast(),
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        })?;
        Ok(data)
    }

    /// Blocking write of `data` at value `offset`.
    pub fn write<T: Pod>(&self, buffer: &Buffer<T>, offset: usize, data: &[T]) {
        buffer.check_range(offset, data.len());
        // SAFETY: blocking write from `data`, valid for its whole length
        // until the call returns.
        let status = unsafe {
            clEnqueueWriteBuffer(
                self.raw,
                buffer.raw,
                CL_TRUE,
                offset * size_of::<T>(),
                std::mem::size_of_val(data),
                data.as_ptr().cast(),
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        };
        check(status, "clEnqueueWriteBuffer");
    }

    /// Copies `len` values from `src[src_offset..]` to `dst[dst_offset..]`
    /// and waits for it.
    pub fn copy<T: Pod>(
        &self,
        src: &Buffer<T>,
        src_offset: usize,
        dst: &Buffer<T>,
        dst_offset: usize,
        len: usize,
    ) {
        src.check_range(src_offset, len);
        dst.check_range(dst_offset, len);
        let bytes = size_of::<T>();
        // SAFETY: valid queue and buffers; ranges checked above.
        let status = unsafe {
            clEnqueueCopyBuffer(
                self.raw,
                src.raw,
                dst.raw,
                src_offset * bytes,
                dst_offset * bytes,
                len * bytes,
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        };
        check(status, "clEnqueueCopyBuffer");
        self.finish();
    }

    /// clEnqueueNDRangeKernel with `global.len()` dimensions; `offset` and
    /// `local`, when given, must have as many. Does not wait.
    pub fn try_enqueue(
        &self,
        kernel: &Kernel,
        offset: Option<&[usize]>,
        global: &[usize],
        local: Option<&[usize]>,
    ) -> Result<(), ClError> {
        let dims = global.len();
        assert!(offset.is_none_or(|o| o.len() == dims), "offset rank");
        assert!(local.is_none_or(|l| l.len() == dims), "local size rank");
        let as_ptr = |v: Option<&[usize]>| v.map_or(ptr::null(), <[usize]>::as_ptr);
        // SAFETY: every array has `dims` entries or is null.
        cl_result(unsafe {
            clEnqueueNDRangeKernel(
                self.raw,
                kernel.raw,
                dims as cl_uint,
                as_ptr(offset),
                global.as_ptr(),
                as_ptr(local),
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        })
    }

    /// Runs `kernel` over `global` (local size `local` or chosen by the
    /// implementation) and waits for it; panics on failure.
    #[track_caller]
    pub fn run(&self, kernel: &Kernel, global: &[usize], local: Option<&[usize]>) {
        self.run_at(kernel, None, global, local);
    }

    /// [`Queue::run`] with a global work offset.
    #[track_caller]
    pub fn run_at(
        &self,
        kernel: &Kernel,
        offset: Option<&[usize]>,
        global: &[usize],
        local: Option<&[usize]>,
    ) {
        if let Err(e) = self.try_enqueue(kernel, offset, global, local) {
            panic!("clEnqueueNDRangeKernel(global {global:?}, local {local:?}, offset {offset:?}) failed: {e}");
        }
        self.finish();
    }
}

impl Drop for Queue {
    fn drop(&mut self) {
        release(self.raw, clReleaseCommandQueue, "clReleaseCommandQueue");
    }
}

/// A context and an in-order queue on the device under test: what almost
/// every test starts with.
pub struct Cl {
    pub context: Context,
    pub queue: Queue,
}

impl Cl {
    pub fn new() -> Self {
        let context = Context::new();
        let queue = context.queue();
        Self { context, queue }
    }

    pub fn device(&self) -> cl_device_id {
        self.context.device()
    }
}

impl Default for Cl {
    fn default() -> Self {
        Self::new()
    }
}

impl std::ops::Deref for Cl {
    type Target = Context;
    fn deref(&self) -> &Context {
        &self.context
    }
}

// SAFETY (all below): "All OpenCL API calls are thread-safe except those
// that modify the state of cl_kernel objects: clSetKernelArg,
// clSetKernelArgSVMPointer, clSetKernelExecInfo and clCloneKernel"
// (OpenCL 3.0, appendix A.2). The handles are plain references to objects
// the implementation synchronizes; a Kernel may move between threads but
// not be shared, since `arg` sets its arguments.
unsafe impl Send for Context {}
unsafe impl Sync for Context {}
unsafe impl Send for Program {}
unsafe impl Sync for Program {}
unsafe impl Send for Queue {}
unsafe impl Sync for Queue {}
unsafe impl<T: Pod> Send for Buffer<T> {}
unsafe impl<T: Pod> Sync for Buffer<T> {}
unsafe impl Send for Kernel {}
