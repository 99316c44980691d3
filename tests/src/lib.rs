//! ferrocl's integration-test harness: a small safe layer over the raw
//! OpenCL API (opencl-sys), driving libferrocl.so through the system ICD
//! loader exactly as an application would.
//!
//! - [`loader`]: makes the loader see libferrocl.so (`OCL_ICD_VENDORS`,
//!   `FERROCL_LIB`).
//! - [`info`]: the platform under test (`FERROCL_TEST_PLATFORM`, default
//!   "ferrocl"), its first device, and the clGet*Info protocol.
//! - [`objects`]: contexts, queues, programs, kernels and buffers that
//!   release themselves; [`Cl`] bundles a context and a queue.
//! - [`images`]: images and samplers, format lists, image reads/writes.
//! - [`compare`]: element-wise checks against a CPU reference.
//! - [`apifuzz`]: random calls of every entry point (`ferrocl-apifuzz`).
//! - [`ilfuzz`]: malformed SPIR-V and program binaries (`ferrocl-ilfuzz`).
//! - [`soak`]: create/use/release cycles of every object kind (`ferrocl-soak`).
//! - [`mathref`]: long double references for double-precision math, and
//!   errors in ulps.
//!
//! To check the tests themselves against another implementation:
//! `OCL_ICD_VENDORS=/etc/OpenCL/vendors/pocl.icd FERROCL_TEST_PLATFORM=Portable cargo test -p ferrocl-tests`.

pub mod apifuzz;
pub mod compare;
pub mod error;
pub mod events;
pub mod fuzz;
pub mod ilfuzz;
pub mod images;
pub mod info;
pub mod loader;
pub mod mathref;
pub mod objects;
pub mod pod;
pub mod soak;
pub mod worker;

pub use compare::{assert_close, assert_same, half_to_f64};
pub use error::{check, cl_result, error_name, expect_error, ClError};
pub use images::{Image, Sampler};
pub use info::{
    device, device_string, device_value, platform, platform_string, platforms, testing_pocl,
};
pub use loader::init;
pub use objects::{Buffer, BuildError, Cl, Context, Kernel, KernelArg, Local, Program, Queue};
pub use pod::Pod;

/// The raw OpenCL API, for tests that call it directly.
pub use opencl_sys as sys;

/// OpenCL C `source` compiled to OpenCL SPIR-V (spir64) by clang-15 and
/// llvm-spirv-15, as an application would make the IL it gives
/// clCreateProgramWithIL. Panics when a tool fails.
pub fn spirv_of(source: &str) -> Vec<u8> {
    spirv_of_version(source, None)
}

/// [`spirv_of`] for SPIR-V `max_version` at most (`--spirv-max-version`,
/// e.g. "1.0"), or llvm-spirv's default.
pub fn spirv_of_version(source: &str, max_version: Option<&str>) -> Vec<u8> {
    spirv_of_with(source, max_version, &[])
}

/// [`spirv_of_version`] with extra clang arguments (`-cl-std=CL3.0`,
/// `-D...`).
pub fn spirv_of_with(source: &str, max_version: Option<&str>, clang_args: &[&str]) -> Vec<u8> {
    let max = max_version.map(|v| format!("--spirv-max-version={v}"));
    let translator: Vec<&str> = max.iter().map(String::as_str).collect();
    spirv_of_tools(source, clang_args, &translator)
}

/// [`spirv_of`] with extra clang arguments and extra llvm-spirv-15
/// arguments (`--spirv-ext=+SPV_...`, `--spirv-max-version=...`).
pub fn spirv_of_tools(source: &str, clang_args: &[&str], translator_args: &[&str]) -> Vec<u8> {
    spirv_tools_result(source, clang_args, translator_args).unwrap_or_else(|e| panic!("{e}"))
}

/// SPIR-V assembly `text` assembled by spirv-as for `target_env`
/// (`spv1.0`, `spv1.2`, ...).
pub fn spirv_as(text: &str, target_env: &str) -> Vec<u8> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "ferrocl-as-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).expect("temporary folder");
    std::fs::write(dir.join("k.spvasm"), text).expect("k.spvasm");
    let out = std::process::Command::new("spirv-as")
        .args(["--target-env", target_env, "k.spvasm", "-o", "k.spv"])
        .current_dir(&dir)
        .output()
        .expect("spirv-as");
    assert!(
        out.status.success(),
        "spirv-as: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let il = std::fs::read(dir.join("k.spv")).expect("k.spv");
    std::fs::remove_dir_all(&dir).ok();
    il
}

/// [`spirv_of_tools`], returning the failing tool's message instead of
/// panicking.
pub fn spirv_tools_result(
    source: &str,
    clang_args: &[&str],
    translator_args: &[&str],
) -> Result<Vec<u8>, String> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "ferrocl-il-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let result = (|| {
        std::fs::write(dir.join("k.cl"), source).map_err(|e| e.to_string())?;
        let run = |tool: &str, args: &[&str]| {
            let out = std::process::Command::new(tool)
                .args(args)
                .current_dir(&dir)
                .output()
                .map_err(|e| format!("{tool}: {e}"))?;
            if out.status.success() {
                Ok(())
            } else {
                Err(format!(
                    "{tool} failed: {}",
                    String::from_utf8_lossy(&out.stderr)
                ))
            }
        };
        let mut clang = vec![
            "-cc1",
            "-triple",
            "spir64",
            "-no-opaque-pointers",
            "-finclude-default-header",
            "-O2",
            "-emit-llvm-bc",
            "-o",
            "k.bc",
            "k.cl",
        ];
        clang.extend_from_slice(clang_args);
        run("clang-15", &clang)?;
        let mut args: Vec<&str> = translator_args.to_vec();
        args.extend(["k.bc", "-o", "k.spv"]);
        run("llvm-spirv-15", &args)?;
        std::fs::read(dir.join("k.spv")).map_err(|e| e.to_string())
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}
