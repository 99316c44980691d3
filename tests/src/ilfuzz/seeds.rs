//! The valid inputs mutants start from: SPIR-V made from the execution
//! corpus (`tests/corpus/*.cl`, by clang-15 and llvm-spirv-15 through
//! [`crate::spirv_tools_result`]) and program binaries ferrocl returns
//! for some of them (CL_PROGRAM_BINARIES of built executables and of
//! compiled objects).

use std::path::{Path, PathBuf};
use std::ptr;

use opencl_sys::*;

use super::run::Target;
use crate::error::error_name;

/// One seed.
#[derive(Clone, Debug)]
pub struct Seed {
    /// `<corpus name>.spv`, `<corpus name>.exe.bin`, `<corpus name>.obj.bin`.
    pub name: String,
    pub bytes: Vec<u8>,
    /// A program binary (clCreateProgramWithBinary), else SPIR-V.
    pub binary: bool,
}

/// The corpus sources, sorted by name.
pub fn corpus_files() -> Vec<PathBuf> {
    let dir = crate::loader::workspace_root().join("tests/corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|x| x == "cl"));
    files.sort();
    files
}

/// SPIR-V of the corpus files named `names` (all when empty), in that
/// order; files the tools cannot translate are skipped and reported.
pub fn spirv_seeds(names: &[String]) -> Vec<Seed> {
    let files = corpus_files();
    let chosen: Vec<&PathBuf> = if names.is_empty() {
        files.iter().collect()
    } else {
        names
            .iter()
            .filter_map(|n| {
                files
                    .iter()
                    .find(|f| f.file_stem().is_some_and(|s| s == &**n))
            })
            .collect()
    };
    let mut seeds = Vec::new();
    for f in chosen {
        let stem = f
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let Ok(source) = std::fs::read_to_string(f) else {
            continue;
        };
        match crate::spirv_tools_result(&source, &[], &[]) {
            Ok(il) => seeds.push(Seed {
                name: format!("{stem}.spv"),
                bytes: il,
                binary: false,
            }),
            Err(e) => eprintln!("seed {stem}: skipped ({})", e.lines().next().unwrap_or("")),
        }
    }
    seeds
}

/// Program binaries of the first `executables` SPIR-V seeds (built) and
/// of the first `objects` (compiled), from ferrocl on `t`.
pub fn binary_seeds(t: &Target, il: &[Seed], executables: usize, objects: usize) -> Vec<Seed> {
    let mut out = Vec::new();
    for (i, s) in il.iter().enumerate().take(executables.max(objects)) {
        let stem = s.name.trim_end_matches(".spv");
        if i < executables {
            match binary_of(t, &s.bytes, false) {
                Ok(b) => out.push(Seed {
                    name: format!("{stem}.exe.bin"),
                    bytes: b,
                    binary: true,
                }),
                Err(e) => eprintln!("seed {stem}.exe.bin: skipped ({e})"),
            }
        }
        if i < objects {
            match binary_of(t, &s.bytes, true) {
                Ok(b) => out.push(Seed {
                    name: format!("{stem}.obj.bin"),
                    bytes: b,
                    binary: true,
                }),
                Err(e) => eprintln!("seed {stem}.obj.bin: skipped ({e})"),
            }
        }
    }
    out
}

/// Builds (or, `object`, compiles) `il` and returns CL_PROGRAM_BINARIES.
pub fn binary_of(t: &Target, il: &[u8], object: bool) -> Result<Vec<u8>, String> {
    let fail = |call: &str, s: cl_int| format!("{call}: {}", error_name(s));
    let mut status = CL_SUCCESS;
    // SAFETY: `il.len()` readable bytes.
    let p = unsafe { clCreateProgramWithIL(t.context, il.as_ptr().cast(), il.len(), &mut status) };
    if status != CL_SUCCESS {
        return Err(fail("clCreateProgramWithIL", status));
    }
    // SAFETY: a live program, one device, no options, headers or callback.
    let s = unsafe {
        if object {
            clCompileProgram(
                p,
                1,
                &t.device,
                c"".as_ptr(),
                0,
                ptr::null(),
                ptr::null(),
                None,
                ptr::null_mut(),
            )
        } else {
            clBuildProgram(p, 1, &t.device, c"".as_ptr(), None, ptr::null_mut())
        }
    };
    let result = if s != CL_SUCCESS {
        Err(fail("build", s))
    } else {
        let mut size = 0usize;
        // SAFETY: one size_t into a live local.
        let s = unsafe {
            clGetProgramInfo(
                p,
                CL_PROGRAM_BINARY_SIZES,
                size_of::<usize>(),
                (&mut size as *mut usize).cast(),
                ptr::null_mut(),
            )
        };
        let mut bytes = vec![0u8; size];
        let mut at = bytes.as_mut_ptr();
        // SAFETY: one pointer to `size` writable bytes.
        let s2 = unsafe {
            clGetProgramInfo(
                p,
                CL_PROGRAM_BINARIES,
                size_of::<*mut u8>(),
                (&mut at as *mut *mut u8).cast(),
                ptr::null_mut(),
            )
        };
        if s != CL_SUCCESS || s2 != CL_SUCCESS || size == 0 {
            Err(fail("clGetProgramInfo", s.min(s2)))
        } else {
            Ok(bytes)
        }
    };
    // SAFETY: the one reference held here.
    unsafe { clReleaseProgram(p) };
    result
}

/// Writes `seeds` under `dir` (for the record and for `--replay`).
pub fn save_seeds(dir: &Path, seeds: &[Seed]) {
    let _ = std::fs::create_dir_all(dir);
    for s in seeds {
        let _ = std::fs::write(dir.join(&s.name), &s.bytes);
    }
}

/// Reads the seeds `save_seeds` wrote, in the given order of names.
pub fn load_seeds(dir: &Path, names: &[String]) -> Result<Vec<Seed>, String> {
    names
        .iter()
        .map(|n| {
            let bytes = std::fs::read(dir.join(n)).map_err(|e| format!("{n}: {e}"))?;
            Ok(Seed {
                name: n.clone(),
                bytes,
                binary: n.ends_with(".bin"),
            })
        })
        .collect()
}
