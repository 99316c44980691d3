//! ferrocl-apifuzz: random calls of every OpenCL entry point ferrocl
//! exports, with valid, invalid and boundary arguments, from several
//! threads, each code checked against the spec's set
//! (`ferrocl_tests::apifuzz`).
//!
//! ```text
//! ferrocl-apifuzz [--seed S] [--batches N] [--from B] [--threads T] [--calls C]
//!                 [--timeout SECS] [--out DIR] [--quiet]
//! ferrocl-apifuzz --smoke      the CI check: seed 1, 6 batches of 2 threads x 400 calls
//! ```
//!
//! Batch `b` runs `T` threads of `C` calls each; thread `t`'s calls are
//! always the same (stream `(S, b, t)`). Batches run in a worker process,
//! many per process; a crash or a hang (no batch finished within
//! `--timeout`, default 120 s) is counted and a new worker goes on with
//! the next batch. The worker's stderr goes to `DIR/worker-stderr.txt`.
//! Writes `DIR/summary.txt`: calls, distinct (function, code) pairs,
//! crashes, hangs, codes outside the spec's set and panics ferrocl caught
//! at its API boundary (found in the stderr: each is a defect, returned to
//! the application as CL_OUT_OF_HOST_MEMORY). Exit status 0 when all four
//! are 0, 1 otherwise, 2 on a usage error.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use ferrocl_tests::apifuzz::{pool::Pool, run_batch};
use ferrocl_tests::error_name;

struct Args {
    seed: u64,
    batches: u64,
    from: u64,
    threads: usize,
    calls: u64,
    timeout: u64,
    out: PathBuf,
    quiet: bool,
    worker: bool,
}

fn usage() -> ! {
    eprintln!(
        "usage: ferrocl-apifuzz [--seed S] [--batches N] [--from B] [--threads T] [--calls C]\n\
         \x20                      [--timeout SECS] [--out DIR] [--quiet] [--smoke]"
    );
    std::process::exit(2)
}

fn parse() -> Args {
    let mut a = Args {
        seed: 1,
        batches: 20,
        from: 0,
        threads: 4,
        calls: 2000,
        timeout: 120,
        out: "apifuzz-out".into(),
        quiet: false,
        worker: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut val = || it.next().unwrap_or_else(|| usage());
        let num = |s: String| s.parse::<u64>().unwrap_or_else(|_| usage());
        match arg.as_str() {
            "--seed" => a.seed = num(val()),
            "--batches" => a.batches = num(val()),
            "--from" => a.from = num(val()),
            "--threads" => a.threads = num(val()).max(1) as usize,
            "--calls" => a.calls = num(val()),
            "--timeout" => a.timeout = num(val()),
            "--out" => a.out = val().into(),
            "--quiet" => a.quiet = true,
            "--worker" => a.worker = true,
            "--smoke" => {
                a.seed = 1;
                a.batches = 6;
                a.threads = 2;
                a.calls = 400;
                a.quiet = true;
            }
            _ => usage(),
        }
    }
    a
}

fn setup() {
    // Only ferrocl: clCreateContextFromType without a platform and
    // clGetPlatformIDs must not reach another implementation.
    std::env::set_var("FERROCL_NO_COMPILE_CACHE", "1");
    ferrocl_tests::init();
}

/// Runs batches `from..from+batches`; prints `@start`, then `@count`,
/// `@violation` and `@result` lines per batch for the supervisor.
fn worker(a: &Args) -> ExitCode {
    setup();
    let pool = Pool::new();
    let stdout = std::io::stdout();
    let say = |line: String| {
        let mut o = stdout.lock();
        let _ = writeln!(o, "{line}");
        let _ = o.flush();
    };
    for b in a.from..a.from + a.batches {
        say(format!("@start {b}"));
        let start = Instant::now();
        let out = run_batch(&pool, a.seed, b, a.threads, a.calls);
        for ((f, code), n) in &out.counts {
            say(format!("@count {f} {code} {n}"));
        }
        for v in &out.violations {
            say(format!("@violation {} {}", v.function, v.code));
        }
        say(format!(
            "@result {b} calls={} secs={:.2}",
            out.calls,
            start.elapsed().as_secs_f64()
        ));
    }
    pool.release();
    ExitCode::SUCCESS
}

#[derive(Default)]
struct Tally {
    calls: u64,
    batches: u64,
    counts: BTreeMap<(String, i32), u64>,
    violations: BTreeMap<(String, i32), (u64, u64)>,
    crashes: Vec<u64>,
    hangs: Vec<u64>,
    /// Panics ferrocl caught at its API boundary (each still a defect),
    /// by source location.
    panics: BTreeMap<String, u64>,
    secs: f64,
}

/// The panics in the workers' stderr, by location.
fn panics(path: &std::path::Path) -> BTreeMap<String, u64> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = BTreeMap::new();
    for (i, l) in lines.iter().enumerate() {
        if let Some(at) = l.split("panicked at ").nth(1) {
            let msg = lines.get(i + 1).copied().unwrap_or("");
            *out.entry(format!("{at} {msg}")).or_default() += 1;
        }
    }
    out
}

fn code_name(code: i32) -> String {
    match code {
        -1 if false => String::new(),
        1 => "WRONG_RESULT(object/NULL-ness)".into(),
        2 => "SUCCESS_ON_INVALID_HANDLE".into(),
        _ => error_name(code).to_string(),
    }
}

fn report(t: &Tally, a: &Args) -> String {
    use std::fmt::Write as _;
    let mut r = String::new();
    let functions: BTreeSet<&str> = t.counts.keys().map(|(f, _)| f.as_str()).collect();
    let violations: u64 = t.violations.values().map(|v| v.0).sum();
    let _ = writeln!(
        r,
        "seed {}, batches {}..{} ({} threads x {} calls): {} calls of {} functions, \
         {} distinct (function, code) pairs, {} crashes, {} hangs, {} codes outside the spec's set, \
         {} caught panics",
        a.seed,
        a.from,
        a.from + a.batches,
        a.threads,
        a.calls,
        t.calls,
        functions.len(),
        t.counts.len(),
        t.crashes.len(),
        t.hangs.len(),
        violations,
        t.panics.values().sum::<u64>()
    );
    for (at, n) in &t.panics {
        let _ = writeln!(r, "  panic x{n} at {at}");
    }
    let _ = writeln!(r, "{:.0} s in all", t.secs);
    if !t.crashes.is_empty() || !t.hangs.is_empty() {
        let _ = writeln!(
            r,
            "crashed batches: {:?}; hung batches: {:?}",
            t.crashes, t.hangs
        );
    }
    if !t.violations.is_empty() {
        let _ = writeln!(
            r,
            "codes outside the spec's set (function, code, count, first batch):"
        );
        for ((f, c), (n, b)) in &t.violations {
            let _ = writeln!(r, "  {f} {} x{n} (batch {b})", code_name(*c));
        }
    }
    let _ = writeln!(r, "calls by function and code:");
    for ((f, c), n) in &t.counts {
        let _ = writeln!(r, "  {f:<44} {:<44} {n}", code_name(*c));
    }
    r
}

fn supervise(a: &Args) -> ExitCode {
    let start = Instant::now();
    let _ = std::fs::create_dir_all(&a.out);
    let exe = std::env::current_exe().expect("own path");
    let err_path = a.out.join("worker-stderr.txt");
    let _ = std::fs::remove_file(&err_path);
    let mut t = Tally::default();
    let end = a.from + a.batches;
    let mut next = a.from;
    while next < end {
        let err = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&err_path)
            .unwrap_or_else(|e| {
                eprintln!("ferrocl-apifuzz: {}: {e}", err_path.display());
                std::process::exit(2)
            });
        let mut child = Command::new(&exe)
            .arg("--worker")
            .args(["--seed", &a.seed.to_string()])
            .args(["--from", &next.to_string()])
            .args(["--batches", &(end - next).to_string()])
            .args(["--threads", &a.threads.to_string()])
            .args(["--calls", &a.calls.to_string()])
            .stdout(Stdio::piped())
            .stderr(Stdio::from(err))
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start a worker ({}): {e}", exe.display()));
        let rx = ferrocl_tests::worker::stdout_lines(&mut child);
        let mut current: Option<u64> = None;
        let mut last = Instant::now();
        loop {
            match rx.recv_timeout(Duration::from_secs(1)) {
                Ok(line) => {
                    let mut w = line.split(' ');
                    match w.next() {
                        Some("@start") => {
                            current = w.next().and_then(|b| b.parse().ok());
                            last = Instant::now();
                        }
                        Some("@count") => {
                            let f = w.next().unwrap_or("").to_string();
                            let c: i32 = w.next().and_then(|c| c.parse().ok()).unwrap_or(0);
                            let n: u64 = w.next().and_then(|n| n.parse().ok()).unwrap_or(0);
                            *t.counts.entry((f, c)).or_default() += n;
                        }
                        Some("@violation") => {
                            let f = w.next().unwrap_or("").to_string();
                            let c: i32 = w.next().and_then(|c| c.parse().ok()).unwrap_or(0);
                            let b = current.unwrap_or(0);
                            t.violations.entry((f, c)).or_insert((0, b)).0 += 1;
                        }
                        Some("@result") => {
                            let b: u64 = w.next().and_then(|b| b.parse().ok()).unwrap_or(next);
                            let calls = w
                                .next()
                                .and_then(|c| c.strip_prefix("calls="))
                                .and_then(|c| c.parse::<u64>().ok())
                                .unwrap_or(0);
                            t.calls += calls;
                            t.batches += 1;
                            current = None;
                            next = b + 1;
                            if !a.quiet {
                                eprintln!(
                                    "batch {b} done: {} calls, {} violations, {} crashes, {} hangs ({:.0} s)",
                                    t.calls,
                                    t.violations.values().map(|v| v.0).sum::<u64>(),
                                    t.crashes.len(),
                                    t.hangs.len(),
                                    start.elapsed().as_secs_f64()
                                );
                            }
                        }
                        _ => {}
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if let Some(b) = current {
                        if last.elapsed() > Duration::from_secs(a.timeout) {
                            let _ = child.kill();
                            let _ = child.wait();
                            eprintln!("ferrocl-apifuzz: batch {b} hung");
                            t.hangs.push(b);
                            next = b + 1;
                            break;
                        }
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    let status = child.wait().ok();
                    if let Some(b) = current {
                        eprintln!("ferrocl-apifuzz: worker died in batch {b}: {status:?}");
                        t.crashes.push(b);
                        next = b + 1;
                    } else if next < end {
                        eprintln!("ferrocl-apifuzz: worker exited early: {status:?}");
                        return ExitCode::from(2);
                    }
                    break;
                }
            }
        }
    }
    t.secs = start.elapsed().as_secs_f64();
    t.panics = panics(&err_path);
    let text = report(&t, a);
    let _ = std::fs::write(a.out.join("summary.txt"), &text);
    if a.quiet {
        print!("{}", text.lines().next().unwrap_or(""));
        println!();
        let bad = !t.violations.is_empty() || !t.panics.is_empty();
        for l in text.lines().filter(|l| l.starts_with("  ") && bad).take(20) {
            println!("{l}");
        }
    } else {
        print!("{text}");
    }
    if t.crashes.is_empty() && t.hangs.is_empty() && t.violations.is_empty() && t.panics.is_empty()
    {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn main() -> ExitCode {
    let a = parse();
    if a.worker {
        worker(&a)
    } else {
        supervise(&a)
    }
}
