//! ferrocl-fuzz: differential compiler fuzzing of ferrocl against a
//! reference OpenCL implementation (PoCL).
//!
//! Random but fully defined OpenCL C programs (integer scalars and
//! vectors, swizzles, conversions, structs, private and `__local` arrays
//! with barriers, helper functions, loops, switch, goto, the integer
//! built-ins; `ferrocl_tests::fuzz::gen` says how undefined behaviour is
//! kept out) are built and run on both platforms in one process; every
//! word of the output must agree. A build failure on ferrocl where the
//! reference builds counts as a failure too. See tests/README.md.
//!
//! ```text
//! ferrocl-fuzz [--seed S] [--count N] [--kernels-per-program K] [--out DIR]
//!              [--ref NAME] [--impl NAME] [generator flags] [--timeout SECS]
//! ferrocl-fuzz --smoke                 the CI check: --seed 1 --count 20, 4 kernels
//! ferrocl-fuzz --print [--seed S] [--index I]   print one program
//! ferrocl-fuzz --check FILE [--verbose] run a saved program on both, report
//! ferrocl-fuzz --interesting FILE --expect KIND
//! ferrocl-fuzz --reduce FILE [--expect KIND] [--reduced FILE]
//!                                      (a candidate is cut after 5 times the first
//!                                      check, at least 30 s, unless --timeout)
//! ```
//!
//! Generator flags: `--byval-mutation` (helpers modify by-value struct
//! parameters), `--irreducible` (goto into loop bodies), `--no-goto`,
//! `--max-stmts N`. `--il`: ferrocl gets each program as SPIR-V made by
//! clang-15 and llvm-spirv-15 (clCreateProgramWithIL) instead of source;
//! `FERROCL_FUZZ_IL_VERSION=14` makes it with clang-14 and llvm-spirv-14
//! (Debian packages, an older producer).
//! The loader must see both platforms: unless
//! `OCL_ICD_VENDORS` is set, a directory with ferrocl's `.icd` and
//! `/etc/OpenCL/vendors/*.icd` is made for the run. Exit status: 0 when
//! every program agrees, 1 when any mismatch, build failure or crash was
//! found, 2 on a usage error.
//!
//! Each program runs in a worker process: a crash or hang (`--timeout`,
//! default 300 s per program) is recorded and the run goes on with the
//! next program. Failing programs are saved to DIR (default
//! `fuzz-failures`) as `s<seed>-p<index>-<kind>.cl` (runnable again with
//! `--check`) with a `.txt` report.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use ferrocl_tests::fuzz::exec::{cleanup_loader, sanity, setup_loader, Outcome, Platform};
use ferrocl_tests::fuzz::gen::{generate, Config, Program, KNOWN_BUGS, SLOTS};
use ferrocl_tests::fuzz::{judge, reduce, Judgement};

struct Args {
    seed: u64,
    count: u64,
    from: u64,
    out: PathBuf,
    reference: String,
    tested: String,
    ref_options: String,
    impl_options: String,
    cfg: Config,
    timeout: u64,
    /// `--timeout` was given: a reduction keeps it for every candidate.
    timeout_given: bool,
    hang_after: u64,
    parallel: bool,
    il: bool,
    worker: bool,
    quiet: bool,
    verbose: bool,
    mode: Mode,
    expect: Option<String>,
    reduced: Option<PathBuf>,
}

enum Mode {
    Fuzz,
    Print(u64),
    Check(PathBuf),
    Interesting(PathBuf),
    Reduce(PathBuf),
}

fn usage() -> ! {
    eprintln!(
        "usage: ferrocl-fuzz [--seed S] [--count N] [--kernels-per-program K] [--out DIR] \
         [--ref NAME] [--impl NAME] [--byval-mutation] [--irreducible] [--no-goto] \
         [--max-stmts N] [--timeout SECS] [--parallel] [--il] [--quiet] [--smoke]\n\
         \x20      ferrocl-fuzz --print [--seed S] [--index I]\n\
         \x20      ferrocl-fuzz --check FILE | --interesting FILE --expect KIND | \
         --reduce FILE [--expect KIND] [--reduced FILE]\n\
         KIND: mismatch:KERNEL, build[:TEXT] (TEXT in the build log), run, hang \
         (the tested platform runs longer than --hang-after SECS, default 30), crash \
         (the tested platform kills the process: SIGSEGV, SIGBUS, SIGILL, SIGFPE)"
    );
    std::process::exit(2)
}

fn parse() -> Args {
    let mut a = Args {
        seed: 1,
        count: 100,
        from: 0,
        out: PathBuf::from("fuzz-failures"),
        reference: "Portable".into(),
        tested: "ferrocl".into(),
        ref_options: "-cl-opt-disable".into(),
        impl_options: String::new(),
        cfg: Config::default(),
        timeout: 300,
        timeout_given: false,
        hang_after: 30,
        parallel: false,
        il: false,
        worker: false,
        quiet: false,
        verbose: false,
        mode: Mode::Fuzz,
        expect: None,
        reduced: None,
    };
    let mut it = std::env::args().skip(1);
    let mut index = None;
    let mut print = false;
    while let Some(arg) = it.next() {
        let mut val = || it.next().unwrap_or_else(|| usage());
        let num = |s: String| -> u64 { s.parse().unwrap_or_else(|_| usage()) };
        match arg.as_str() {
            "--seed" => a.seed = num(val()),
            "--count" => a.count = num(val()),
            "--from" => a.from = num(val()),
            "--kernels-per-program" => a.cfg.kernels = num(val()) as usize,
            "--out" => a.out = PathBuf::from(val()),
            "--ref" => a.reference = val(),
            "--impl" => a.tested = val(),
            "--ref-options" => a.ref_options = val(),
            "--impl-options" => a.impl_options = val(),
            "--byval-mutation" => a.cfg.byval_mutation = true,
            "--irreducible" => a.cfg.irreducible = true,
            "--no-goto" => a.cfg.goto = false,
            "--max-stmts" => a.cfg.max_stmts = num(val()) as usize,
            "--allow" => {
                let name = val();
                if !a.cfg.avoid.remove(name.as_str()) {
                    eprintln!("ferrocl-fuzz: --allow {name}: not a known bug");
                    usage()
                }
            }
            "--allow-all" => a.cfg.avoid.clear(),
            "--known-bugs" => {
                for (name, what) in KNOWN_BUGS {
                    println!("{name}: {what}");
                }
                std::process::exit(0)
            }
            "--timeout" => {
                a.timeout = num(val());
                a.timeout_given = true;
            }
            "--hang-after" => a.hang_after = num(val()),
            "--parallel" => a.parallel = true,
            "--il" => a.il = true,
            "--quiet" => a.quiet = true,
            "--verbose" => a.verbose = true,
            "--worker" => a.worker = true,
            "--smoke" => {
                a.seed = 1;
                a.count = 20;
                a.cfg.kernels = 4;
            }
            "--print" => print = true,
            "--index" => index = Some(num(val())),
            "--check" => a.mode = Mode::Check(PathBuf::from(val())),
            "--interesting" => a.mode = Mode::Interesting(PathBuf::from(val())),
            "--reduce" => a.mode = Mode::Reduce(PathBuf::from(val())),
            "--expect" => a.expect = Some(val()),
            "--reduced" => a.reduced = Some(PathBuf::from(val())),
            "-h" | "--help" => usage(),
            _ => {
                eprintln!("ferrocl-fuzz: unknown argument {arg:?}");
                usage()
            }
        }
    }
    if a.cfg.kernels == 0 || a.cfg.max_stmts == 0 {
        usage();
    }
    if print {
        a.mode = Mode::Print(index.unwrap_or(0));
    }
    a
}

/// The generator flags, passed on to workers.
fn cfg_args(a: &Args) -> Vec<String> {
    let mut v = vec![
        "--kernels-per-program".to_string(),
        a.cfg.kernels.to_string(),
        "--max-stmts".into(),
        a.cfg.max_stmts.to_string(),
        "--ref".into(),
        a.reference.clone(),
        "--impl".into(),
        a.tested.clone(),
        "--ref-options".into(),
        a.ref_options.clone(),
        "--impl-options".into(),
        a.impl_options.clone(),
        "--out".into(),
        a.out.display().to_string(),
    ];
    if a.cfg.byval_mutation {
        v.push("--byval-mutation".into());
    }
    if a.cfg.irreducible {
        v.push("--irreducible".into());
    }
    if !a.cfg.goto {
        v.push("--no-goto".into());
    }
    for (name, _) in KNOWN_BUGS {
        if !a.cfg.avoid.contains(name) {
            v.extend(["--allow".into(), name.to_string()]);
        }
    }
    if a.parallel {
        v.push("--parallel".into());
    }
    if a.il {
        v.push("--il".into());
    }
    v
}

fn open_both(a: &Args) -> (Platform, Platform) {
    if let Err(e) = setup_loader() {
        eprintln!("ferrocl-fuzz: {e}");
        std::process::exit(2);
    }
    let open = |name: &str| {
        Platform::open(name).unwrap_or_else(|e| {
            eprintln!("ferrocl-fuzz: {e}");
            std::process::exit(2)
        })
    };
    let (r, mut t) = (open(&a.reference), open(&a.tested));
    *r.extra_options.lock().unwrap() = a.ref_options.clone();
    *t.extra_options.lock().unwrap() = a.impl_options.clone();
    t.il = a.il;
    (r, t)
}

fn save(a: &Args, p: &Program, index: u64, report: &str) -> PathBuf {
    let _ = std::fs::create_dir_all(&a.out);
    let base = a.out.join(format!("s{}-p{index}", a.seed));
    let cl = base.with_extension("cl");
    let _ = std::fs::write(&cl, p.text());
    let _ = std::fs::write(base.with_extension("txt"), report);
    cl
}

/// Runs programs `from..from+count` in this process, printing one
/// `@start`/`@result` line pair per program for the supervisor.
fn worker(a: &Args) -> ExitCode {
    let (reference, tested) = open_both(a);
    ferrocl_tests::fuzz::exec::REPORT_PHASES.store(true, std::sync::atomic::Ordering::Relaxed);
    let stdout = std::io::stdout();
    for index in a.from..a.from + a.count {
        let p = generate(a.seed, index, &a.cfg);
        {
            let mut o = stdout.lock();
            let _ = writeln!(o, "@start {index}");
            let _ = o.flush();
        }
        let t = Instant::now();
        let j = judge(&reference, &tested, &p, a.parallel);
        if !j.clean() {
            let report = format!(
                "ferrocl-fuzz seed {} program {index}: {} (reference {:?}, tested {:?})\n{}",
                a.seed,
                j.kinds(),
                reference.name,
                tested.name,
                j.report()
            );
            save(a, &p, index, &report);
        }
        let (rb, rr) = *reference.times.lock().unwrap();
        let (tb, tr) = *tested.times.lock().unwrap();
        let mut o = stdout.lock();
        let _ = writeln!(
            o,
            "@result {index} kernels={} compared={} kinds={} secs={:.2} \
             times={rb:.2},{rr:.2},{tb:.2},{tr:.2} sigs={}",
            p.kernels.len(),
            j.compared,
            j.kinds(),
            t.elapsed().as_secs_f64(),
            j.signatures().join("|").replace('\n', " ")
        );
        let _ = o.flush();
    }
    cleanup_loader();
    ExitCode::SUCCESS
}

#[derive(Default)]
struct Tally {
    programs: u64,
    kernels: u64,
    mismatched_kernels: u64,
    mismatched_programs: u64,
    compared: u64,
    unavailable: u64,
    build: u64,
    run: u64,
    reference: u64,
    crashes: u64,
    secs: f64,
    /// Seconds: reference build, reference run, tested build, tested run.
    times: [f64; 4],
    signatures: std::collections::BTreeMap<String, (u64, u64)>,
}

/// Runs workers over the whole range, restarting after a crash or hang.
fn supervise(a: &Args) -> ExitCode {
    let exe = std::env::current_exe().expect("own path");
    let mut tally = Tally::default();
    let start = Instant::now();
    let end = a.from + a.count;
    let mut next = a.from;
    while next < end {
        let mut child = Command::new(&exe)
            .arg("--worker")
            .args(["--seed", &a.seed.to_string()])
            .args(["--from", &next.to_string()])
            .args(["--count", &(end - next).to_string()])
            .args(cfg_args(a))
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start a worker ({}): {e}", exe.display()));
        let rx = ferrocl_tests::worker::stdout_lines(&mut child);
        let mut current: Option<u64> = None;
        // The platform the worker said it was running (`@phase`).
        let mut phase = String::new();
        let mut last = Instant::now();
        loop {
            match rx.recv_timeout(Duration::from_secs(1)) {
                Ok(line) => {
                    last = Instant::now();
                    if let Some(name) = line.strip_prefix("@phase ") {
                        phase = name.trim().to_string();
                    } else if let Some(i) = line.strip_prefix("@start ") {
                        current = i.trim().parse().ok();
                        phase.clear();
                    } else if let Some(rest) = line.strip_prefix("@result ") {
                        record(a, &mut tally, rest);
                        current = None;
                        next = rest
                            .split_whitespace()
                            .next()
                            .and_then(|i| i.parse::<u64>().ok())
                            .map_or(next, |i| i + 1);
                        tally.secs = start.elapsed().as_secs_f64();
                        let _ = std::fs::create_dir_all(&a.out);
                        let _ = std::fs::write(a.out.join("summary.txt"), report(&tally));
                        if a.out.join("STOP").exists() {
                            let _ = child.kill();
                            let _ = child.wait();
                            eprintln!("{} exists: stopping", a.out.join("STOP").display());
                            print!("{}", report(&tally));
                            return ExitCode::SUCCESS;
                        }
                        if !a.quiet && tally.programs % 50 == 0 {
                            eprintln!(
                                "{} ({:.0} s)",
                                summary(&tally),
                                start.elapsed().as_secs_f64()
                            );
                        }
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if let Some(i) = current {
                        if last.elapsed() > Duration::from_secs(a.timeout) {
                            let _ = child.kill();
                            let _ = child.wait();
                            crashed(a, &mut tally, i, "hang", false);
                            next = i + 1;
                            break;
                        }
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    let status = child.wait().ok();
                    if let Some(i) = current {
                        // `--ref`/`--impl` pick platforms by a part of their name.
                        let by_reference =
                            phase.contains(&a.reference) && !phase.contains(&a.tested);
                        crashed(a, &mut tally, i, "crash", by_reference);
                        eprintln!("worker died on program {i}: {status:?}");
                        next = i + 1;
                    } else if next < end {
                        eprintln!("worker exited early: {status:?}");
                        return ExitCode::from(2);
                    }
                    break;
                }
            }
        }
    }
    tally.secs = start.elapsed().as_secs_f64();
    print!("{}", report(&tally));
    if tally.mismatched_kernels + tally.build + tally.run + tally.crashes + tally.reference > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The summary line, further counts, timings and failures by signature.
fn report(t: &Tally) -> String {
    use std::fmt::Write as _;
    let mut r = String::new();
    let _ = writeln!(r, "{}", summary(t));
    let _ = writeln!(
        r,
        "{} mismatching programs, {} kernels compared, {} run failures, {} crashes/hangs, \
         {} programs the reference failed (generator bugs, not counted), {:.0} s \
         ({:.2} s/program)",
        t.mismatched_programs,
        t.compared,
        t.run,
        t.crashes,
        t.reference,
        t.secs,
        t.secs / t.programs.max(1) as f64
    );
    if t.unavailable > 0 {
        let _ = writeln!(
            r,
            "{} kernels or programs the SPIR-V producer could not translate (--il; not given \
             to the tested platform, not counted)",
            t.unavailable
        );
    }
    let per = |x: f64| x / t.programs.max(1) as f64;
    let _ = writeln!(
        r,
        "per program: reference build {:.2} s, run {:.2} s; tested build {:.2} s, run {:.2} s",
        per(t.times[0]),
        per(t.times[1]),
        per(t.times[2]),
        per(t.times[3])
    );
    for (sig, (n, first)) in &t.signatures {
        let _ = writeln!(r, "  {n} x {sig}   (first: program {first})");
    }
    r
}

fn summary(t: &Tally) -> String {
    format!(
        "{} programs, {} kernels, {} mismatches, {} build-failures",
        t.programs, t.kernels, t.mismatched_kernels, t.build
    )
}

fn record(a: &Args, t: &mut Tally, rest: &str) {
    let mut index = 0;
    let mut kernels = 0;
    let mut compared = 0;
    let mut kinds = "";
    let mut sigs = "";
    for (n, item) in rest.splitn(7, ' ').enumerate() {
        if n == 0 {
            index = item.parse().unwrap_or(0);
        } else if let Some(v) = item.strip_prefix("kernels=") {
            kernels = v.parse().unwrap_or(0);
        } else if let Some(v) = item.strip_prefix("compared=") {
            compared = v.parse().unwrap_or(0);
        } else if let Some(v) = item.strip_prefix("kinds=") {
            kinds = v;
        } else if let Some(v) = item.strip_prefix("sigs=") {
            sigs = v;
        } else if let Some(v) = item.strip_prefix("times=") {
            for (slot, x) in t.times.iter_mut().zip(v.split(',')) {
                *slot += x.parse::<f64>().unwrap_or(0.0);
            }
        }
    }
    t.programs += 1;
    t.kernels += kernels;
    t.compared += compared;
    if kinds.contains("mismatch") {
        t.mismatched_programs += 1;
    }
    for sig in sigs.split('|').filter(|s| !s.is_empty()) {
        if sig.starts_with("mismatch") {
            t.mismatched_kernels += 1;
        } else if sig.starts_with("build") {
            t.build += 1;
        } else if sig.starts_with("run") {
            t.run += 1;
        } else if sig.starts_with("il") {
            t.unavailable += 1;
        } else {
            t.reference += 1;
        }
        let e = t.signatures.entry(sig.to_owned()).or_insert((0, index));
        e.0 += 1;
    }
    if !a.quiet && kinds != "same" {
        eprintln!(
            "program {index}: {kinds} -> {}",
            a.out.join(format!("s{}-p{index}.cl", a.seed)).display()
        );
    }
}

/// A program whose worker crashed or hung. `by_reference`: it crashed
/// while the reference ran (its last `@phase`): a reference failure, not
/// counted against the tested platform (PoCL 3.1 runs clang in its own
/// process, and clang 15 crashes on some programs; ferrocl's clang child
/// crashes on them too, and the build fails with a log).
fn crashed(a: &Args, t: &mut Tally, index: u64, kind: &str, by_reference: bool) {
    t.programs += 1;
    let who = if by_reference {
        t.reference += 1;
        format!("the reference ({}) {kind}ed", a.reference)
    } else {
        t.crashes += 1;
        format!("the worker {kind}ed")
    };
    let p = generate(a.seed, index, &a.cfg);
    t.kernels += p.kernels.len() as u64;
    let path = save(
        a,
        &p,
        index,
        &format!("ferrocl-fuzz seed {} program {index}: {who}\n", a.seed),
    );
    eprintln!("program {index}: {who} -> {}", path.display());
    let sig = if by_reference {
        format!("reference {kind} (not counted)")
    } else {
        format!("worker {kind}")
    };
    let e = t.signatures.entry(sig).or_insert((0, index));
    e.0 += 1;
}

fn load(path: &Path) -> Program {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("{}: {e}", path.display());
        std::process::exit(2)
    });
    Program::parse(&text).unwrap_or_else(|e| {
        eprintln!("{}: {e}", path.display());
        std::process::exit(2)
    })
}

/// Whether `j` shows `kind`: `mismatch:KERNEL`, `mismatch` (any kernel),
/// `build[:TEXT]` (TEXT in a build log), `run`.
fn shows(j: &Judgement, kind: &str) -> bool {
    let (what, detail) = kind.split_once(':').unwrap_or((kind, ""));
    match what {
        // A mismatch where the reference gives other words once it
        // optimizes is the reference's doubt, not ferrocl's bug: a
        // reduction that keeps it would end in a reference bug.
        "mismatch" => j.mismatches.iter().any(|d| {
            (detail.is_empty() || d.kernel == detail) && !j.reference_disagrees.contains(&d.kernel)
        }),
        "build" => j.build_failures.iter().any(|(_, log)| log.contains(detail)),
        "run" => j.run_failure.is_some(),
        _ => false,
    }
}

/// What a program shows, as an `--expect` KIND, or None if it agrees.
fn kind_of(j: &Judgement) -> Option<String> {
    if let Some(d) = j.mismatches.first() {
        Some(format!("mismatch:{}", d.kernel))
    } else if !j.build_failures.is_empty() {
        Some("build".into())
    } else if j.run_failure.is_some() {
        Some("run".into())
    } else {
        None
    }
}

/// Runs `text` in a child process (`--interesting`), with a time limit.
fn interesting_in_child(a: &Args, text: &str, kind: &str, scratch: &Path, timeout: u64) -> bool {
    std::fs::write(scratch, text).expect("write candidate");
    let exe = std::env::current_exe().expect("own path");
    let Ok(mut child) = Command::new(exe)
        .arg("--interesting")
        .arg(scratch)
        .args(["--expect", kind, "--ref", &a.reference, "--impl", &a.tested])
        .args([
            "--ref-options",
            &a.ref_options,
            "--impl-options",
            &a.impl_options,
        ])
        .args(["--hang-after", &a.hang_after.to_string()])
        .args(if a.il { &["--il"][..] } else { &[] })
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    else {
        return false;
    };
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut s);
        s
    });
    let start = Instant::now();
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            let said = reader.join().unwrap_or_default();
            return match kind {
                "hang" => said.contains("HANG"),
                "crash" => {
                    use std::os::unix::process::ExitStatusExt;
                    said.contains("REF OK") && matches!(status.signal(), Some(11 | 7 | 4 | 8))
                }
                _ => status.success(),
            };
        }
        if start.elapsed() > Duration::from_secs(timeout) {
            let _ = child.kill();
            let _ = child.wait();
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn main() -> ExitCode {
    let a = parse();
    if a.il {
        // A producer that is not installed would read as "could not
        // translate" for every kernel.
        let version = ferrocl_tests::fuzz::exec::il_version();
        for tool in [format!("clang-{version}"), format!("llvm-spirv-{version}")] {
            let found = std::process::Command::new(&tool)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success());
            if !found {
                eprintln!(
                    "ferrocl-fuzz: --il needs {tool} (Debian: apt-get install clang-{version} \
                     llvm-spirv-{version}; FERROCL_FUZZ_IL_VERSION picks the version)"
                );
                return ExitCode::from(2);
            }
        }
    }
    match &a.mode {
        Mode::Print(i) => {
            print!("{}", generate(a.seed, *i, &a.cfg).text());
            ExitCode::SUCCESS
        }
        Mode::Fuzz if a.worker => worker(&a),
        Mode::Fuzz => supervise(&a),
        Mode::Check(path) => {
            let p = load(path);
            let (reference, tested) = open_both(&a);
            // `@phase NAME` before each platform's build and run: a crash
            // after it is that platform's.
            ferrocl_tests::fuzz::exec::REPORT_PHASES
                .store(true, std::sync::atomic::Ordering::Relaxed);
            let j = judge(&reference, &tested, &p, false);
            print!("{}", j.report());
            if a.verbose {
                for d in &j.mismatches {
                    for (i, r, t) in &d.some {
                        println!(
                            "  {} word {i} (work-item {}, slot {}): reference {r:#x}, tested {t:#x}",
                            d.kernel,
                            i / SLOTS,
                            i % SLOTS
                        );
                    }
                }
            }
            cleanup_loader();
            if j.clean() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Mode::Interesting(path) => {
            let kind = a.expect.clone().unwrap_or_else(|| usage());
            let p = load(path);
            // A candidate with undefined behaviour clang can see is never
            // interesting, whatever it does (a build failure needs no run).
            let needs_run = !kind.starts_with("build");
            let sane = if needs_run {
                sanity(&p.source, &p.options)
            } else {
                Ok(())
            };
            if let Err(e) = sane {
                eprintln!("{e}");
                return ExitCode::from(1);
            }
            let (reference, tested) = open_both(&a);
            if kind == "crash" {
                // The reference must run it; then the tested platform must
                // kill the process (the parent sees the signal).
                if !matches!(reference.run(&p), Outcome::Ran(_)) {
                    return ExitCode::from(1);
                }
                println!("REF OK");
                let _ = std::io::stdout().flush();
                tested.run(&p);
                return ExitCode::from(1);
            }
            if kind == "hang" {
                // The reference must run it; the tested platform must not
                // finish within --hang-after seconds. Then say so on stdout
                // and abort (exiting normally could wait on the hung
                // device's threads).
                if !matches!(reference.run(&p), Outcome::Ran(_)) {
                    return ExitCode::from(1);
                }
                let after = Duration::from_secs(a.hang_after);
                std::thread::spawn(move || {
                    std::thread::sleep(after);
                    println!("HANG");
                    let _ = std::io::stdout().flush();
                    std::process::abort();
                });
                tested.run(&p);
                return ExitCode::from(1);
            }
            let j = if kind.starts_with("build") {
                // Building is enough.
                let mut j = Judgement::default();
                match (reference.build(&p), tested.build(&p)) {
                    (Ok(()), Err(log)) => j.build_failures.push((None, log)),
                    (Ok(()), Ok(())) => {}
                    (Err(log), _) => j.ref_failure = Some(log),
                }
                j
            } else {
                judge(&reference, &tested, &p, false)
            };
            cleanup_loader();
            if shows(&j, &kind) {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Mode::Reduce(path) => {
            let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
                eprintln!("{}: {e}", path.display());
                std::process::exit(2)
            });
            let kind = match &a.expect {
                Some(k) => k.clone(),
                None => {
                    let p = load(path);
                    let (reference, tested) = open_both(&a);
                    let j = judge(&reference, &tested, &p, false);
                    cleanup_loader();
                    match kind_of(&j) {
                        Some(k) => k,
                        None => {
                            eprintln!(
                                "{}: both platforms agree, nothing to reduce",
                                path.display()
                            );
                            return ExitCode::from(1);
                        }
                    }
                }
            };
            eprintln!("reducing {} while it shows {kind}", path.display());
            let scratch =
                std::env::temp_dir().join(format!("ferrocl-fuzz-reduce-{}.cl", std::process::id()));
            let mut checks = 0;
            // First the failing kernel alone, in one step.
            let mut text = text;
            let mut timeout = a.timeout;
            if let Some(k) = kind.strip_prefix("mismatch:") {
                let alone = load(path).with_kernels_named(&[k]).text();
                checks += 1;
                let t = Instant::now();
                if interesting_in_child(&a, &alone, &kind, &scratch, a.timeout) {
                    eprintln!("  kernel {k} alone still shows it");
                    text = alone;
                    // A candidate runs about as long as this check; one
                    // whose reference loops forever (the reducer removed
                    // a loop's step, and PoCL runs kernels inside
                    // clEnqueueNDRangeKernel) is cut after five times
                    // that, not after the whole program's --timeout.
                    if !a.timeout_given && kind != "hang" {
                        timeout = timeout.min((5 * t.elapsed().as_secs()).max(30));
                        eprintln!("  candidates cut after {timeout} s");
                    }
                }
            }
            let t = Instant::now();
            let out = a
                .reduced
                .clone()
                .unwrap_or_else(|| path.with_extension("reduced.cl"));
            let reduced = reduce::reduce(
                &text,
                !kind.starts_with("build"),
                |cand| {
                    checks += 1;
                    let keep = interesting_in_child(&a, cand, &kind, &scratch, timeout);
                    // The reducer keeps every interesting candidate: the
                    // file holds the smallest so far if the run is cut.
                    if keep {
                        let _ = std::fs::write(&out, cand);
                    }
                    keep
                },
                |msg| eprintln!("  {msg} ({:.0} s)", t.elapsed().as_secs_f64()),
            );
            let _ = std::fs::remove_file(&scratch);
            std::fs::write(&out, &reduced).expect("write the reduced program");
            eprintln!(
                "{} checks, {:.0} s: {} -> {} lines, {}",
                checks,
                t.elapsed().as_secs_f64(),
                text.lines().count(),
                reduced.lines().count(),
                out.display()
            );
            ExitCode::SUCCESS
        }
    }
}
