//! ferrocl-ilfuzz: malformed SPIR-V and program binaries through
//! clCreateProgramWithIL / clCreateProgramWithBinary, clBuildProgram,
//! clCreateKernelsInProgram and one launch (`ferrocl_tests::ilfuzz`).
//!
//! ```text
//! ferrocl-ilfuzz [--seed S] [--count N] [--from I] [--out DIR] [--timeout SECS]
//!                [--seeds NAME,NAME..] [--binary-seeds N] [--object-seeds N]
//!                [--no-launch] [--quiet]
//! ferrocl-ilfuzz --smoke           the CI check: seed 1, 200 mutants of 8 seeds, no launch
//! ferrocl-ilfuzz --replay FILE     run one saved mutant (.spv or .bin), print what it did
//! ferrocl-ilfuzz --seed S --out DIR --save I   write mutant I (of DIR's seeds) to a file
//! ```
//!
//! Seeds are SPIR-V of `tests/corpus/*.cl` (all, or `--seeds`) and the
//! binaries ferrocl returns for the first `--binary-seeds` of them
//! (executables, default 16) and `--object-seeds` (compiled objects,
//! default 4); they are written to `DIR/seeds/`. Mutant `i` of seed `S`
//! is always the same bytes. Mutants run in a worker process, many per
//! process; a crash or a hang (`--timeout`, default 60 s per mutant)
//! kills it, is recorded with the step it happened in, and a new worker
//! goes on with the next mutant. The worker's stderr goes to
//! `DIR/worker-stderr.txt`, where ferrocl's panics are looked for after
//! each mutant (a caught panic is still a defect, as is an internal
//! compiler error or a build failure without a log).
//!
//! Defective mutants are saved as `DIR/s<S>-m<i>.{spv,bin}` with a `.txt`
//! report. Exit status: 0 when every mutant ended in a CL error code or a
//! working program, 1 when a defect was found, 2 on a usage error.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use ferrocl_tests::fuzz::exec::{cleanup_loader, setup_loader, Platform};
use ferrocl_tests::ilfuzz::mutant;
use ferrocl_tests::ilfuzz::run::{log_signature, run_mutant, signature, Report, Target};
use ferrocl_tests::ilfuzz::seeds::{binary_seeds, load_seeds, save_seeds, spirv_seeds, Seed};

/// The seeds of `--smoke`: small kernels of several kinds (arithmetic,
/// atomics, control flow, local memory, math, pointers, vectors).
const SMOKE_SEEDS: &str = "as_constant_arg,atomic_add_local,cf_loop_break_continue,\
                           cf_nested_loops,conv_as_uint,float_ilogb,as_struct_with_pointer,\
                           as_local_array";

struct Args {
    seed: u64,
    count: u64,
    from: u64,
    out: PathBuf,
    timeout: u64,
    seeds: Vec<String>,
    binary_seeds: usize,
    object_seeds: usize,
    launch: bool,
    quiet: bool,
    worker: bool,
    stderr_file: Option<PathBuf>,
    replay: Option<PathBuf>,
    save: Option<u64>,
}

fn usage() -> ! {
    eprintln!(
        "usage: ferrocl-ilfuzz [--seed S] [--count N] [--from I] [--out DIR] [--timeout SECS]\n\
         \x20                     [--seeds NAME,..] [--binary-seeds N] [--object-seeds N]\n\
         \x20                     [--no-launch] [--quiet] [--smoke]\n\
         \x20      ferrocl-ilfuzz --replay FILE\n\
         \x20      ferrocl-ilfuzz --seed S --out DIR --save I"
    );
    std::process::exit(2)
}

fn parse() -> Args {
    let mut a = Args {
        seed: 1,
        count: 1000,
        from: 0,
        out: "ilfuzz-out".into(),
        timeout: 60,
        seeds: Vec::new(),
        binary_seeds: 16,
        object_seeds: 4,
        launch: true,
        quiet: false,
        worker: false,
        stderr_file: None,
        replay: None,
        save: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut val = || it.next().unwrap_or_else(|| usage());
        let num = |s: String| s.parse::<u64>().unwrap_or_else(|_| usage());
        match arg.as_str() {
            "--seed" => a.seed = num(val()),
            "--count" => a.count = num(val()),
            "--from" => a.from = num(val()),
            "--out" => a.out = val().into(),
            "--timeout" => a.timeout = num(val()),
            "--seeds" => a.seeds = val().split(',').map(|s| s.trim().to_string()).collect(),
            "--binary-seeds" => a.binary_seeds = num(val()) as usize,
            "--object-seeds" => a.object_seeds = num(val()) as usize,
            "--no-launch" => a.launch = false,
            "--quiet" => a.quiet = true,
            "--worker" => a.worker = true,
            "--stderr-file" => a.stderr_file = Some(val().into()),
            "--replay" => a.replay = Some(val().into()),
            "--save" => a.save = Some(num(val())),
            "--smoke" => {
                a.seed = 1;
                a.count = 200;
                a.seeds = SMOKE_SEEDS.split(',').map(str::to_string).collect();
                a.binary_seeds = 4;
                a.object_seeds = 1;
                a.launch = false;
                a.quiet = true;
            }
            _ => usage(),
        }
    }
    a
}

fn seed_dir(a: &Args) -> PathBuf {
    a.out.join("seeds")
}

/// ferrocl's platform, its first device, a context and a queue.
fn open_ferrocl() -> (Platform, Target) {
    if let Err(e) = setup_loader() {
        eprintln!("ferrocl-ilfuzz: {e}");
        std::process::exit(2);
    }
    let p = Platform::open("ferrocl").unwrap_or_else(|e| {
        eprintln!("ferrocl-ilfuzz: {e}");
        std::process::exit(2)
    });
    let t = Target {
        context: p.context.raw(),
        device: p.context.device(),
        queue: p.queue.raw(),
    };
    (p, t)
}

/// Makes the seeds and writes them with their list to `DIR/seeds/`.
fn prepare(a: &Args, t: &Target) -> Vec<Seed> {
    let mut seeds = spirv_seeds(&a.seeds);
    if seeds.is_empty() {
        eprintln!("ferrocl-ilfuzz: no seed could be made");
        std::process::exit(2);
    }
    let binaries = binary_seeds(t, &seeds, a.binary_seeds, a.object_seeds);
    seeds.extend(binaries);
    save_seeds(&seed_dir(a), &seeds);
    let list: Vec<&str> = seeds.iter().map(|s| s.name.as_str()).collect();
    let _ = std::fs::write(seed_dir(a).join("list.txt"), list.join("\n"));
    seeds
}

fn saved_seeds(a: &Args) -> Vec<Seed> {
    let list = std::fs::read_to_string(seed_dir(a).join("list.txt")).unwrap_or_default();
    let names: Vec<String> = list.lines().map(str::to_string).collect();
    load_seeds(&seed_dir(a), &names).unwrap_or_else(|e| {
        eprintln!("ferrocl-ilfuzz: seeds: {e}");
        std::process::exit(2)
    })
}

/// Saves mutant `index` with a report; returns its path.
fn save(a: &Args, seeds: &[Seed], index: u64, what: &str, extra: &str) -> PathBuf {
    let (s, bytes, log) = mutant(a.seed, index, seeds);
    let ext = if seeds[s].binary { "bin" } else { "spv" };
    let _ = std::fs::create_dir_all(&a.out);
    let base = a.out.join(format!("s{}-m{index}", a.seed));
    let path = base.with_extension(ext);
    let _ = std::fs::write(&path, &bytes);
    let report = format!(
        "ferrocl-ilfuzz seed {} mutant {index}: {what}\nfrom seed {}\nmutations: {}\n{extra}\n",
        a.seed,
        seeds[s].name,
        log.join("; ")
    );
    let _ = std::fs::write(base.with_extension("txt"), report);
    path
}

/// The panics in the worker's stderr since `at`, and that text.
fn new_panics(file: &mut Option<File>, at: &mut u64) -> (Vec<String>, String) {
    let Some(f) = file else {
        return (Vec::new(), String::new());
    };
    let mut text = String::new();
    if f.seek(SeekFrom::Start(*at)).is_err() || f.read_to_string(&mut text).is_err() {
        return (Vec::new(), String::new());
    }
    *at += text.len() as u64;
    let lines: Vec<&str> = text.lines().collect();
    let mut panics = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if l.contains("panicked at") {
            let msg = lines.get(i + 1).copied().unwrap_or("");
            panics.push(format!("panic: {} {}", signature(l), signature(msg)));
        } else if l.contains("internal panic caught") {
            panics.push(format!("panic: {}", signature(l)));
        }
    }
    (panics, text)
}

/// Runs mutants `from..from+count`, one `@start`, `@phase`s and one
/// `@result` line each on stdout for the supervisor.
fn worker(a: &Args) -> ExitCode {
    let seeds = saved_seeds(a);
    let (_platform, t) = open_ferrocl();
    let mut err_file = a.stderr_file.as_ref().and_then(|p| File::open(p).ok());
    let mut err_at = err_file
        .as_mut()
        .and_then(|f| f.seek(SeekFrom::End(0)).ok())
        .unwrap_or(0);
    let stdout = std::io::stdout();
    let say = |line: String| {
        let mut o = stdout.lock();
        let _ = writeln!(o, "{line}");
        let _ = o.flush();
    };
    for index in a.from..a.from + a.count {
        let (s, bytes, _) = mutant(a.seed, index, &seeds);
        say(format!("@start {index}"));
        let start = Instant::now();
        let binary = seeds[s].binary;
        let r = run_mutant(&t, &bytes, binary, a.launch, &mut |p| {
            say(format!("@phase {index} {p}"))
        });
        let mut defects = r.defects();
        let (panics, stderr) = new_panics(&mut err_file, &mut err_at);
        defects.extend(panics);
        if !defects.is_empty() {
            let stderr: Vec<&str> = stderr.lines().take(60).collect();
            let report = format!(
                "{}\nbuild log:\n{}\nstderr:\n{}",
                defects.join("\n"),
                r.log,
                stderr.join("\n")
            );
            save(a, &seeds, index, &r.class(), &report);
        }
        let sig = if matches!(r.build, Some(s) if s != 0) {
            log_signature(&r.log)
        } else {
            String::new()
        };
        say(format!(
            "@result {index} input={} class={} secs={:.3} defects={} sig={sig}",
            if binary { "binary" } else { "il" },
            r.class(),
            start.elapsed().as_secs_f64(),
            defects.join("|").replace(' ', "\u{a0}"),
        ));
    }
    cleanup_loader();
    ExitCode::SUCCESS
}

#[derive(Default)]
struct Tally {
    mutants: u64,
    il: u64,
    binary: u64,
    /// Mutants by outcome class and input kind.
    classes: BTreeMap<(String, String), u64>,
    /// Build-failure log signatures: count and first mutant.
    logs: BTreeMap<String, (u64, u64)>,
    crashes: u64,
    /// Crashes while the first kernel ran (a mutated kernel may index out
    /// of bounds: undefined behaviour, not an intake defect; see
    /// tests/README.md).
    launch_crashes: u64,
    hangs: u64,
    panics: u64,
    defects: u64,
    /// Every defect, crash and hang by signature: count and first mutant.
    failures: BTreeMap<String, (u64, u64)>,
    secs: f64,
    mutant_secs: f64,
}

fn record(t: &mut Tally, rest: &str) {
    let mut fields = rest.splitn(6, ' ');
    let index: u64 = fields.next().and_then(|i| i.parse().ok()).unwrap_or(0);
    let mut input = "";
    let mut class = "";
    let mut defects = "";
    let mut sig = "";
    for f in fields {
        if let Some(v) = f.strip_prefix("input=") {
            input = v;
        } else if let Some(v) = f.strip_prefix("class=") {
            class = v;
        } else if let Some(v) = f.strip_prefix("secs=") {
            t.mutant_secs += v.parse::<f64>().unwrap_or(0.0);
        } else if let Some(v) = f.strip_prefix("defects=") {
            defects = v;
        } else if let Some(v) = f.strip_prefix("sig=") {
            sig = v;
        }
    }
    t.mutants += 1;
    if input == "binary" {
        t.binary += 1;
    } else {
        t.il += 1;
    }
    *t.classes
        .entry((class.to_string(), input.to_string()))
        .or_default() += 1;
    if !sig.is_empty() {
        t.logs.entry(sig.to_string()).or_insert((0, index)).0 += 1;
    }
    for d in defects.split('|').filter(|d| !d.is_empty()) {
        let d = d.replace('\u{a0}', " ");
        if d.starts_with("panic") {
            t.panics += 1;
        }
        t.defects += 1;
        t.failures.entry(d).or_insert((0, index)).0 += 1;
    }
}

fn crashed(a: &Args, seeds: &[Seed], t: &mut Tally, index: u64, kind: &str, phase: &str) {
    t.mutants += 1;
    let (s, _, _) = mutant(a.seed, index, seeds);
    if seeds[s].binary {
        t.binary += 1;
    } else {
        t.il += 1;
    }
    if kind == "hang" {
        t.hangs += 1;
    } else {
        t.crashes += 1;
        if phase == "launch" {
            t.launch_crashes += 1;
        }
    }
    let tail = std::fs::read_to_string(a.out.join("worker-stderr.txt")).unwrap_or_default();
    let tail: String = tail
        .lines()
        .rev()
        .take(20)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect::<Vec<_>>()
        .join("\n");
    let path = save(
        a,
        seeds,
        index,
        &format!("worker {kind} in {phase}"),
        &format!("worker stderr (end):\n{tail}"),
    );
    eprintln!("mutant {index}: {kind} in {phase} -> {}", path.display());
    t.failures
        .entry(format!("worker {kind} in {phase}"))
        .or_insert((0, index))
        .0 += 1;
}

fn report(t: &Tally) -> String {
    use std::fmt::Write as _;
    let mut r = String::new();
    let accepted: u64 = t
        .classes
        .iter()
        .filter(|((c, _), _)| c.starts_with("ok"))
        .map(|(_, n)| n)
        .sum();
    let _ = writeln!(
        r,
        "{} mutants ({} SPIR-V, {} binaries): {} built, {} rejected with an error code, \
         {} crashes ({} of them while the built kernel ran), {} hangs, {} panics, \
         {} defects in all",
        t.mutants,
        t.il,
        t.binary,
        accepted,
        t.mutants - accepted - t.crashes - t.hangs,
        t.crashes,
        t.launch_crashes,
        t.hangs,
        t.panics,
        t.defects + t.crashes + t.hangs
    );
    let _ = writeln!(
        r,
        "{:.0} s in all, {:.1} ms per mutant in the worker",
        t.secs,
        1000.0 * t.mutant_secs / t.mutants.max(1) as f64
    );
    let _ = writeln!(r, "outcomes (step:code, input, mutants):");
    for ((class, input), n) in &t.classes {
        let _ = writeln!(r, "  {class:<48} {input:<7} {n}");
    }
    let _ = writeln!(r, "most frequent build-log first lines:");
    let mut logs: Vec<_> = t.logs.iter().collect();
    logs.sort_by_key(|l| std::cmp::Reverse(l.1 .0));
    for (sig, (n, first)) in logs.iter().take(15) {
        let _ = writeln!(r, "  {n:>6} x {sig}   (first: mutant {first})");
    }
    if !t.failures.is_empty() {
        let _ = writeln!(r, "defects:");
        for (sig, (n, first)) in &t.failures {
            let _ = writeln!(r, "  {n} x {sig}   (first: mutant {first})");
        }
    }
    r
}

/// Runs workers over the range, restarting one after a crash or hang.
fn supervise(a: &Args) -> ExitCode {
    let start = Instant::now();
    let seeds = {
        let (_platform, t) = open_ferrocl();
        prepare(a, &t)
    };
    if !a.quiet {
        eprintln!(
            "{} seeds ({} binaries) in {}, {:.0} s",
            seeds.len(),
            seeds.iter().filter(|s| s.binary).count(),
            seed_dir(a).display(),
            start.elapsed().as_secs_f64()
        );
    }
    let exe = std::env::current_exe().expect("own path");
    let err_path = a.out.join("worker-stderr.txt");
    let _ = std::fs::remove_file(&err_path);
    let mut tally = Tally::default();
    let end = a.from + a.count;
    let mut next = a.from;
    while next < end {
        let err = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&err_path)
            .unwrap_or_else(|e| {
                eprintln!("ferrocl-ilfuzz: {}: {e}", err_path.display());
                std::process::exit(2)
            });
        let mut cmd = Command::new(&exe);
        cmd.arg("--worker")
            .args(["--seed", &a.seed.to_string()])
            .args(["--from", &next.to_string()])
            .args(["--count", &(end - next).to_string()])
            .arg("--out")
            .arg(&a.out)
            .arg("--stderr-file")
            .arg(&err_path);
        if !a.launch {
            cmd.arg("--no-launch");
        }
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::from(err))
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start a worker ({}): {e}", exe.display()));
        let rx = ferrocl_tests::worker::stdout_lines(&mut child);
        let mut current: Option<u64> = None;
        let mut phase = String::from("start");
        let mut last = Instant::now();
        loop {
            match rx.recv_timeout(Duration::from_secs(1)) {
                Ok(line) => {
                    if let Some(i) = line.strip_prefix("@start ") {
                        current = i.trim().parse().ok();
                        phase = "start".into();
                        last = Instant::now();
                    } else if let Some(rest) = line.strip_prefix("@phase ") {
                        phase = rest.split(' ').nth(1).unwrap_or("").to_string();
                    } else if let Some(rest) = line.strip_prefix("@result ") {
                        record(&mut tally, rest);
                        current = None;
                        next = rest
                            .split(' ')
                            .next()
                            .and_then(|i| i.parse::<u64>().ok())
                            .map_or(next, |i| i + 1);
                        if !a.quiet && tally.mutants % 500 == 0 {
                            tally.secs = start.elapsed().as_secs_f64();
                            let _ = std::fs::write(a.out.join("summary.txt"), report(&tally));
                            eprintln!(
                                "{} mutants, {} crashes, {} hangs, {} defects ({:.0} s)",
                                tally.mutants,
                                tally.crashes,
                                tally.hangs,
                                tally.defects,
                                tally.secs
                            );
                        }
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if let Some(i) = current {
                        if last.elapsed() > Duration::from_secs(a.timeout) {
                            let _ = child.kill();
                            let _ = child.wait();
                            crashed(a, &seeds, &mut tally, i, "hang", &phase);
                            next = i + 1;
                            break;
                        }
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    let status = child.wait().ok();
                    if let Some(i) = current {
                        crashed(a, &seeds, &mut tally, i, "crash", &phase);
                        eprintln!("worker died on mutant {i}: {status:?}");
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
    let text = report(&tally);
    let _ = std::fs::write(a.out.join("summary.txt"), &text);
    print!("{text}");
    cleanup_loader();
    if tally.defects + tally.crashes + tally.hangs > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Runs one saved mutant in this process and prints what it did.
fn replay(a: &Args, path: &Path) -> ExitCode {
    let bytes = std::fs::read(path).unwrap_or_else(|e| {
        eprintln!("ferrocl-ilfuzz: {}: {e}", path.display());
        std::process::exit(2)
    });
    let binary = path.extension().is_some_and(|x| x == "bin");
    let (_platform, t) = open_ferrocl();
    let r: Report = run_mutant(&t, &bytes, binary, a.launch, &mut |p| {
        eprintln!("step: {p}")
    });
    println!("outcome: {}", r.class());
    for d in r.defects() {
        println!("defect: {d}");
    }
    if !r.log.is_empty() {
        println!("build log:\n{}", r.log);
    }
    cleanup_loader();
    if r.defects().is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn main() -> ExitCode {
    let a = parse();
    match &a.replay {
        Some(path) => replay(&a, path),
        None if a.save.is_some() => {
            let index = a.save.unwrap_or_default();
            let path = save(&a, &saved_seeds(&a), index, "saved", "");
            println!("{}", path.display());
            ExitCode::SUCCESS
        }
        None if a.worker => worker(&a),
        None => supervise(&a),
    }
}
