//! Running generated programs on an OpenCL platform and comparing two
//! platforms' outputs.

use std::path::{Path, PathBuf};

use opencl_sys::CL_MEM_READ_ONLY;

use super::gen::{Program, SLOTS};
use crate::info::{devices, platform_name, platforms};
use crate::loader;
use crate::objects::{Context, Queue};

/// Makes the loader see ferrocl and every system ICD (PoCL) in one
/// process, and turns off both implementations' on-disk program caches
/// (thousands of one-off programs would only fill them). Call first.
///
/// Unless `OCL_ICD_VENDORS` is already set, writes a directory holding an
/// `.icd` file for libferrocl.so (found as the tests find it:
/// `FERROCL_LIB` or the newest `target/*/libferrocl.so`) and a copy of
/// each `/etc/OpenCL/vendors/*.icd`, and points the loader at it.
///
/// PoCL runs on its `basic` device (`POCL_DEVICES=basic`, one thread,
/// unless set): the `pthread` device's idle workers keep spinning and
/// starve lavapipe's threads on a small machine (runs took 10 times
/// longer), and one thread per implementation is all a differential run
/// needs. Its `loops` work-group method compiles faster than the default.
pub fn setup_loader() -> Result<(), String> {
    for (var, value) in [
        ("POCL_KERNEL_CACHE", "0"),
        ("POCL_DEVICES", "basic"),
        ("POCL_WORK_GROUP_METHOD", "loops"),
        ("FERROCL_NO_COMPILE_CACHE", "1"),
    ] {
        if std::env::var_os(var).is_none() {
            std::env::set_var(var, value);
        }
    }
    if std::env::var_os("OCL_ICD_VENDORS").is_none() {
        let lib = loader::locate_libferrocl()?;
        let dir = std::env::temp_dir().join(format!("ferrocl-fuzz-icd-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        std::fs::write(dir.join("ferrocl.icd"), lib.as_os_str().as_encoded_bytes())
            .map_err(|e| e.to_string())?;
        if let Ok(entries) = std::fs::read_dir("/etc/OpenCL/vendors") {
            for e in entries.flatten() {
                let path = e.path();
                if path.extension().is_some_and(|x| x == "icd") {
                    let text = std::fs::read(&path).map_err(|e| e.to_string())?;
                    if !String::from_utf8_lossy(&text).contains("libferrocl") {
                        std::fs::write(dir.join(e.file_name()), text).map_err(|e| e.to_string())?;
                    }
                }
            }
        }
        std::env::set_var("OCL_ICD_VENDORS", &dir);
    }
    loader::init();
    Ok(())
}

/// Removes the loader directory [`setup_loader`] wrote, if any.
pub fn cleanup_loader() {
    let dir: PathBuf =
        std::env::temp_dir().join(format!("ferrocl-fuzz-icd-{}", std::process::id()));
    if Path::new(&dir).exists() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// A platform's first device with a context and queue.
/// Whether [`Platform::run`] prints `@phase NAME` before it starts (the
/// fuzzer's worker: its supervisor blames a crash on the platform that was
/// running).
pub static REPORT_PHASES: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

pub struct Platform {
    pub name: String,
    pub context: Context,
    pub queue: Queue,
    /// Seconds the last [`Platform::run`] spent building, and running.
    pub times: std::sync::Mutex<(f64, f64)>,
    /// Build options added to every program's.
    pub extra_options: std::sync::Mutex<String>,
    /// Give programs as SPIR-V (clang-15 and llvm-spirv-15, as an
    /// application would make it) through clCreateProgramWithIL.
    pub il: bool,
}

/// What running a program gave.
#[derive(Debug)]
pub enum Outcome {
    /// Every word of `out`.
    Ran(Vec<u64>),
    /// clBuildProgram failed: the status and log.
    BuildFailed(String),
    /// A later call failed (kernel creation, arguments, enqueue).
    RunFailed(String),
}

/// The marker every word of `out` starts as; kernels overwrite their own.
pub const OUT_FILL: u64 = 0xA5A5_5A5A_DEAD_BEEF;

impl Platform {
    /// The platform whose name contains `filter` (case-insensitive).
    pub fn open(filter: &str) -> Result<Platform, String> {
        let all = platforms();
        let names: Vec<String> = all.iter().map(|&p| platform_name(p)).collect();
        let i = names
            .iter()
            .position(|n| n.to_lowercase().contains(&filter.to_lowercase()))
            .ok_or_else(|| {
                format!(
                    "no OpenCL platform named like {filter:?}; the loader found {names:?} \
                     (OCL_ICD_VENDORS={:?})",
                    std::env::var_os("OCL_ICD_VENDORS").unwrap_or_default()
                )
            })?;
        let device = *devices(all[i])
            .first()
            .ok_or_else(|| format!("platform {:?} has no device", names[i]))?;
        let context = Context::on(device);
        let queue = context.queue();
        Ok(Platform {
            name: names[i].clone(),
            context,
            queue,
            times: Default::default(),
            extra_options: Default::default(),
            il: false,
        })
    }

    /// Only builds `p`: the build log on failure.
    pub fn build(&self, p: &Program) -> Result<(), String> {
        self.try_build(p).map(drop)
    }

    fn try_build(&self, p: &Program) -> Result<crate::objects::Program, String> {
        let built = if self.il {
            let il = spirv(&p.source, &p.options)?;
            // -cl-std belongs to the source; an IL build takes the rest.
            let extra = self.extra_options.lock().unwrap().clone();
            self.context.try_build_spirv(&il, &extra)
        } else {
            self.context.try_build(&p.source, &self.options(p))
        };
        built.map_err(|e| format!("{}\n{}", e.status, e.log))
    }

    /// The build options for `p` on this platform.
    fn options(&self, p: &Program) -> String {
        format!("{} {}", p.options, self.extra_options.lock().unwrap())
    }

    /// Builds `p` and runs each of its kernels once, in order, on one
    /// `out` buffer; returns the buffer.
    pub fn run(&self, p: &Program) -> Outcome {
        if REPORT_PHASES.load(std::sync::atomic::Ordering::Relaxed) {
            // The supervisor reads it: a crash after it is this platform's.
            use std::io::Write as _;
            println!("@phase {}", self.name);
            let _ = std::io::stdout().flush();
        }
        let t = std::time::Instant::now();
        let built = self.try_build(p);
        let build_s = t.elapsed().as_secs_f64();
        *self.times.lock().unwrap() = (build_s, 0.0);
        let program = match built {
            Ok(program) => program,
            Err(log) => return Outcome::BuildFailed(log),
        };
        if p.kernels.is_empty() {
            return Outcome::Ran(Vec::new());
        }
        let input = self.context.buffer_with(CL_MEM_READ_ONLY, &p.input);
        let out = self.context.buffer_from(&vec![OUT_FILL; p.out_len()]);
        let mut kernels = Vec::new();
        for k in &p.kernels {
            let kernel = match program.try_kernel(&k.name) {
                Ok(kernel) => kernel,
                Err(e) => return Outcome::RunFailed(format!("clCreateKernel({}): {e}", k.name)),
            };
            let set = kernel
                .try_arg(0, &input)
                .and_then(|()| kernel.try_arg(1, &out))
                .and_then(|()| kernel.try_arg(2, &k.arg));
            if let Err(e) = set {
                return Outcome::RunFailed(format!("clSetKernelArg({}): {e}", k.name));
            }
            if let Err(e) = self
                .queue
                .try_enqueue(&kernel, None, &[p.global], Some(&[p.local]))
            {
                return Outcome::RunFailed(format!("clEnqueueNDRangeKernel({}): {e}", k.name));
            }
            kernels.push(kernel);
        }
        // A kernel that failed (device lost, the kernel time limit) fails
        // the read that waits for it.
        let words = match self.queue.try_read(&out) {
            Ok(words) => words,
            Err(e) => {
                return Outcome::RunFailed(format!("the kernels failed: clEnqueueReadBuffer: {e}"))
            }
        };
        *self.times.lock().unwrap() = (build_s, t.elapsed().as_secs_f64() - build_s);
        Outcome::Ran(words)
    }
}

/// Checks with clang-15 that `source` has none of the undefined behaviour
/// clang can see (a non-void function running off its end, uninitialised
/// or unsequenced uses, division by a zero constant): a reducer's edits
/// can introduce them. The warnings as the error, or Ok.
pub fn sanity(source: &str, options: &str) -> Result<(), String> {
    let path = std::env::temp_dir().join(format!("ferrocl-fuzz-sanity-{}.cl", std::process::id()));
    std::fs::write(&path, source).map_err(|e| e.to_string())?;
    let std = options
        .split_whitespace()
        .find(|o| o.starts_with("-cl-std="))
        .unwrap_or("-cl-std=CL1.2");
    let out = std::process::Command::new("clang-15")
        .args(["-cc1", "-triple", "spir64", "-finclude-default-header", std])
        .args([
            "-fsyntax-only",
            "-Werror=return-type",
            "-Werror=uninitialized",
        ])
        .args([
            "-Werror=sometimes-uninitialized",
            "-Werror=conditional-uninitialized",
        ])
        .args([
            "-Werror=unsequenced",
            "-Werror=division-by-zero",
            "-Werror=array-bounds",
        ])
        .arg(&path)
        .output();
    let _ = std::fs::remove_file(&path);
    let out = out.map_err(|e| format!("clang-15: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// How a build log starts when the SPIR-V producer failed (`--il`).
pub const IL_FAILED: &str = "IL producer failed";

/// The LLVM version of the SPIR-V producer `spirv` runs: clang-N and
/// llvm-spirv-N, N from `FERROCL_FUZZ_IL_VERSION` (default 15; Debian 12
/// also packages clang-14 and llvm-spirv-14, an older producer whose
/// modules differ: SPIR-V 1.0 headers, other lowerings).
pub fn il_version() -> String {
    std::env::var("FERROCL_FUZZ_IL_VERSION").unwrap_or_else(|_| "15".into())
}

/// `source` as OpenCL SPIR-V, made as an application would: clang for
/// spir64 at -O0 with the `-cl-std` of `options`, then llvm-spirv, both
/// of `il_version` (at -O2, LLVM's narrow integer types such as i3 stop
/// llvm-spirv-15 three times as often).
pub fn spirv(source: &str, options: &str) -> Result<Vec<u8>, String> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "ferrocl-fuzz-il-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("k.cl"), source).map_err(|e| e.to_string())?;
    let std = options
        .split_whitespace()
        .find(|o| o.starts_with("-cl-std="))
        .unwrap_or("-cl-std=CL1.2");
    let run = |tool: &str, args: &[&str]| -> Result<(), String> {
        let out = std::process::Command::new(tool)
            .args(args)
            .current_dir(&dir)
            .output()
            .map_err(|e| format!("{tool}: {e}"))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "{IL_FAILED}: {tool}: {}",
                String::from_utf8_lossy(&out.stderr)
            ))
        }
    };
    let version = il_version();
    let (clang, translator) = (format!("clang-{version}"), format!("llvm-spirv-{version}"));
    let result = run(
        &clang,
        &[
            "-cc1",
            "-triple",
            "spir64",
            "-finclude-default-header",
            std,
            "-O0",
            "-emit-llvm-bc",
            "-o",
            "k.bc",
            "k.cl",
        ],
    )
    .and_then(|()| run(&translator, &["k.bc", "-o", "k.spv"]))
    .and_then(|()| std::fs::read(dir.join("k.spv")).map_err(|e| e.to_string()));
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// A kernel whose outputs differ: its name, how many words differ, and
/// the first one (index within the kernel's words, reference, tested).
#[derive(Debug, Clone)]
pub struct KernelDiff {
    pub kernel: String,
    pub words: usize,
    pub first: (usize, u64, u64),
    /// The first 32 differing words, as `first`.
    pub some: Vec<(usize, u64, u64)>,
}

/// The kernels of `p` whose words differ between `reference` and `tested`.
pub fn compare(p: &Program, reference: &[u64], tested: &[u64]) -> Vec<KernelDiff> {
    let mut diffs = Vec::new();
    let n = p.global * SLOTS;
    for k in &p.kernels {
        let r = &reference[k.base..k.base + n];
        let t = &tested[k.base..k.base + n];
        let bad: Vec<usize> = (0..n).filter(|&i| r[i] != t[i]).collect();
        if let Some(&i) = bad.first() {
            diffs.push(KernelDiff {
                kernel: k.name.clone(),
                words: bad.len(),
                first: (i, r[i], t[i]),
                some: bad.iter().take(32).map(|&i| (i, r[i], t[i])).collect(),
            });
        }
    }
    diffs
}

/// The first line of a build log that says what went wrong, shortened: a
/// signature to group build failures by.
pub fn failure_signature(log: &str) -> String {
    let line = log
        .lines()
        .find(|l| {
            let l = l.to_lowercase();
            l.contains("error") || l.contains("invalid") || l.contains("failed")
        })
        .or_else(|| log.lines().find(|l| !l.trim().is_empty()))
        .unwrap_or("(empty log)");
    // Drop numbers and names that differ from program to program.
    let mut sig = String::new();
    let mut last_digit = false;
    for c in line.trim().chars().take(160) {
        if c.is_ascii_digit() {
            if !last_digit {
                sig.push('N');
            }
            last_digit = true;
        } else {
            sig.push(c);
            last_digit = false;
        }
    }
    sig
}
