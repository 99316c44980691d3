//! Programs beyond clCreateProgramWithSource + clBuildProgram:
//! clCreateProgramWithIL, clCompileProgram / clLinkProgram (objects,
//! embedded headers, libraries), program binaries, and their queries and
//! error codes.

use std::ffi::{c_void, CString};
use std::mem::size_of;
use std::process::Command;
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};

use ferrocl_tests::info::{program_build_info, query, query_string, query_value};
use ferrocl_tests::sys::*;
use ferrocl_tests::{check, device_string, expect_error, Cl, Context};

/// `a[i] = add_twice(a[i], OFFSET)`, with both names from `helpers.h`.
const MAIN: &str = "#include \"helpers.h\"\n\
    kernel void apply(global int* a) {\n\
        size_t i = get_global_id(0);\n\
        a[i] = add_twice(a[i], OFFSET);\n\
    }\n";
const HELPERS_H: &str = "#define OFFSET 5\nint add_twice(int x, int y);\n";
const HELPER: &str = "int add_twice(int x, int y) { return x + 2 * y; }\n";
/// MAIN and HELPER in one source.
fn whole_source() -> String {
    format!(
        "{}\n{HELPER}",
        MAIN.replace("#include \"helpers.h\"", HELPERS_H)
    )
}

// opencl-sys declares clCreateProgramWithIL only with its CL_VERSION_2_1
// feature; declared here so this test does not depend on that feature.
#[link(name = "OpenCL")]
extern "system" {
    fn clCreateProgramWithIL(
        context: cl_context,
        il: *const c_void,
        length: usize,
        errcode_ret: *mut cl_int,
    ) -> cl_program;
}

const N: usize = 64;

fn input() -> Vec<i32> {
    (0..N as i32).map(|i| i * 3 - 20).collect()
}

fn expected() -> Vec<i32> {
    input().iter().map(|x| x + 10).collect()
}

/// A program handle released on drop.
struct Prog(cl_program);

impl Drop for Prog {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: a program this test owns one reference to.
            check(unsafe { clReleaseProgram(self.0) }, "clReleaseProgram");
        }
    }
}

fn with_source(ctx: &Context, source: &str) -> Prog {
    let text = source.as_ptr().cast();
    let len = source.len();
    let mut status = CL_SUCCESS;
    // SAFETY: one string with its length.
    let p = unsafe { clCreateProgramWithSource(ctx.raw(), 1, &text, &len, &mut status) };
    check(status, "clCreateProgramWithSource");
    Prog(p)
}

fn build(p: &Prog, dev: cl_device_id, options: &str) -> cl_int {
    let options = CString::new(options).unwrap();
    // SAFETY: valid program and one device, no callback.
    unsafe { clBuildProgram(p.0, 1, &dev, options.as_ptr(), None, ptr::null_mut()) }
}

static CALLBACKS: AtomicUsize = AtomicUsize::new(0);

extern "C" fn notify(_p: cl_program, data: *mut c_void) {
    assert_eq!(data as usize, 0x1234, "user_data passed through");
    CALLBACKS.fetch_add(1, Ordering::SeqCst);
}

/// clCompileProgram with embedded headers (name, program), and a callback.
fn compile(p: &Prog, dev: cl_device_id, options: &str, headers: &[(&str, &Prog)]) -> cl_int {
    let options = CString::new(options).unwrap();
    let names: Vec<CString> = headers
        .iter()
        .map(|(n, _)| CString::new(*n).unwrap())
        .collect();
    let mut name_ptrs: Vec<*const i8> = names.iter().map(|n| n.as_ptr()).collect();
    let progs: Vec<cl_program> = headers.iter().map(|(_, h)| h.0).collect();
    let (hp, np) = if headers.is_empty() {
        (ptr::null(), ptr::null_mut())
    } else {
        (progs.as_ptr(), name_ptrs.as_mut_ptr())
    };
    // SAFETY: arrays of headers.len() entries (or NULL), NUL-terminated
    // strings, a callback that only counts.
    unsafe {
        clCompileProgram(
            p.0,
            1,
            &dev,
            options.as_ptr(),
            headers.len() as cl_uint,
            hp,
            np,
            Some(notify),
            0x1234 as *mut c_void,
        )
    }
}

/// clLinkProgram; returns the program (possibly null) and the status.
fn link(ctx: &Context, options: &str, inputs: &[&Prog]) -> (Prog, cl_int) {
    let options = CString::new(options).unwrap();
    let progs: Vec<cl_program> = inputs.iter().map(|p| p.0).collect();
    let dev = ctx.device();
    let mut status = CL_SUCCESS;
    // SAFETY: one device, inputs.len() programs, NUL-terminated options.
    let p = unsafe {
        clLinkProgram(
            ctx.raw(),
            1,
            &dev,
            options.as_ptr(),
            progs.len() as cl_uint,
            progs.as_ptr(),
            Some(notify),
            0x1234 as *mut c_void,
            &mut status,
        )
    };
    (Prog(p), status)
}

/// Panics with the link log unless `status` is CL_SUCCESS.
#[track_caller]
fn check_link(p: &Prog, dev: cl_device_id, status: cl_int, what: &str) {
    if status != CL_SUCCESS {
        let log = if p.0.is_null() {
            String::new()
        } else {
            build_string(p, dev, CL_PROGRAM_BUILD_LOG)
        };
        panic!(
            "{what} failed: {}\n--- log ---\n{log}",
            ferrocl_tests::ClError(status)
        );
    }
}

/// Builds `source` whole and creates its kernel `name` (the build log is
/// shown on failure).
fn built_kernel(cl: &Cl, source: &str, name: &std::ffi::CStr) -> (Prog, ferrocl_tests::Kernel) {
    let p = with_source(cl, source);
    let status = build(&p, cl.device(), "");
    check_link(&p, cl.device(), status, "clBuildProgram");
    let k = kernel_of(&p, name);
    (p, k)
}

/// Kernel `name` of the built program `p`.
fn kernel_of(p: &Prog, name: &std::ffi::CStr) -> ferrocl_tests::Kernel {
    let mut status = CL_SUCCESS;
    // SAFETY: valid program, NUL-terminated name.
    let k =
        ferrocl_tests::Kernel::from_raw(unsafe { clCreateKernel(p.0, name.as_ptr(), &mut status) });
    check(
        status,
        &format!("clCreateKernel({})", name.to_string_lossy()),
    );
    k
}

fn build_value<T: ferrocl_tests::Pod>(p: &Prog, dev: cl_device_id, param: cl_uint) -> T {
    query_value(program_build_info(p.0, dev, param)).expect("clGetProgramBuildInfo")
}

fn build_string(p: &Prog, dev: cl_device_id, param: cl_uint) -> String {
    query_string(program_build_info(p.0, dev, param)).expect("clGetProgramBuildInfo")
}

/// clGetProgramInfo as bytes.
fn program_info(p: &Prog, param: cl_uint) -> Vec<u8> {
    let mut size = 0;
    // SAFETY: size query only.
    check(
        unsafe { clGetProgramInfo(p.0, param, 0, ptr::null_mut(), &mut size) },
        "clGetProgramInfo(size)",
    );
    let mut v = vec![0u8; size];
    // SAFETY: a buffer of `size` bytes.
    check(
        unsafe { clGetProgramInfo(p.0, param, size, v.as_mut_ptr().cast(), ptr::null_mut()) },
        "clGetProgramInfo",
    );
    v
}

fn binary_of(p: &Prog) -> Vec<u8> {
    let sizes = program_info(p, CL_PROGRAM_BINARY_SIZES);
    let size = usize::from_ne_bytes(sizes[..size_of::<usize>()].try_into().unwrap());
    assert!(size > 0, "no binary");
    let mut bin = vec![0u8; size];
    let mut ptrs = [bin.as_mut_ptr()];
    // SAFETY: an array of one pointer to `size` bytes.
    check(
        unsafe {
            clGetProgramInfo(
                p.0,
                CL_PROGRAM_BINARIES,
                size_of::<*mut u8>(),
                ptrs.as_mut_ptr().cast(),
                ptr::null_mut(),
            )
        },
        "clGetProgramInfo(BINARIES)",
    );
    bin
}

/// clCreateProgramWithBinary for the context's device: the program (null
/// on error), the status and the binary status.
fn with_binary(ctx: &Context, bin: &[u8]) -> (Prog, cl_int, cl_int) {
    let dev = ctx.device();
    let len = bin.len();
    let mut ptrs = [bin.as_ptr()];
    let mut bin_status = 1;
    let mut status = 1;
    // SAFETY: one device, one binary of `len` bytes.
    let p = unsafe {
        clCreateProgramWithBinary(
            ctx.raw(),
            1,
            &dev,
            &len,
            ptrs.as_mut_ptr(),
            &mut bin_status,
            &mut status,
        )
    };
    (Prog(p), status, bin_status)
}

/// Runs `apply` of `p` over the input and returns the buffer.
fn run_apply(cl: &Cl, p: &Prog) -> Vec<i32> {
    let mut status = CL_SUCCESS;
    // SAFETY: valid program, NUL-terminated name.
    let k = unsafe { clCreateKernel(p.0, c"apply".as_ptr(), &mut status) };
    check(status, "clCreateKernel(apply)");
    let buf = cl.buffer_from(&input());
    let mem = buf.raw();
    // SAFETY: a cl_mem argument.
    check(
        unsafe { clSetKernelArg(k, 0, size_of::<cl_mem>(), (&mem as *const cl_mem).cast()) },
        "clSetKernelArg",
    );
    let global = N;
    // SAFETY: one dimension.
    check(
        unsafe {
            clEnqueueNDRangeKernel(
                cl.queue.raw(),
                k,
                1,
                ptr::null(),
                &global,
                ptr::null(),
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        },
        "clEnqueueNDRangeKernel",
    );
    let out = cl.queue.read(&buf);
    // SAFETY: the kernel created above.
    check(unsafe { clReleaseKernel(k) }, "clReleaseKernel");
    out
}

#[test]
fn il_versions_reported() {
    let cl = Cl::new();
    assert_eq!(
        device_string(cl.device(), CL_DEVICE_IL_VERSION),
        "SPIR-V_1.0 SPIR-V_1.1 SPIR-V_1.2 SPIR-V_1.3 SPIR-V_1.4"
    );
    let ils: Vec<u8> = query(ferrocl_tests::info::device_info(
        cl.device(),
        CL_DEVICE_ILS_WITH_VERSION,
    ))
    .unwrap();
    let entry = size_of::<cl_name_version>();
    assert_eq!(ils.len(), 5 * entry);
    for (i, e) in ils.chunks(entry).enumerate() {
        let version = u32::from_ne_bytes(e[..4].try_into().unwrap());
        assert_eq!(version, (1 << 22) | ((i as u32) << 12), "ILS entry {i}");
        assert!(e[4..].starts_with(b"SPIR-V\0"));
    }
    let linker: cl_bool = ferrocl_tests::device_value(cl.device(), CL_DEVICE_LINKER_AVAILABLE);
    assert_eq!(linker, CL_TRUE);
}

#[test]
fn il_program_runs() {
    let cl = Cl::new();
    for version in ["1.0", "1.4"] {
        let il = ferrocl_tests::spirv_of_version(&whole_source(), Some(version));
        let mut status = CL_SUCCESS;
        // SAFETY: il.len() bytes.
        let p =
            unsafe { clCreateProgramWithIL(cl.raw(), il.as_ptr().cast(), il.len(), &mut status) };
        check(status, "clCreateProgramWithIL");
        let p = Prog(p);
        assert_eq!(program_info(&p, CL_PROGRAM_IL), il, "CL_PROGRAM_IL");
        check(build(&p, cl.device(), ""), "clBuildProgram(IL)");
        assert_eq!(run_apply(&cl, &p), expected(), "SPIR-V {version}");
    }

    // "CL_INVALID_VALUE if [...] il does not contain well-formed
    // intermediate language input".
    let garbage = [0x55u8; 64];
    let mut status = CL_SUCCESS;
    // SAFETY: 64 bytes.
    let p = unsafe { clCreateProgramWithIL(cl.raw(), garbage.as_ptr().cast(), 64, &mut status) };
    expect_error(status, CL_INVALID_VALUE, "clCreateProgramWithIL(garbage)");
    assert!(p.is_null());
}

#[test]
fn compile_with_header_and_link() {
    let cl = Cl::new();
    let dev = cl.device();
    let main = with_source(&cl, MAIN);
    let header = with_source(&cl, HELPERS_H);
    let helper = with_source(&cl, HELPER);
    assert_eq!(
        build_value::<cl_program_binary_type>(&main, dev, CL_PROGRAM_BINARY_TYPE),
        CL_PROGRAM_BINARY_TYPE_NONE
    );
    let before = CALLBACKS.load(Ordering::SeqCst);
    check(
        compile(&main, dev, "-DUNUSED=1", &[("helpers.h", &header)]),
        "clCompileProgram(main)",
    );
    check(compile(&helper, dev, "", &[]), "clCompileProgram(helper)");
    assert!(CALLBACKS.load(Ordering::SeqCst) >= before + 2);
    assert_eq!(
        build_value::<cl_program_binary_type>(&main, dev, CL_PROGRAM_BINARY_TYPE),
        CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT
    );
    assert_eq!(
        build_value::<cl_build_status>(&main, dev, CL_PROGRAM_BUILD_STATUS),
        CL_BUILD_SUCCESS
    );
    assert_eq!(
        build_string(&main, dev, CL_PROGRAM_BUILD_OPTIONS),
        "-DUNUSED=1"
    );
    // A compiled object is no executable.
    let mut status = CL_SUCCESS;
    // SAFETY: valid program, NUL-terminated name.
    let k = unsafe { clCreateKernel(main.0, c"apply".as_ptr(), &mut status) };
    expect_error(
        status,
        CL_INVALID_PROGRAM_EXECUTABLE,
        "clCreateKernel(object)",
    );
    assert!(k.is_null());

    let (exe, status) = link(&cl, "", &[&main, &helper]);
    check_link(&exe, dev, status, "clLinkProgram");
    assert_eq!(
        build_value::<cl_program_binary_type>(&exe, dev, CL_PROGRAM_BINARY_TYPE),
        CL_PROGRAM_BINARY_TYPE_EXECUTABLE
    );
    assert_eq!(
        build_value::<cl_build_status>(&exe, dev, CL_PROGRAM_BUILD_STATUS),
        CL_BUILD_SUCCESS
    );
    assert_eq!(program_info(&exe, CL_PROGRAM_KERNEL_NAMES), b"apply\0");
    assert_eq!(run_apply(&cl, &exe), expected());
}

#[test]
fn library_then_link() {
    let cl = Cl::new();
    let dev = cl.device();
    let main = with_source(&cl, MAIN);
    let header = with_source(&cl, HELPERS_H);
    let helper = with_source(&cl, HELPER);
    check(
        compile(&main, dev, "", &[("helpers.h", &header)]),
        "clCompileProgram(main)",
    );
    check(compile(&helper, dev, "", &[]), "clCompileProgram(helper)");
    let (lib, status) = link(&cl, "-create-library -enable-link-options", &[&helper]);
    check_link(&lib, dev, status, "clLinkProgram(-create-library)");
    assert_eq!(
        build_value::<cl_program_binary_type>(&lib, dev, CL_PROGRAM_BINARY_TYPE),
        CL_PROGRAM_BINARY_TYPE_LIBRARY
    );
    let (exe, status) = link(&cl, "-cl-fast-relaxed-math", &[&main, &lib]);
    check_link(&exe, dev, status, "clLinkProgram(main + library)");
    assert_eq!(run_apply(&cl, &exe), expected());

    // A library survives a binary round trip and links again.
    let bin = binary_of(&lib);
    let (lib2, status, bin_status) = with_binary(&cl, &bin);
    check(status, "clCreateProgramWithBinary(library)");
    assert_eq!(bin_status, CL_SUCCESS);
    assert_eq!(
        build_value::<cl_program_binary_type>(&lib2, dev, CL_PROGRAM_BINARY_TYPE),
        CL_PROGRAM_BINARY_TYPE_LIBRARY
    );
    let (exe2, status) = link(&cl, "", &[&main, &lib2]);
    check_link(
        &exe2,
        dev,
        status,
        "clLinkProgram(main + library from binary)",
    );
    assert_eq!(run_apply(&cl, &exe2), expected());
}

#[test]
fn binary_round_trip() {
    let cl = Cl::new();
    let p = with_source(&cl, &whole_source());
    check(build(&p, cl.device(), ""), "clBuildProgram");
    let first = run_apply(&cl, &p);
    assert_eq!(first, expected());
    let bin = binary_of(&p);
    assert!(bin.starts_with(b"FERROCL\0"));

    let cl2 = Cl::new();
    let (p2, status, bin_status) = with_binary(&cl2, &bin);
    check(status, "clCreateProgramWithBinary");
    assert_eq!(bin_status, CL_SUCCESS, "binary_status");
    let dev = cl2.device();
    assert_eq!(
        build_value::<cl_program_binary_type>(&p2, dev, CL_PROGRAM_BINARY_TYPE),
        CL_PROGRAM_BINARY_TYPE_EXECUTABLE
    );
    assert_eq!(
        build_value::<cl_build_status>(&p2, dev, CL_PROGRAM_BUILD_STATUS),
        CL_BUILD_NONE
    );
    check(build(&p2, dev, ""), "clBuildProgram(binary)");
    assert_eq!(
        build_value::<cl_build_status>(&p2, dev, CL_PROGRAM_BUILD_STATUS),
        CL_BUILD_SUCCESS
    );
    assert_eq!(run_apply(&cl2, &p2), first);
    // Its binary is the same again.
    assert_eq!(binary_of(&p2), bin);
}

#[test]
fn corrupted_binary_is_invalid() {
    let cl = Cl::new();
    let p = with_source(&cl, &whole_source());
    check(build(&p, cl.device(), ""), "clBuildProgram");
    let bin = binary_of(&p);
    let mut flipped = bin.clone();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0xff;
    let cases: [(&str, &[u8]); 4] = [
        ("flipped byte", &flipped),
        ("truncated", &bin[..bin.len() - 9]),
        ("garbage", &[7u8; 100]),
        ("header only", &bin[..8]),
    ];
    for (what, bytes) in cases {
        let (p2, status, bin_status) = with_binary(&cl, bytes);
        expect_error(status, CL_INVALID_BINARY, what);
        assert_eq!(bin_status, CL_INVALID_BINARY, "binary_status, {what}");
        assert!(p2.0.is_null(), "{what}: a program was returned");
    }
}

#[test]
fn link_failure_has_a_log() {
    let cl = Cl::new();
    let dev = cl.device();
    let main = with_source(&cl, MAIN);
    let header = with_source(&cl, HELPERS_H);
    check(
        compile(&main, dev, "", &[("helpers.h", &header)]),
        "clCompileProgram(main)",
    );
    let (exe, status) = link(&cl, "", &[&main]);
    expect_error(status, CL_LINK_PROGRAM_FAILURE, "clLinkProgram(unresolved)");
    assert!(!exe.0.is_null(), "the failed link returns its program");
    assert_eq!(
        build_value::<cl_build_status>(&exe, dev, CL_PROGRAM_BUILD_STATUS),
        CL_BUILD_ERROR
    );
    let log = build_string(&exe, dev, CL_PROGRAM_BUILD_LOG);
    assert!(log.contains("add_twice"), "log names the function:\n{log}");
}

#[test]
fn compile_and_link_errors() {
    let cl = Cl::new();
    let dev = cl.device();

    // Compile failure: missing header.
    let main = with_source(&cl, MAIN);
    expect_error(
        compile(&main, dev, "", &[]),
        CL_COMPILE_PROGRAM_FAILURE,
        "clCompileProgram(no header)",
    );
    let log = build_string(&main, dev, CL_PROGRAM_BUILD_LOG);
    assert!(log.contains("helpers.h"), "log:\n{log}");
    assert_eq!(
        build_value::<cl_build_status>(&main, dev, CL_PROGRAM_BUILD_STATUS),
        CL_BUILD_ERROR
    );
    expect_error(
        compile(&main, dev, "-bogus-option", &[]),
        CL_INVALID_COMPILER_OPTIONS,
        "clCompileProgram(bad options)",
    );

    // Linking programs that hold no compiled object.
    let never = with_source(&cl, HELPER);
    let (p, status) = link(&cl, "", &[&never]);
    expect_error(status, CL_INVALID_PROGRAM, "clLinkProgram(not compiled)");
    assert!(p.0.is_null());

    let helper = with_source(&cl, HELPER);
    check(compile(&helper, dev, "", &[]), "clCompileProgram(helper)");
    let (p, status) = link(&cl, "-not-a-link-option", &[&helper]);
    expect_error(
        status,
        CL_INVALID_LINKER_OPTIONS,
        "clLinkProgram(bad options)",
    );
    assert!(p.0.is_null());

    // Kernels attached: no recompilation.
    let built = with_source(&cl, &whole_source());
    check(build(&built, dev, ""), "clBuildProgram");
    let mut status = CL_SUCCESS;
    // SAFETY: valid program, NUL-terminated name.
    let k = unsafe { clCreateKernel(built.0, c"apply".as_ptr(), &mut status) };
    check(status, "clCreateKernel");
    expect_error(
        compile(&built, dev, "", &[]),
        CL_INVALID_OPERATION,
        "clCompileProgram(kernels attached)",
    );
    // SAFETY: the kernel created above.
    check(unsafe { clReleaseKernel(k) }, "clReleaseKernel");

    // A linked program cannot be rebuilt.
    let (exe, status) = link(&cl, "-create-library", &[&helper]);
    check_link(&exe, dev, status, "clLinkProgram(library)");
    expect_error(
        build(&exe, dev, ""),
        CL_INVALID_OPERATION,
        "clBuildProgram(linked)",
    );
}

// As clCreateProgramWithIL above (OpenCL 2.2).
#[link(name = "OpenCL")]
extern "system" {
    fn clSetProgramSpecializationConstant(
        program: cl_program,
        spec_id: cl_uint,
        spec_size: usize,
        spec_value: *const c_void,
    ) -> cl_int;
}

/// An OpenCL SPIR-V kernel `spec(global ulong* out)` storing its scalar
/// specialization constants: uint SpecId 0 (default 11), ulong SpecId 8
/// (22), bool SpecId 101 (false), uchar SpecId 3 (33) and float SpecId 7
/// (1.5, stored times 10). SpecIds 0, 3 and 8 are ones ferrocl uses
/// internally for work-group sizes and __local arguments.
const SPEC_SPVASM: &str = r#"
OpCapability Addresses
OpCapability Kernel
OpCapability Int64
OpCapability Int8
OpMemoryModel Physical64 OpenCL
OpEntryPoint Kernel %k "spec"
OpDecorate %c_int SpecId 0
OpDecorate %c_long SpecId 8
OpDecorate %c_bool SpecId 101
OpDecorate %c_char SpecId 3
OpDecorate %c_float SpecId 7
%void = OpTypeVoid
%uint = OpTypeInt 32 0
%ulong = OpTypeInt 64 0
%uchar = OpTypeInt 8 0
%float = OpTypeFloat 32
%bool = OpTypeBool
%c_int = OpSpecConstant %uint 11
%c_long = OpSpecConstant %ulong 22
%c_bool = OpSpecConstantFalse %bool
%c_char = OpSpecConstant %uchar 33
%c_float = OpSpecConstant %float 1.5
%ulong_0 = OpConstant %ulong 0
%ulong_1 = OpConstant %ulong 1
%ulong_2 = OpConstant %ulong 2
%ulong_3 = OpConstant %ulong 3
%ulong_4 = OpConstant %ulong 4
%float_10 = OpConstant %float 10
%ptr = OpTypePointer CrossWorkgroup %ulong
%fnty = OpTypeFunction %void %ptr
%k = OpFunction %void None %fnty
%out = OpFunctionParameter %ptr
%entry = OpLabel
%v0 = OpUConvert %ulong %c_int
OpStore %out %v0 Aligned 8
%p1 = OpInBoundsPtrAccessChain %ptr %out %ulong_1
OpStore %p1 %c_long Aligned 8
%v2 = OpSelect %ulong %c_bool %ulong_1 %ulong_0
%p2 = OpInBoundsPtrAccessChain %ptr %out %ulong_2
OpStore %p2 %v2 Aligned 8
%v3 = OpUConvert %ulong %c_char
%p3 = OpInBoundsPtrAccessChain %ptr %out %ulong_3
OpStore %p3 %v3 Aligned 8
%f10 = OpFMul %float %c_float %float_10
%v4 = OpConvertFToU %ulong %f10
%p4 = OpInBoundsPtrAccessChain %ptr %out %ulong_4
OpStore %p4 %v4 Aligned 8
OpReturn
OpFunctionEnd
"#;

/// An OpenCL SPIR-V kernel `spec_math(global float* out)` storing
/// OpenCL.std sin and exp of its float specialization constant SpecId 7
/// (default 1.5): libclc's functions, linked after the constant is frozen
/// (`frontend::il_math`). The compiler's il_math tests build the same
/// text.
const SPEC_MATH_SPVASM: &str = include_str!("../../compiler/tests/il/spec_math.spvasm");

fn spec_il() -> Vec<u8> {
    assemble(SPEC_SPVASM)
}

/// `spvasm` assembled by spirv-as (SPIR-V 1.0).
fn assemble(spvasm: &str) -> Vec<u8> {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "ferrocl-spec-test-{}-{}",
        std::process::id(),
        N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("k.spvasm"), spvasm).unwrap();
    let ok = Command::new("spirv-as")
        .args(["--target-env", "spv1.0", "k.spvasm", "-o", "k.spv"])
        .current_dir(&dir)
        .status()
        .expect("spirv-as")
        .success();
    assert!(ok, "spirv-as failed");
    let il = std::fs::read(dir.join("k.spv")).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    il
}

/// The program of IL `il` (clCreateProgramWithIL), not yet built.
fn il_program(cl: &Cl, il: &[u8]) -> Prog {
    let mut status = CL_SUCCESS;
    // SAFETY: il.len() readable bytes.
    let p =
        Prog(unsafe { clCreateProgramWithIL(cl.raw(), il.as_ptr().cast(), il.len(), &mut status) });
    check(status, "clCreateProgramWithIL");
    p
}

/// Builds `p` and runs `spec`, returning its five values.
fn run_spec(cl: &Cl, p: &Prog) -> Vec<u64> {
    run_spec_kernel(cl, p, c"spec", &[0u64; 5])
}

/// Builds `p` and runs its kernel `name` on a buffer of `init`, returning
/// the buffer.
fn run_spec_kernel<T: ferrocl_tests::Pod>(
    cl: &Cl,
    p: &Prog,
    name: &std::ffi::CStr,
    init: &[T],
) -> Vec<T> {
    check(build(p, cl.device(), ""), "clBuildProgram(IL)");
    let mut status = CL_SUCCESS;
    // SAFETY: valid program, NUL-terminated name.
    let k = unsafe { clCreateKernel(p.0, name.as_ptr(), &mut status) };
    check(status, "clCreateKernel");
    let buf = cl.buffer_from(init);
    let mem = buf.raw();
    // SAFETY: a cl_mem argument.
    check(
        unsafe { clSetKernelArg(k, 0, size_of::<cl_mem>(), (&mem as *const cl_mem).cast()) },
        "clSetKernelArg",
    );
    // A work-group of 4 gives ferrocl's own SpecIds 0-5 values of their own.
    let (global, local) = (8usize, 4usize);
    // SAFETY: one dimension.
    check(
        unsafe {
            clEnqueueNDRangeKernel(
                cl.queue.raw(),
                k,
                1,
                ptr::null(),
                &global,
                &local,
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        },
        "clEnqueueNDRangeKernel",
    );
    let out = cl.queue.read(&buf);
    // SAFETY: the kernel created above.
    check(unsafe { clReleaseKernel(k) }, "clReleaseKernel");
    out
}

fn set_spec(p: &Prog, id: cl_uint, bytes: &[u8]) -> cl_int {
    // SAFETY: `bytes.len()` readable bytes.
    unsafe { clSetProgramSpecializationConstant(p.0, id, bytes.len(), bytes.as_ptr().cast()) }
}

#[test]
fn specialization_constants_of_an_il_program() {
    let cl = Cl::new();
    let il = spec_il();
    let mut status = CL_SUCCESS;
    // SAFETY: il.len() bytes.
    let p =
        Prog(unsafe { clCreateProgramWithIL(cl.raw(), il.as_ptr().cast(), il.len(), &mut status) });
    check(status, "clCreateProgramWithIL");
    // Defaults.
    assert_eq!(run_spec(&cl, &p), vec![11, 22, 0, 33, 15]);

    // Error cases, each naming the rule.
    // "CL_INVALID_SPEC_ID if spec_id is not a valid specialization constant identifier."
    expect_error(
        set_spec(&p, 5, &[0; 4]),
        CL_INVALID_SPEC_ID,
        "unknown SpecId 5",
    );
    // "CL_INVALID_VALUE if spec_size does not match the size of the
    // specialization constant in the module, or if spec_value is NULL."
    expect_error(
        set_spec(&p, 0, &[0; 8]),
        CL_INVALID_VALUE,
        "uint given 8 bytes",
    );
    expect_error(
        set_spec(&p, 101, &[0; 4]),
        CL_INVALID_VALUE,
        "bool given 4 bytes",
    );
    // SAFETY: a NULL value is what is tested.
    let s = unsafe { clSetProgramSpecializationConstant(p.0, 8, 8, ptr::null()) };
    expect_error(s, CL_INVALID_VALUE, "NULL spec_value");

    check(set_spec(&p, 0, &1234u32.to_ne_bytes()), "set uint");
    check(set_spec(&p, 8, &(1u64 << 40).to_ne_bytes()), "set ulong");
    check(set_spec(&p, 101, &[7]), "set bool");
    check(set_spec(&p, 3, &[250]), "set uchar");
    check(set_spec(&p, 7, &2.5f32.to_ne_bytes()), "set float");
    // The last value set wins.
    check(set_spec(&p, 0, &4321u32.to_ne_bytes()), "set uint again");
    assert_eq!(run_spec(&cl, &p), vec![4321, 1 << 40, 1, 250, 25]);

    // "CL_INVALID_PROGRAM if program is not a valid program object created
    // from an intermediate language (e.g. SPIR-V)".
    let text = c"kernel void k() {}";
    let src = text.as_ptr();
    // SAFETY: one NUL-terminated string.
    let q = Prog(unsafe { clCreateProgramWithSource(cl.raw(), 1, &src, ptr::null(), &mut status) });
    check(status, "clCreateProgramWithSource");
    expect_error(
        set_spec(&q, 0, &[0; 4]),
        CL_INVALID_PROGRAM,
        "source program",
    );
}

/// A specialized IL program calling OpenCL.std math gets libclc's
/// functions for the application's value: within OpenCL's bounds (sin 4,
/// exp 3 ulp), at the default and at a value set before the build.
#[test]
fn specialized_il_program_with_precise_math() {
    use ferrocl_tests::mathref::{reference, ulp_error_f32};
    let cl = Cl::new();
    let il = assemble(SPEC_MATH_SPVASM);
    let p = il_program(&cl, &il);
    for x in [1.5f32, 85.3] {
        if x != 1.5 {
            check(set_spec(&p, 7, &x.to_ne_bytes()), "set float");
        }
        let out = run_spec_kernel(&cl, &p, c"spec_math", &[0f32; 2]);
        for (got, name, ulps) in [(out[0], "sin", 4.0), (out[1], "exp", 3.0)] {
            let r = reference(name, x as f64, 0.0, 0);
            let e = ulp_error_f32(got, &r).unwrap_or_else(|e| panic!("{name}({x}): {e}"));
            assert!(e <= ulps, "{name}({x}) = {got}: {e} ulp");
        }
    }
}

/// A kernel `older(global ushort* out)` in llvm-spirv-14's shape for
/// `(-as_ushort8((ulong2)7)).s4` and `.s1`: each extract and negation is
/// an OpSpecConstantOp ahead of the bitcast it reads and of the types
/// that needs (clang-14 + llvm-spirv-14, Debian 12's packages, at -O0;
/// spirv-val refuses the order, llvm-spirv's own reader takes it).
const OLDER_PRODUCER_SPVASM: &str = r#"OpCapability Addresses
OpCapability Linkage
OpCapability Kernel
OpCapability Vector16
OpCapability Int64
OpCapability Int16
OpMemoryModel Physical64 OpenCL
OpEntryPoint Kernel %k "older"
%ushort = OpTypeInt 16 0
%ulong = OpTypeInt 64 0
%ulong_1 = OpConstant %ulong 1
%ushort_0 = OpConstant %ushort 0
%ulong_7 = OpConstant %ulong 7
%e4 = OpSpecConstantOp %ushort CompositeExtract %cast 4
%n4 = OpSpecConstantOp %ushort ISub %ushort_0 %e4
%e1 = OpSpecConstantOp %ushort CompositeExtract %cast 1
%n1 = OpSpecConstantOp %ushort ISub %ushort_0 %e1
%void = OpTypeVoid
%ptr = OpTypePointer CrossWorkgroup %ushort
%fn = OpTypeFunction %void %ptr
%v8ushort = OpTypeVector %ushort 8
%v2ulong = OpTypeVector %ulong 2
%pair = OpConstantComposite %v2ulong %ulong_7 %ulong_7
%cast = OpSpecConstantOp %v8ushort Bitcast %pair
%k = OpFunction %void None %fn
%out = OpFunctionParameter %ptr
%entry = OpLabel
OpStore %out %n4 Aligned 2
%p1 = OpInBoundsPtrAccessChain %ptr %out %ulong_1
OpStore %p1 %n1 Aligned 2
OpReturn
OpFunctionEnd
"#;

/// SPIR-V whose module-scope constants use ids defined further down, as
/// llvm-spirv-14 writes them, builds and runs (`il_global_order`); before,
/// the build failed with "malformed SPIR-V module: OpSpecConstantOp ...
/// uses ... before its definition". Found by `ferrocl-fuzz --il` with
/// `FERROCL_FUZZ_IL_VERSION=14` (seed 140).
#[test]
fn il_constants_defined_after_their_uses() {
    let cl = Cl::new();
    let il = assemble(OLDER_PRODUCER_SPVASM);
    let p = il_program(&cl, &il);
    let out = run_spec_kernel(&cl, &p, c"older", &[0xaaaau16; 2]);
    // as_ushort8((ulong2)7) is {7, 0, 0, 0, 7, 0, 0, 0}: -7 and -0.
    assert_eq!(out, [7u16.wrapping_neg(), 0]);
}

/// IL made at -O0 (clang-15 and llvm-spirv-15, as SPIR-V producers that
/// do not optimize make it): the constant part of a partly run-time
/// aggregate initializer is a module-scope `Function` variable that
/// clang leaves without `constant`, copied in with a memcpy. It builds
/// and runs as constant data (`place_private_constants`); before, the
/// build failed with "a module-scope variable ... in the private address
/// space that is not a constant" (found by `ferrocl-fuzz --il`, seed 140).
#[test]
fn il_at_o0_with_a_partly_constant_initializer() {
    const SOURCE: &str = "typedef struct { long f0; ushort3 f1; } S0;
typedef struct { int2 f0; S0 f1[4]; S0 f2; short4 f3[4]; } S1;
kernel void partly(global ulong* out) {
    size_t i = get_global_id(0);
    S1 s = { (int2)(1, 2), { { 3, 0 }, { 0, 0 }, { 0, 0 }, { 0, (ushort3)((ushort)out[i]) } },
             { 4, 0 }, { (short4)(5), (short4)(6, 7, 8, 9), 0, 0 } };
    out[i] = s.f1[3].f1.x + s.f3[1].y + s.f0.y + s.f1[0].f0 + s.f2.f0 + s.f3[0].w;
}";
    let cl = Cl::new();
    let il = ferrocl_tests::spirv_of_with(SOURCE, None, &["-O0"]);
    let p = il_program(&cl, &il);
    let init: Vec<u64> = (0..8).map(|i| 100 + i).collect();
    let out = run_spec_kernel(&cl, &p, c"partly", &init);
    let want: Vec<u64> = init.iter().map(|x| x + 7 + 2 + 3 + 4 + 5).collect();
    assert_eq!(out, want);
}

#[test]
fn il_program_compiles_and_links_with_source() {
    // clCompileProgram on an IL program (the helper), linked with the
    // kernel compiled from source.
    let cl = Cl::new();
    let ctx = &cl.context;
    let il = ferrocl_tests::spirv_of_version(HELPER, Some("1.2"));
    let mut status = CL_SUCCESS;
    // SAFETY: il.len() bytes.
    let helper = Prog(unsafe {
        clCreateProgramWithIL(ctx.raw(), il.as_ptr().cast(), il.len(), &mut status)
    });
    check(status, "clCreateProgramWithIL");
    check(
        compile(&helper, cl.device(), "", &[]),
        "clCompileProgram(IL)",
    );
    let main = with_source(ctx, &MAIN.replace("#include \"helpers.h\"", HELPERS_H));
    check(
        compile(&main, cl.device(), "", &[]),
        "clCompileProgram(source)",
    );
    let (exe, status) = link(ctx, "", &[&main, &helper]);
    check_link(&exe, cl.device(), status, "clLinkProgram(source + IL)");
    assert_eq!(run_apply(&cl, &exe), expected());
}

/// Double-precision math (linked from libclc when the executable is made)
/// through clCompileProgram + clLinkProgram: the helper object calls
/// cospi, the kernel exp2.
#[test]
fn double_math_through_compile_and_link() {
    let cl = Cl::new();
    let dev = cl.device();
    let helper = with_source(
        &cl,
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
         double scaled(double x) { return cospi(x) * 2.0; }\n",
    );
    let main = with_source(
        &cl,
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
         double scaled(double x);\n\
         kernel void apply(global double *o) {\n\
             size_t i = get_global_id(0);\n\
             o[i] = scaled(o[i]) + exp2(o[i]);\n\
         }\n",
    );
    check(compile(&helper, dev, "", &[]), "clCompileProgram(helper)");
    check(compile(&main, dev, "", &[]), "clCompileProgram(main)");
    let (exe, status) = link(&cl, "", &[&main, &helper]);
    check_link(&exe, dev, status, "clLinkProgram");
    let x = [0.0f64, 0.25, 1.0 / 3.0, 2.5, -7.0];
    let buf = cl.buffer_from(&x);
    let mut status = CL_SUCCESS;
    // SAFETY: valid program, NUL-terminated name.
    let k = unsafe { clCreateKernel(exe.0, c"apply".as_ptr(), &mut status) };
    check(status, "clCreateKernel(apply)");
    let mem = buf.raw();
    // SAFETY: a cl_mem argument.
    check(
        unsafe { clSetKernelArg(k, 0, size_of::<cl_mem>(), (&mem as *const cl_mem).cast()) },
        "clSetKernelArg",
    );
    let global = x.len();
    // SAFETY: one dimension.
    check(
        unsafe {
            clEnqueueNDRangeKernel(
                cl.queue.raw(),
                k,
                1,
                ptr::null(),
                &global,
                ptr::null(),
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        },
        "clEnqueueNDRangeKernel",
    );
    let got = cl.queue.read(&buf);
    // SAFETY: the kernel created above.
    check(unsafe { clReleaseKernel(k) }, "clReleaseKernel");
    for (g, x) in got.iter().zip(x) {
        let want = (std::f64::consts::PI * x).cos() * 2.0 + x.exp2();
        assert!(
            (g - want).abs() <= 1e-14 * want.abs().max(1.0),
            "x = {x}: got {g}, want {want}"
        );
    }
}

/// hashcat's `hc_count_char` (inc_common.cl) and friends: LLVM's optimizer
/// turns the four byte comparisons into `bitcast <4 x i1> to i4` +
/// `ctpop.i4` (and a triangular sum into `i33`), integer widths
/// llvm-spirv-15 refused ("InvalidBitWidth: Invalid bit width in input:
/// 4") and Vulkan lacks (`passes::legalize_int_widths`). Built whole and
/// through clCompileProgram + clLinkProgram (hashcat's way), checked
/// against the host.
const ODD_WIDTHS: &str = r#"
int count_char(const uint *buf, const int elems, const uint c)
{
    int r = 0;
    for (int i = 0; i < elems; i++) {
        const uint v = buf[i];
        if (((v >>  0) & 0xff) == c) r++;
        if (((v >>  8) & 0xff) == c) r++;
        if (((v >> 16) & 0xff) == c) r++;
        if (((v >> 24) & 0xff) == c) r++;
    }
    return r;
}
int count_byte8(ulong v, uint c)
{
    int r = 0;
    for (int s = 0; s < 64; s += 8)
        if (((v >> s) & 0xff) == c) r++;
    return r;
}
int triangle(int n)
{
    int s = 0;
    for (int j = 0; j < n; j++) s += j;
    return s;
}
kernel void k(global const uint *a, global const uint *b, global int *out)
{
    size_t i = get_global_id(0);
    uint buf[4] = { a[4 * i], a[4 * i + 1], a[4 * i + 2], a[4 * i + 3] };
    uint c = (b[i] >> 8) & 0xff;
    out[3 * i] = count_char(buf, (b[i] & 3) + 1, c);
    out[3 * i + 1] = count_byte8(((ulong)a[4 * i] << 32) | a[4 * i + 1], c);
    out[3 * i + 2] = triangle(b[i] >> 16);
}
"#;

#[test]
fn odd_integer_widths_from_the_optimizer() {
    const N: usize = 256;
    let mut seed = 0x2545_f491u32;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed
    };
    // Bytes from {0, 1, 2, 3} so that the comparisons often hold.
    let a: Vec<u32> = (0..4 * N).map(|_| next() & 0x0303_0303).collect();
    let b: Vec<u32> = (0..N)
        .map(|_| (next() & 0x03) | (next() & 0x0300) | ((next() & 0x3ff) << 16))
        .collect();
    let mut want = Vec::new();
    for i in 0..N {
        let c = (b[i] >> 8) & 0xff;
        let bytes = |v: u64, n: u32| {
            (0..n)
                .filter(|k| (v >> (8 * k)) & 0xff == u64::from(c))
                .count() as i32
        };
        let elems = (b[i] & 3) as usize + 1;
        want.push(
            a[4 * i..4 * i + elems]
                .iter()
                .map(|&v| bytes(u64::from(v), 4))
                .sum(),
        );
        want.push(bytes(
            (u64::from(a[4 * i]) << 32) | u64::from(a[4 * i + 1]),
            8,
        ));
        let n = (b[i] >> 16) as i64;
        want.push((n * (n - 1) / 2) as i32);
    }
    let cl = Cl::new();
    let run = |p: &Prog| {
        let mut status = CL_SUCCESS;
        // SAFETY: valid program, NUL-terminated name.
        let k = ferrocl_tests::Kernel::from_raw(unsafe {
            clCreateKernel(p.0, c"k".as_ptr(), &mut status)
        });
        check(status, "clCreateKernel(k)");
        let (ab, bb, ob) = (
            cl.buffer_from(&a),
            cl.buffer_from(&b),
            cl.buffer::<i32>(3 * N),
        );
        k.arg(0, &ab).arg(1, &bb).arg(2, &ob);
        cl.queue.run(&k, &[N], None);
        cl.queue.read(&ob)
    };
    let whole = with_source(&cl, ODD_WIDTHS);
    let status = build(&whole, cl.device(), "");
    check_link(&whole, cl.device(), status, "clBuildProgram");
    assert_eq!(run(&whole), want, "clBuildProgram");
    let object = with_source(&cl, ODD_WIDTHS);
    check(compile(&object, cl.device(), "", &[]), "clCompileProgram");
    let (exe, status) = link(&cl.context, "", &[&object]);
    check_link(&exe, cl.device(), status, "clLinkProgram");
    assert_eq!(run(&exe), want, "clCompileProgram + clLinkProgram");
}

/// A struct copied out of a private array at a run-time index, passed by
/// value and copied back (lavapipe fuzz seed 16 program 86, reduced):
/// LLVM's SROA moves `{ uchar2 f0; uint f1; }` as an `i8` and an `i48`
/// (bytes 2..8: the padding and `f1`) through cast pointers.
/// `legalize_int_widths` accessed the `i48` as 8 bytes, so `f1` read the
/// next element's `f0` into its upper bits and the store wrote it back
/// over that element; it now accesses the 6 bytes as 4 + 2.
const ODD_WIDTH_STRUCT_COPIES: &str = r#"
typedef struct { uchar2 f0; uint f1; } S1;
ulong f(ulong h, S1 v) { return h * 1000003UL + v.f0.x * 1009UL + v.f0.y * 31UL + v.f1; }
kernel void k(global const ulong* in, global ulong* out) {
    const uint gid = get_global_id(0);
    S1 a1[4] = { { (uchar2)((uchar)in[0], (uchar)in[1]), gid },
                 { (uchar2)(127, 5), (uint)in[2] },
                 { (uchar2)((uchar)in[3], 7), (uint)in[4] * (uint)in[5] },
                 { (uchar2)(0, 255), (uint)in[6] } };
    S1 s4 = a1[in[gid & 63] & 3];
    a1[in[(gid + 1) & 63] & 3] = s4;
    out[2 * gid] = f(0, s4);
    out[2 * gid + 1] = f(f(f(f(0, a1[0]), a1[1]), a1[2]), a1[3]);
}
"#;

#[test]
fn odd_width_struct_copies_through_cast_pointers() {
    const N: usize = 64;
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let input: Vec<u64> = (0..N)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        })
        .collect();
    #[derive(Clone, Copy)]
    struct S1 {
        x: u8,
        y: u8,
        f1: u32,
    }
    let f = |h: u64, v: S1| {
        h.wrapping_mul(1_000_003)
            .wrapping_add(u64::from(v.x) * 1009)
            .wrapping_add(u64::from(v.y) * 31)
            .wrapping_add(u64::from(v.f1))
    };
    let want: Vec<u64> = (0..N)
        .flat_map(|gid| {
            let s = |x: u64, y: u64, f1: u64| S1 {
                x: x as u8,
                y: y as u8,
                f1: f1 as u32,
            };
            let mut a1 = [
                s(input[0], input[1], gid as u64),
                s(127, 5, input[2]),
                s(
                    input[3],
                    7,
                    u64::from((input[4] as u32).wrapping_mul(input[5] as u32)),
                ),
                s(0, 255, input[6]),
            ];
            let s4 = a1[(input[gid] & 3) as usize];
            a1[(input[(gid + 1) % N] & 3) as usize] = s4;
            [f(0, s4), a1.iter().fold(0, |h, &v| f(h, v))]
        })
        .collect();
    let cl = Cl::new();
    let (_p, k) = built_kernel(&cl, ODD_WIDTH_STRUCT_COPIES, c"k");
    let (ib, ob) = (cl.buffer_from(&input), cl.buffer::<u64>(2 * N));
    k.arg(0, &ib).arg(1, &ob);
    cl.queue.run(&k, &[N], None);
    assert_eq!(cl.queue.read(&ob), want);
}

/// A `uchar3` struct member that LLVM's SROA keeps as an `i24` and casts
/// to `<3 x i8>` (lavapipe fuzz seed 24 program 100034, reduced): the build
/// failed ("an integer of a width Vulkan lacks in OpBitcast");
/// `legalize_int_widths` now splits the odd integer into its lanes.
const ODD_WIDTH_TO_VECTOR_BITCAST: &str = r#"
typedef struct { uchar3 f0; uchar f1[4]; } S0;
kernel void k(global const ulong* in, global ulong* out) {
    const uint gid = get_global_id(0);
    S0 a3[4] = { { 0, { 0, 0, 0, 0 } }, { 0, { 0, 0, 0, 0 } }, { 0, { 0, 0, 0, 0 } }, { 0, { 0, 0, 0, 0 } } };
    S0 s5 = { (uchar3)((uchar)in[gid]), { 0, 0, (uchar)in[1], (uchar)in[2] } };
    a3[0] = s5;
    ulong h = 0;
    for (uint i = 0; i < 3u; i++) {
        for (uint j = 0; j < 2u; j++) {
            s5.f0.s2 = 0;
            h = h * 31 + in[(gid + i + j) & 63] / (in[gid] | 1);
        }
    }
    out[2 * gid] = h + s5.f0.s0 + s5.f0.s1 * 3 + s5.f0.s2 * 5;
    out[2 * gid + 1] = s5.f1[in[gid] & 3] + a3[in[3] & 3].f1[2];
}
"#;

#[test]
fn odd_width_integer_cast_to_a_vector() {
    const N: usize = 64;
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let input: Vec<u64> = (0..N)
        .map(|i| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            // Small values too, so that the divisions are not all 0.
            if i % 3 == 0 {
                seed % 1000
            } else {
                seed
            }
        })
        .collect();
    let want: Vec<u64> = (0..N)
        .flat_map(|gid| {
            let b = input[gid] as u8;
            let f1 = [0u8, 0, input[1] as u8, input[2] as u8];
            let mut h = 0u64;
            for i in 0..3 {
                for j in 0..2 {
                    h = h
                        .wrapping_mul(31)
                        .wrapping_add(input[(gid + i + j) & 63] / (input[gid] | 1));
                }
            }
            let a3_f1_2 = if input[3] & 3 == 0 { f1[2] } else { 0 };
            [
                h.wrapping_add(u64::from(b) + u64::from(b) * 3),
                u64::from(f1[(input[gid] & 3) as usize]) + u64::from(a3_f1_2),
            ]
        })
        .collect();
    let cl = Cl::new();
    let (_p, k) = built_kernel(&cl, ODD_WIDTH_TO_VECTOR_BITCAST, c"k");
    let (ib, ob) = (cl.buffer_from(&input), cl.buffer::<u64>(2 * N));
    k.arg(0, &ib).arg(1, &ob);
    cl.queue.run(&k, &[N], None);
    assert_eq!(cl.queue.read(&ob), want);
}

/// Struct copies of more than 1024 chunks (the lowering unrolls smaller
/// ones): 20,000 bytes aligned to 4 and 3,001 bytes aligned to 1, global
/// to global and through `__local` memory. They failed to build ("memcpy
/// of more than 1024 elements is not supported yet", lavapipe fuzz seed 16
/// p77); they are a loop now (`lower::memory::bytes::copy_in_loop`), also
/// between private variables with arrays of their own.
const LARGE_COPIES: &str = r#"
typedef struct { uint w[5000]; } Big;
typedef struct { uchar c[3001]; } Odd;
kernel void k(global const Big* src, global Big* dst, global const Odd* osrc, global Odd* odst,
              global Big* via_local) {
    local Big l;
    if (get_local_id(0) == 0) {
        *dst = *src;
        *odst = *osrc;
        l = *src;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 1) *via_local = l;
}
void fill(Odd* a, global const uchar* in, uchar x) { for (int i = 0; i < 3001; i++) a->c[i] = in[i] ^ x; }
kernel void private_copy(global const uchar* in, global uchar* out) {
    Odd a, b;
    uchar x = (uchar)get_global_id(0);
    fill(&a, in, x);
    b = a;
    a.c[5] = 0;
    for (int i = 0; i < 3001; i++) out[get_global_id(0) * 3001 + i] = b.c[(i * 7) % 3001] + a.c[i];
}
"#;

#[test]
fn struct_copies_beyond_the_unrolled_size() {
    let big: Vec<u32> = (0..5000u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let odd: Vec<u8> = (0..3001u32).map(|i| (i * 7 + 3) as u8).collect();
    let cl = Cl::new();
    let (p, k) = built_kernel(&cl, LARGE_COPIES, c"k");
    let (src, dst) = (cl.buffer_from(&big), cl.buffer::<u32>(5000));
    let (osrc, odst) = (cl.buffer_from(&odd), cl.buffer::<u8>(3001));
    let via = cl.buffer::<u32>(5000);
    k.arg(0, &src)
        .arg(1, &dst)
        .arg(2, &osrc)
        .arg(3, &odst)
        .arg(4, &via);
    cl.queue.run(&k, &[2], Some(&[2]));
    assert!(
        cl.queue.read(&dst) == big,
        "global to global, 4-byte chunks"
    );
    assert!(cl.queue.read(&odst) == odd, "global to global, bytes");
    assert!(cl.queue.read(&via) == big, "through __local memory");
    // Private to private: each variable has an array of its own in the
    // kernel function, which the loop helper gets as a parameter.
    let k = kernel_of(&p, c"private_copy");
    let out = cl.buffer::<u8>(4 * 3001);
    k.arg(0, &osrc).arg(1, &out);
    cl.queue.run(&k, &[4], None);
    let want: Vec<u8> = (0..4u8)
        .flat_map(|x| {
            let b: Vec<u8> = odd.iter().map(|v| v ^ x).collect();
            let mut a = b.clone();
            a[5] = 0;
            (0..3001).map(move |i| b[(i * 7) % 3001].wrapping_add(a[i]))
        })
        .collect();
    assert!(cl.queue.read(&out) == want, "private to private, bytes");
}

/// C99 `inline` definitions (OpenCL C's rule: no external definition) that
/// the inliner leaves called: CLBlast defines its helpers so on NVIDIA
/// devices (`#define INLINE_FUNC inline`), and its GEMM kernels failed to
/// build with "call to undefined function '_CopyPadMatrix'". `noinline`
/// makes the call stay; -O0 keeps every call. Two objects that both carry
/// the inline definition link into one program.
const INLINE_HELPER: &str = "inline __attribute__((noinline)) int scaled(int x, int k) {\n\
        int s = 0;\n\
        for (int i = 0; i < k; i++) s += x * i + (x >> i);\n\
        return s;\n\
    }\n";

#[test]
fn inline_definitions_left_called() {
    let kernel = |name: &str| {
        format!(
            "{INLINE_HELPER}kernel void {name}(global int *a) {{\n\
                 size_t i = get_global_id(0);\n\
                 a[i] = scaled(a[i], 5) + scaled(a[i] + 1, 3);\n\
             }}\n"
        )
    };
    let scaled = |x: i32, k: i32| (0..k).map(|i| x.wrapping_mul(i) + (x >> i)).sum::<i32>();
    let data: Vec<i32> = (0..64).map(|i| i * 37 - 1000).collect();
    let want: Vec<i32> = data
        .iter()
        .map(|&x| scaled(x, 5) + scaled(x + 1, 3))
        .collect();
    let cl = Cl::new();
    let dev = cl.device();
    let run = |p: &Prog, name: &str| {
        let mut status = CL_SUCCESS;
        let cname = CString::new(name).unwrap();
        // SAFETY: valid program, NUL-terminated name.
        let k = ferrocl_tests::Kernel::from_raw(unsafe {
            clCreateKernel(p.0, cname.as_ptr(), &mut status)
        });
        check(status, "clCreateKernel");
        let buf = cl.buffer_from(&data);
        k.arg(0, &buf);
        cl.queue.run(&k, &[data.len()], None);
        cl.queue.read(&buf)
    };
    for options in ["", "-cl-opt-disable"] {
        let p = with_source(&cl, &kernel("k"));
        let status = build(&p, dev, options);
        check_link(&p, dev, status, &format!("clBuildProgram({options:?})"));
        assert_eq!(run(&p, "k"), want, "clBuildProgram({options:?})");
    }
    let (a, b) = (
        with_source(&cl, &kernel("first")),
        with_source(&cl, &kernel("second")),
    );
    check(compile(&a, dev, "", &[]), "clCompileProgram(first)");
    check(compile(&b, dev, "", &[]), "clCompileProgram(second)");
    let (exe, status) = link(&cl.context, "", &[&a, &b]);
    check_link(&exe, dev, status, "clLinkProgram");
    assert_eq!(run(&exe, "first"), want, "first");
    assert_eq!(run(&exe, "second"), want, "second");
}

/// A vector add as older LLVM/SPIR-V translators wrote it (SPIR-V 1.0, the
/// Linkage capability, the builtin variable imported by name and decorated
/// Constant, the parameters' attributes in a decoration group, the id
/// loaded as a vector and its component extracted), and the variants
/// `il_from_older_producers` makes of it.
const OLD_PRODUCER_SPVASM: &str = r#"
               OpCapability Addresses
               OpCapability Linkage
               OpCapability Kernel
               OpCapability Int64
          %1 = OpExtInstImport "OpenCL.std"
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %add "vadd"
               OpSource OpenCL_C 120
               OpName %gid "__spirv_BuiltInGlobalInvocationId"
               OpName %a "a"
               OpName %b "b"
               OpName %c "c"
               OpDecorate %gid LinkageAttributes "__spirv_BuiltInGlobalInvocationId" Import
               OpDecorate %gid Constant
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %grp FuncParamAttr NoCapture
        %grp = OpDecorationGroup
               OpGroupDecorate %grp %a %b %c
      %ulong = OpTypeInt 64 0
       %uint = OpTypeInt 32 0
    %v3ulong = OpTypeVector %ulong 3
 %ptr_in_v3 = OpTypePointer Input %v3ulong
       %void = OpTypeVoid
    %ptr_glb = OpTypePointer CrossWorkgroup %uint
         %fn = OpTypeFunction %void %ptr_glb %ptr_glb %ptr_glb
        %gid = OpVariable %ptr_in_v3 Input
        %add = OpFunction %void None %fn
          %a = OpFunctionParameter %ptr_glb
          %b = OpFunctionParameter %ptr_glb
          %c = OpFunctionParameter %ptr_glb
      %entry = OpLabel
         %ids = OpLoad %v3ulong %gid Aligned 32
          %i = OpCompositeExtract %ulong %ids 0
         %pa = OpInBoundsPtrAccessChain %ptr_glb %a %i
         %va = OpLoad %uint %pa Aligned 4
         %pb = OpInBoundsPtrAccessChain %ptr_glb %b %i
         %vb = OpLoad %uint %pb Aligned 4
          %s = OpIAdd %uint %va %vb
         %pc = OpInBoundsPtrAccessChain %ptr_glb %c %i
               OpStore %pc %s Aligned 4
               OpReturn
               OpFunctionEnd
"#;

/// Every form of builtin variable that producers emit gives each
/// work-item its own id (`passes::normalize_builtin_vars`): the variable
/// in UniformConstant (every work-item saw id 0), a component read
/// through an access chain (a build error), a 32-bit module.
#[test]
fn il_from_older_producers() {
    let access_chain = OLD_PRODUCER_SPVASM
        .replace(
            "%ptr_in_v3 = OpTypePointer Input %v3ulong",
            "%ptr_in_v3 = OpTypePointer Input %v3ulong\n%ptr_in_u = OpTypePointer Input %ulong\n%c0 = OpConstant %uint 0",
        )
        .replace(
            "%ids = OpLoad %v3ulong %gid Aligned 32\n          %i = OpCompositeExtract %ulong %ids 0",
            "%pi = OpInBoundsAccessChain %ptr_in_u %gid %c0\n          %i = OpLoad %ulong %pi",
        );
    let variants = [
        ("Input", OLD_PRODUCER_SPVASM.to_string()),
        (
            "UniformConstant",
            OLD_PRODUCER_SPVASM
                .replace("OpTypePointer Input", "OpTypePointer UniformConstant")
                .replace("%ptr_in_v3 Input", "%ptr_in_v3 UniformConstant"),
        ),
        ("access chain", access_chain.clone()),
        (
            "access chain, UniformConstant",
            access_chain
                .replace("OpTypePointer Input", "OpTypePointer UniformConstant")
                .replace("%ptr_in_v3 Input", "%ptr_in_v3 UniformConstant"),
        ),
        (
            "32-bit",
            OLD_PRODUCER_SPVASM
                .replace("Physical64", "Physical32")
                .replace(
                    "%v3ulong = OpTypeVector %ulong 3",
                    "%v3ulong = OpTypeVector %uint 3",
                )
                .replace("OpCompositeExtract %ulong", "OpCompositeExtract %uint"),
        ),
    ];
    for (what, spvasm) in variants {
        assert!(
            spvasm != OLD_PRODUCER_SPVASM || what == "Input",
            "{what}: no change"
        );
        run_old_producer(&spvasm, what);
    }
}

fn run_old_producer(spvasm: &str, what: &str) {
    let cl = Cl::new();
    let il = assemble(spvasm);
    let mut status = CL_SUCCESS;
    // SAFETY: il.len() bytes.
    let p = Prog(unsafe {
        clCreateProgramWithIL(cl.context.raw(), il.as_ptr().cast(), il.len(), &mut status)
    });
    check(status, "clCreateProgramWithIL");
    let status = build(&p, cl.device(), "");
    check_link(&p, cl.device(), status, what);
    let a: Vec<u32> = (0..64).collect();
    let b: Vec<u32> = (0..64).map(|i| 1000 * i).collect();
    let mut status = CL_SUCCESS;
    // SAFETY: valid program, NUL-terminated name.
    let k = ferrocl_tests::Kernel::from_raw(unsafe {
        clCreateKernel(p.0, c"vadd".as_ptr(), &mut status)
    });
    check(status, "clCreateKernel(vadd)");
    let (ab, bb, cb) = (cl.buffer_from(&a), cl.buffer_from(&b), cl.buffer::<u32>(64));
    k.arg(0, &ab).arg(1, &bb).arg(2, &cb);
    cl.queue.run(&k, &[64], Some(&[16]));
    let want: Vec<u32> = (0..64).map(|i| 1001 * i).collect();
    assert_eq!(cl.queue.read(&cb), want, "{what}");
}

/// LLVM's `freeze` as llvm-spirv-15 writes it: an OpBitcast to the
/// operand's own type, here of a boolean vector and of a boolean (which
/// SPIR-V does not allow to bitcast). The optimizer freezes a vectorized
/// `a > t || b > t || c > t || d > t` (darktable's demosaic and highlight
/// kernels: "the optimizer produced an integer of a width Vulkan lacks in
/// OpBitcast to a non-integer"); `passes::legalize_int_widths` makes them
/// copies.
const FREEZE_SPVASM: &str = r#"
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int64
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k "over" %gid
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %gid Constant
      %ulong = OpTypeInt 64 0
       %uint = OpTypeInt 32 0
       %bool = OpTypeBool
     %v4uint = OpTypeVector %uint 4
     %v4bool = OpTypeVector %bool 4
    %v3ulong = OpTypeVector %ulong 3
  %ptr_in_v3 = OpTypePointer Input %v3ulong
       %void = OpTypeVoid
    %ptr_v4u = OpTypePointer CrossWorkgroup %v4uint
      %ptr_u = OpTypePointer CrossWorkgroup %uint
         %fn = OpTypeFunction %void %ptr_v4u %ptr_u %uint
         %u0 = OpConstant %uint 0
         %u1 = OpConstant %uint 1
         %u2 = OpConstant %uint 2
         %u4 = OpConstant %uint 4
        %gid = OpVariable %ptr_in_v3 Input
          %k = OpFunction %void None %fn
          %a = OpFunctionParameter %ptr_v4u
        %out = OpFunctionParameter %ptr_u
          %t = OpFunctionParameter %uint
      %entry = OpLabel
        %ids = OpLoad %v3ulong %gid Aligned 32
          %i = OpCompositeExtract %ulong %ids 0
         %pa = OpInBoundsPtrAccessChain %ptr_v4u %a %i
          %v = OpLoad %v4uint %pa Aligned 16
         %ts = OpCompositeConstruct %v4uint %t %t %t %t
        %cmp = OpUGreaterThan %v4bool %v %ts
         %fz = OpBitcast %v4bool %cmp
        %any = OpAny %bool %fz
        %all = OpAll %bool %fz
         %l0 = OpCompositeExtract %bool %cmp 0
        %fz0 = OpBitcast %bool %l0
         %r0 = OpSelect %uint %any %u1 %u0
         %r1 = OpSelect %uint %all %u2 %u0
         %r2 = OpSelect %uint %fz0 %u4 %u0
         %s0 = OpBitwiseOr %uint %r0 %r1
         %s1 = OpBitwiseOr %uint %s0 %r2
         %po = OpInBoundsPtrAccessChain %ptr_u %out %i
               OpStore %po %s1 Aligned 4
               OpReturn
               OpFunctionEnd
"#;

#[test]
fn freeze_of_booleans_from_llvm_spirv() {
    const N: usize = 64;
    let cl = Cl::new();
    let il = assemble(FREEZE_SPVASM);
    let mut status = CL_SUCCESS;
    // SAFETY: il.len() bytes.
    let p = Prog(unsafe {
        clCreateProgramWithIL(cl.context.raw(), il.as_ptr().cast(), il.len(), &mut status)
    });
    check(status, "clCreateProgramWithIL");
    let status = build(&p, cl.device(), "");
    check_link(&p, cl.device(), status, "freeze");
    // Lanes 0..9 against a threshold of 4: none, some and all lanes over.
    let a: Vec<u32> = (0..4 * N as u32)
        .map(|k| (k.wrapping_mul(2_654_435_761) >> 13) % 10)
        .collect();
    let t = 4u32;
    let want: Vec<u32> = a
        .chunks(4)
        .map(|v| {
            u32::from(v.iter().any(|&x| x > t))
                | (u32::from(v.iter().all(|&x| x > t)) << 1)
                | (u32::from(v[0] > t) << 2)
        })
        .collect();
    assert!(want.contains(&0) && want.contains(&1) && want.contains(&7));
    let mut status = CL_SUCCESS;
    // SAFETY: valid program, NUL-terminated name.
    let k = ferrocl_tests::Kernel::from_raw(unsafe {
        clCreateKernel(p.0, c"over".as_ptr(), &mut status)
    });
    check(status, "clCreateKernel(over)");
    let (ab, ob) = (cl.buffer_from(&a), cl.buffer::<u32>(N));
    k.arg(0, &ab).arg(1, &ob).arg(2, &t);
    cl.queue.run(&k, &[N], Some(&[16]));
    assert_eq!(cl.queue.read(&ob), want);
}

/// Applications pass their vendor's compiler options when the device's
/// vendor is that vendor (ferrocl reports the hardware's): accepted with a
/// warning naming each in the build log (they were CL_INVALID_BUILD_OPTIONS);
/// an unknown option is still refused.
#[test]
fn vendor_build_options_are_accepted_with_a_warning() {
    let cl = Cl::new();
    let dev = cl.device();
    let options = "-cl-nv-verbose -cl-nv-maxrregcount=32 -cl-nv-opt-level=3 -cl-nv-arch sm_90 \
                   -fno-bin-llvmir -O3 -cl-mad-enable";
    let p = with_source(&cl, HELPER);
    let status = build(&p, dev, options);
    check_link(&p, dev, status, options);
    let log = build_string(&p, dev, CL_PROGRAM_BUILD_LOG);
    for o in [
        "-cl-nv-verbose",
        "-cl-nv-maxrregcount=32",
        "-cl-nv-opt-level=3",
        "-cl-nv-arch sm_90",
        "-fno-bin-llvmir",
        "-O3",
    ] {
        assert!(
            log.contains(&format!("ignoring the vendor compiler option '{o}'")),
            "{o} not in the log:\n{log}"
        );
    }
    assert!(
        !log.contains("-cl-mad-enable"),
        "a standard option warned about:\n{log}"
    );
    let p = with_source(&cl, HELPER);
    assert_eq!(build(&p, dev, "-cl-bogus-option"), CL_INVALID_BUILD_OPTIONS);
    // No vendor query: CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV (0x4000).
    let mut major: cl_uint = 0;
    // SAFETY: a cl_uint-sized output.
    let status = unsafe {
        clGetDeviceInfo(
            dev,
            0x4000,
            size_of::<cl_uint>(),
            (&mut major as *mut cl_uint).cast(),
            ptr::null_mut(),
        )
    };
    assert_eq!(status, CL_INVALID_VALUE);
    // No vendor extension either, but the one ferrocl implements as its
    // specification says (cl_intel_unified_shared_memory, tests/usm.rs).
    let extensions =
        device_string(dev, CL_DEVICE_EXTENSIONS).replace("cl_intel_unified_shared_memory", "");
    for vendor in ["cl_nv_", "cl_amd_", "cl_intel_"] {
        assert!(
            !extensions.contains(vendor),
            "{vendor}* reported: {extensions}"
        );
    }
}

/// clLinkProgram's -O2 inlines `sel` into the kernel, knows its selector is
/// in 0..8 and narrows the switch to `i3`, which llvm-spirv-15 cannot
/// translate: the link optimizes again with native integer widths, as a
/// source build does.
#[test]
fn link_time_odd_widths() {
    const SEL: &str = "int sel(int c, int v) {\n\
        switch (c) {\n\
        case 0: return v + 3;\n\
        case 1: return v * 5;\n\
        case 2: return v - 7;\n\
        case 3: return v ^ 9;\n\
        case 4: return v << 2;\n\
        case 5: return v >> 1;\n\
        case 6: return -v;\n\
        default: return v;\n\
        }\n\
    }\n";
    const KERNEL: &str = "int sel(int c, int v);\n\
        kernel void k(global int *a) {\n\
            size_t i = get_global_id(0);\n\
            a[i] = sel(a[i] & 7, a[i] >> 3);\n\
        }\n";
    let sel = |c: i32, v: i32| match c {
        0 => v + 3,
        1 => v * 5,
        2 => v - 7,
        3 => v ^ 9,
        4 => v << 2,
        5 => v >> 1,
        6 => -v,
        _ => v,
    };
    let cl = Cl::new();
    let dev = cl.device();
    let (a, b) = (with_source(&cl, SEL), with_source(&cl, KERNEL));
    check(compile(&a, dev, "", &[]), "clCompileProgram(sel)");
    check(compile(&b, dev, "", &[]), "clCompileProgram(k)");
    let (exe, status) = link(&cl.context, "", &[&a, &b]);
    check_link(&exe, dev, status, "clLinkProgram");
    let data: Vec<i32> = (0..128).map(|i| i * 13 - 700).collect();
    let mut status = CL_SUCCESS;
    // SAFETY: valid program, NUL-terminated name.
    let k = ferrocl_tests::Kernel::from_raw(unsafe {
        clCreateKernel(exe.0, c"k".as_ptr(), &mut status)
    });
    check(status, "clCreateKernel");
    let buf = cl.buffer_from(&data);
    k.arg(0, &buf);
    cl.queue.run(&k, &[data.len()], None);
    let want: Vec<i32> = data.iter().map(|&x| sel(x & 7, x >> 3)).collect();
    assert_eq!(cl.queue.read(&buf), want);
}

/// A kernel of 256 straight-line `if` blocks (conditional stores, which
/// LLVM cannot turn into selects) built and run from an application
/// thread with a small stack (128 KiB). The control-flow structurizer
/// recurses about once per region, on the application's thread: this
/// overflowed the stack and killed the process (release build; a debug
/// build overflowed a 2 MiB thread). Builds now run on a thread of their
/// own (`on_compiler_stack`, compiler/src/pipeline.rs).
#[test]
fn deep_control_flow_builds_on_a_small_application_thread() {
    const BLOCKS: usize = 256;
    let mut source = String::from("kernel void deep(global int *a) {\n    int x = a[0];\n");
    for k in 0..BLOCKS {
        source.push_str(&format!(
            "    if (x == {k}) {{ a[{}] = x; x += 3; }}\n",
            k + 1
        ));
    }
    source.push_str("    a[0] = x;\n}\n");
    let run = move || {
        let cl = Cl::new();
        let program = cl.build(&source);
        let k = program.kernel("deep");
        let init = vec![0i32; BLOCKS + 1];
        let buf = cl.buffer_from(&init);
        k.arg(0, &buf);
        cl.queue.run(&k, &[1], None);
        cl.queue.read(&buf)
    };
    let got = std::thread::Builder::new()
        .stack_size(128 << 10)
        .spawn(run)
        .expect("a thread")
        .join()
        .expect("the build and run");
    // x goes 0, 3, 6, ...: block k stores where x == k.
    let mut want = vec![0i32; BLOCKS + 1];
    let mut x = 0i32;
    for k in 0..BLOCKS as i32 {
        if x == k {
            want[k as usize + 1] = x;
            x += 3;
        }
    }
    want[0] = x;
    assert_eq!(got, want);
}

/// Program functions called from divergent branches
/// (`divergent_helper_calls.cl`): each work-item's region picks which
/// helpers run, so neighbouring work-items take different calls. Values
/// against the CPU (the math library's sin/exp/log/cos within 4 ulp of
/// Rust's, so a relative bound); on NVIDIA the helpers are inlined
/// (`DeviceCaps::inline_functions`), elsewhere they may stay calls.
#[test]
fn divergent_helper_calls() {
    const C1: [f64; 8] = [1.0, -0.5, 0.25, -0.125, 0.0625, 0.03125, 0.5, 0.75];
    const C2: [f64; 9] = [0.3, 0.2, -0.1, 0.05, -0.025, 0.0125, 0.9, 0.1, 0.7];
    let poly = |c: &[f64], m: usize, x: f64| {
        let mut f = c[m - 1];
        for i in (0..m - 1).rev() {
            f = f * x + c[i];
        }
        f
    };
    let region_a = |re: f64, im: f64| {
        let re = re * 2.0;
        let d = re * re + im * im;
        if d < 1.0 {
            poly(&C1, 8, re) + im.sin()
        } else if d > 16.0 {
            d.ln() + (re * 3.0 + 1.0)
        } else {
            poly(&C2, 9, im) * (-d).exp()
        }
    };
    let region_b = |re: f64, im: f64| {
        let im = -im;
        if re > 4.0 {
            return poly(&C2, 7, 1.0 / re);
        }
        (0..16)
            .map(|i| poly(&C1, 4, im + f64::from(i)))
            .sum::<f64>()
            + re.cos()
    };
    let n = 4096;
    // Points on a spiral through every region, neighbours in different ones.
    let z: Vec<[f64; 2]> = (0..n)
        .map(|i| {
            let r = 10f64.powf(-3.0 + 5.0 * (i as f64) / (n as f64));
            let t = (i as f64) * 2.399963;
            [r * t.cos(), r * t.sin()]
        })
        .collect();
    let want: Vec<f64> = z
        .iter()
        .map(|&[re, im]| {
            let (mut a, mut b) = (0.0, 0.0);
            if im < 0.0 {
                if re < 0.0 {
                    a = region_a(re, im);
                }
                b = region_b(re, im);
            } else {
                a = region_a(re, im);
            }
            a + b + re
        })
        .collect();
    let cl = Cl::new();
    let source = format!(
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n{}",
        include_str!("divergent_helper_calls.cl")
    );
    let (_p, k) = built_kernel(&cl, &source, c"hankel_like");
    let flat: Vec<f64> = z.iter().flatten().copied().collect();
    let (input, out) = (cl.buffer_from(&flat), cl.buffer::<f64>(n));
    k.arg(0, &input).arg(1, &out);
    cl.queue.run(&k, &[n], Some(&[64]));
    let got = cl.queue.read(&out);
    let wrong: Vec<String> = (0..n)
        .filter(|&i| (got[i] - want[i]).abs() > 1e-12 * want[i].abs().max(1.0))
        .take(8)
        .map(|i| format!("z[{i}] = {:?}: got {}, want {}", z[i], got[i], want[i]))
        .collect();
    assert!(wrong.is_empty(), "first wrong items:\n{}", wrong.join("\n"));
}
