//! Makes the system ICD loader (ocl-icd's libOpenCL.so.1) see ferrocl.
//!
//! The loader reads `OCL_ICD_VENDORS` once, on the first OpenCL call of the
//! process. If it is unset, [`init`] writes an `.icd` file naming
//! libferrocl.so into a temporary directory and points `OCL_ICD_VENDORS` at
//! that directory. If it is set (to a directory of `.icd` files or one `.icd`
//! file, e.g. `/etc/OpenCL/vendors/pocl.icd`), it is left alone.

use std::collections::hash_map::DefaultHasher;
use std::env;
use std::fs;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::SystemTime;

use opencl_sys::{clGetPlatformIDs, cl_uint};

const LIB_NAME: &str = "libferrocl.so";

/// The outcome of the one-time set-up, kept so that every test that follows
/// a failure reports its cause.
static INIT: OnceLock<Result<(), String>> = OnceLock::new();

/// Registers libferrocl.so with the loader for this process, unless
/// `OCL_ICD_VENDORS` is already set, and makes the loader initialise. Call
/// before the first OpenCL call; every helper of this crate that talks to
/// OpenCL calls it first. Panics with instructions if libferrocl.so cannot
/// be found.
pub fn init() {
    if let Err(e) = INIT.get_or_init(register) {
        panic!("{e}");
    }
}

fn register() -> Result<(), String> {
    if env::var_os("OCL_ICD_VENDORS").is_none() {
        let lib = locate_libferrocl()?;
        let dir = write_icd_dir(&lib)?;
        // The loader has not run yet (this is the first OpenCL-related call
        // of the process, behind a OnceLock), so it will read the new value.
        env::set_var("OCL_ICD_VENDORS", &dir);
    }
    // Let the loader load its ICDs now, on one thread: tests run in parallel
    // threads, and concurrent first calls into the loader and the ICDs it
    // loads are not safe everywhere.
    let mut count: cl_uint = 0;
    // SAFETY: asks only for the count, written to a live local. The status
    // does not matter here (a missing platform is reported later, by name).
    unsafe { clGetPlatformIDs(0, std::ptr::null_mut(), &mut count) };
    Ok(())
}

/// The root of the Cargo workspace this crate belongs to.
pub fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

/// Finds libferrocl.so: `$FERROCL_LIB` if set, else the newest of
/// `<target>/{release,debug}/libferrocl.so` over the candidate target
/// directories (`$CARGO_TARGET_DIR` now and at build time, the one this test
/// binary was built into, `<workspace>/target`). The error says what to do.
pub fn locate_libferrocl() -> Result<PathBuf, String> {
    if let Some(lib) = env::var_os("FERROCL_LIB") {
        let lib = PathBuf::from(lib);
        return fs::canonicalize(&lib).map_err(|e| format!("FERROCL_LIB={}: {e}", lib.display()));
    }
    let candidates: Vec<PathBuf> = target_dirs()
        .iter()
        .flat_map(|dir| ["release", "debug"].map(|profile| dir.join(profile).join(LIB_NAME)))
        .collect();
    let newest = candidates
        .iter()
        .filter_map(|path| Some((modified(path)?, path)))
        .max_by_key(|(time, _)| *time)
        .map(|(_, path)| path);
    match newest {
        Some(path) => fs::canonicalize(path).map_err(|e| format!("{}: {e}", path.display())),
        None => Err(format!(
            "{LIB_NAME} not found (looked at {}). Build it with `cargo build` (or \
             `cargo build --release`) in {}, or set FERROCL_LIB to its path, or set \
             OCL_ICD_VENDORS to test another OpenCL implementation",
            candidates
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            workspace_root().display()
        )),
    }
}

/// Target directories that may hold libferrocl.so.
fn target_dirs() -> Vec<PathBuf> {
    let root = workspace_root();
    let mut dirs = Vec::new();
    if let Some(dir) = env::var_os("CARGO_TARGET_DIR") {
        dirs.push(root.join(dir));
    }
    if let Some(dir) = option_env!("CARGO_TARGET_DIR") {
        dirs.push(root.join(dir));
    }
    // This test binary is <target>/<profile>/deps/<name>-<hash>.
    if let Ok(exe) = env::current_exe() {
        if let Some(dir) = exe.ancestors().nth(3) {
            dirs.push(dir.to_path_buf());
        }
    }
    dirs.push(root.join("target"));
    dirs.dedup();
    dirs
}

fn modified(path: &Path) -> Option<SystemTime> {
    fs::metadata(path).ok()?.modified().ok()
}

/// Writes `<tmp>/ferrocl-icd-<hash of lib>/ferrocl.icd` holding the absolute
/// path of `lib` and returns the directory. The name depends only on the
/// library's path, so concurrent test processes agree on it; the file is
/// written under a unique name and renamed into place, so no process ever
/// reads a partial file.
fn write_icd_dir(lib: &Path) -> Result<PathBuf, String> {
    let mut hasher = DefaultHasher::new();
    lib.hash(&mut hasher);
    let dir = env::temp_dir().join(format!("ferrocl-icd-{:016x}", hasher.finish()));
    let partial = dir.join(format!(".ferrocl.icd.{}", std::process::id()));
    let icd = dir.join("ferrocl.icd");
    fs::create_dir_all(&dir)
        // No trailing newline: the loader takes the whole file as the path.
        .and_then(|()| fs::write(&partial, lib.as_os_str().as_encoded_bytes()))
        .and_then(|()| fs::rename(&partial, &icd))
        .map_err(|e| format!("writing {}: {e}", icd.display()))?;
    Ok(dir)
}
