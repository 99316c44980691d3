//! Differential compiler fuzzing: random, fully defined OpenCL C programs
//! ([`gen`]) run on ferrocl and on a reference implementation (PoCL)
//! through one ICD loader ([`exec`]); every output word must agree.
//! [`reduce`] shrinks a failing program. The driver is
//! `src/bin/ferrocl-fuzz.rs`; tests/README.md says how to run it.

pub mod exec;
pub mod gen;
pub mod reduce;
pub mod rng;
pub mod types;

use exec::{compare, failure_signature, KernelDiff, Outcome, Platform};
use gen::Program;

/// How a program fared on the implementation under test against the
/// reference.
#[derive(Debug, Default)]
pub struct Judgement {
    /// Kernels whose words differ.
    pub mismatches: Vec<KernelDiff>,
    /// Build failures of the implementation under test where the reference
    /// built: the kernel found to cause it (dropped, and the rest built
    /// again), or None when it could not be isolated (the rest of the
    /// program is then not compared), with the build log.
    pub build_failures: Vec<(Option<String>, String)>,
    /// A call after the build failed on the implementation under test.
    pub run_failure: Option<String>,
    /// The reference failed to build or run the program: a generator bug
    /// (or a reference bug), not counted against the implementation.
    pub ref_failure: Option<String>,
    /// Kernels compared in the end.
    pub compared: usize,
    /// With `--il`: kernels (or, None, the program) the SPIR-V producer
    /// (clang-15 and llvm-spirv-15) could not translate, so ferrocl never
    /// saw them; not counted against ferrocl.
    pub unavailable: Vec<(Option<String>, String)>,
    /// Mismatching kernels whose reference result changes when the
    /// reference builds without `-cl-opt-disable`: a hint that the
    /// reference, not the tested platform, is wrong there.
    pub reference_disagrees: Vec<String>,
}

impl Judgement {
    pub fn clean(&self) -> bool {
        self.mismatches.is_empty()
            && self.build_failures.is_empty()
            && self.run_failure.is_none()
            && self.ref_failure.is_none()
    }

    /// What this shows, for file names: `mismatch`, `build`, `run`, `ref`
    /// joined by `-`, or `same`.
    pub fn kinds(&self) -> String {
        let mut k = Vec::new();
        if !self.mismatches.is_empty() {
            k.push("mismatch");
        }
        if !self.build_failures.is_empty() {
            k.push("build");
        }
        if self.run_failure.is_some() {
            k.push("run");
        }
        if self.ref_failure.is_some() {
            k.push("ref");
        }
        if k.is_empty() {
            "same".into()
        } else {
            k.join("-")
        }
    }

    /// One signature per failure, to group them: `mismatch`,
    /// `build: <first error line>`, `run: ...`, `ref: ...`.
    pub fn signatures(&self) -> Vec<String> {
        let mut s: Vec<String> = self
            .mismatches
            .iter()
            .map(|d| {
                if self.reference_disagrees.contains(&d.kernel) {
                    "mismatch (reference unstable)".into()
                } else {
                    "mismatch".into()
                }
            })
            .collect();
        for (_, log) in &self.build_failures {
            s.push(format!("build: {}", failure_signature(log)));
        }
        if let Some(e) = &self.run_failure {
            s.push(format!("run: {}", failure_signature(e)));
        }
        if let Some(e) = &self.ref_failure {
            s.push(format!("ref: {}", failure_signature(e)));
        }
        for (_, e) in &self.unavailable {
            s.push(format!("il: {}", failure_signature(e)));
        }
        s
    }

    /// A report for humans.
    pub fn report(&self) -> String {
        let mut s = String::new();
        if self.clean() {
            s.push_str("all words agree\n");
        }
        for d in &self.mismatches {
            let (i, r, t) = d.first;
            s.push_str(&format!(
                "kernel {}: {} words differ; first: word {i} (work-item {}, slot {}): \
                 reference {r:#018x}, tested {t:#018x}{}\n",
                d.kernel,
                d.words,
                i / gen::SLOTS,
                i % gen::SLOTS,
                if self.reference_disagrees.contains(&d.kernel) {
                    " (the reference gives other words when it optimizes: suspect it)"
                } else {
                    ""
                }
            ));
        }
        for (k, log) in &self.build_failures {
            match k {
                Some(k) => s.push_str(&format!(
                    "build failed on the tested platform because of kernel {k} (dropped, the \
                     rest compared):\n{log}\n"
                )),
                None => s.push_str(&format!(
                    "build failed on the tested platform (not isolated to a kernel):\n{log}\n"
                )),
            }
        }
        if let Some(e) = &self.run_failure {
            s.push_str(&format!("run failed on the tested platform: {e}\n"));
        }
        if let Some(e) = &self.ref_failure {
            s.push_str(&format!("the reference failed: {e}\n"));
        }
        for (k, e) in &self.unavailable {
            s.push_str(&format!(
                "not given to the tested platform ({}): {e}\n",
                k.as_deref().unwrap_or("the program")
            ));
        }
        s
    }
}

/// The kernel a ferrocl build log blames (`kernel 'k3': ...`), if it is
/// one of `p`'s.
fn blamed_kernel(p: &Program, log: &str) -> Option<String> {
    let rest = &log[log.find("kernel '")? + "kernel '".len()..];
    let name = &rest[..rest.find('\'')?];
    p.kernels
        .iter()
        .any(|k| k.name == name)
        .then(|| name.to_owned())
}

/// Most builds `judge` spends isolating build failures in one program.
const MAX_REBUILDS: usize = 8;

/// Runs `p` on both platforms and compares. `parallel`: on two threads
/// at once (both implementations use the process's one libLLVM-15,
/// lavapipe to compile shaders and PoCL to compile kernels; off by
/// default).
///
/// When the implementation under test fails to build the program, the
/// kernel to blame is found (named in the log, else by halving the kernel
/// set) and dropped, and the rest is built again and compared, so one
/// failing kernel does not hide the others.
pub fn judge(reference: &Platform, tested: &Platform, p: &Program, parallel: bool) -> Judgement {
    let mut j = Judgement::default();
    let (r, t) = if parallel {
        std::thread::scope(|s| {
            let r = s.spawn(|| reference.run(p));
            let t = tested.run(p);
            (r.join().expect("reference run panicked"), t)
        })
    } else {
        (reference.run(p), tested.run(p))
    };
    let r = match r {
        Outcome::Ran(r) => r,
        Outcome::BuildFailed(e) | Outcome::RunFailed(e) => {
            j.ref_failure = Some(e);
            return j;
        }
    };
    let mut current = p.clone();
    let mut t = t;
    if tested.il && matches!(&t, Outcome::BuildFailed(log) if log.starts_with(exec::IL_FAILED)) {
        // Leave out the kernels the producer cannot translate on their own.
        for k in &p.kernels {
            let alone = p.with_kernels_named(&[k.name.as_str()]);
            if let Err(e) = exec::spirv(&alone.source, &alone.options) {
                current = current.without_kernel(&k.name);
                j.unavailable.push((Some(k.name.clone()), e));
            }
        }
        t = tested.run(&current);
    }
    let mut builds = 0;
    loop {
        match t {
            Outcome::Ran(words) => {
                j.mismatches = compare(&current, &r, &words);
                j.compared = current.kernels.len();
                if !j.mismatches.is_empty() {
                    j.reference_disagrees = reference_self_check(reference, &current, &r, &j);
                }
                return j;
            }
            Outcome::RunFailed(e) => {
                j.run_failure = Some(e);
                return j;
            }
            Outcome::BuildFailed(log) if log.starts_with(exec::IL_FAILED) => {
                j.unavailable.push((None, log));
                return j;
            }
            Outcome::BuildFailed(log) => {
                let blamed = blamed_kernel(&current, &log)
                    .or_else(|| isolate(tested, &current, &mut builds));
                match blamed {
                    Some(k) if builds < MAX_REBUILDS && current.kernels.len() > 1 => {
                        current = current.without_kernel(&k);
                        j.build_failures.push((Some(k), log));
                        builds += 1;
                        t = tested.run(&current);
                    }
                    _ => {
                        j.build_failures.push((None, log));
                        return j;
                    }
                }
            }
        }
    }
}

/// The mismatching kernels of `j` whose reference words change when the
/// reference builds `p` with its default optimisation instead of
/// `-cl-opt-disable` (its own options are put back after).
fn reference_self_check(
    reference: &Platform,
    p: &Program,
    words: &[u64],
    j: &Judgement,
) -> Vec<String> {
    let options = reference.extra_options.lock().unwrap().clone();
    if !options.contains("-cl-opt-disable") {
        return Vec::new();
    }
    *reference.extra_options.lock().unwrap() = options.replace("-cl-opt-disable", "");
    let again = reference.run(p);
    *reference.extra_options.lock().unwrap() = options;
    let Outcome::Ran(again) = again else {
        return Vec::new();
    };
    let n = p.global * gen::SLOTS;
    j.mismatches
        .iter()
        .filter(|d| {
            let k = p.kernels.iter().find(|k| k.name == d.kernel).unwrap();
            words[k.base..k.base + n] != again[k.base..k.base + n]
        })
        .map(|d| d.kernel.clone())
        .collect()
}

/// A kernel of `p` that fails to build on its own (halving the set of
/// kernels while the build still fails), or None.
fn isolate(tested: &Platform, p: &Program, builds: &mut usize) -> Option<String> {
    let mut set = p.clone();
    while set.kernels.len() > 1 && *builds < MAX_REBUILDS {
        let half = set.kernels.len() / 2;
        let first = set.with_kernels(0..half);
        *builds += 1;
        if tested.build(&first).is_err() {
            set = first;
            continue;
        }
        let second = set.with_kernels(half..set.kernels.len());
        *builds += 1;
        if tested.build(&second).is_err() {
            set = second;
        } else {
            // Only fails together.
            return None;
        }
    }
    (set.kernels.len() == 1).then(|| set.kernels[0].name.clone())
}
