//! ferrocl-soak: `--cycles N` cycles creating, using and releasing one
//! object of every kind (`ferrocl_tests::soak`), sampling every
//! `--every K` cycles the resident memory, open file descriptors and
//! ferrocl's live Vulkan-backed objects (FERROCL_LOG must be set for the
//! last: the debug counter is only given then; the soak sets it).
//!
//! ```text
//! ferrocl-soak [--cycles N] [--every K] [--seconds S] [--out FILE]
//! ```
//!
//! Prints one table row per sample (and writes them to FILE): cycle,
//! seconds, VmRSS and RssAnon (KiB), fds, live buffers/images/buffer views/kernel
//! pipeline sets/queue engines, event callbacks run. `--seconds` stops
//! early after S seconds (the row of the last cycle is printed). Exit
//! status 0 when every cycle's values were right (a wrong value panics).

use std::io::Write;
use std::time::Instant;

use ferrocl_tests::soak::{anon_kib, callbacks, cycle, open_fds, rss_kib, Target};

fn usage() -> ! {
    eprintln!("usage: ferrocl-soak [--cycles N] [--every K] [--seconds S] [--out FILE]");
    std::process::exit(2)
}

fn main() {
    let (mut cycles, mut every, mut seconds, mut out) = (1000u64, 100u64, u64::MAX, None);
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut val = || it.next().unwrap_or_else(|| usage());
        match a.as_str() {
            "--cycles" => cycles = val().parse().unwrap_or_else(|_| usage()),
            "--every" => every = val().parse::<u64>().unwrap_or_else(|_| usage()).max(1),
            "--seconds" => seconds = val().parse().unwrap_or_else(|_| usage()),
            "--out" => out = Some(val()),
            _ => usage(),
        }
    }
    if std::env::var_os("FERROCL_LOG").is_none() {
        std::env::set_var("FERROCL_LOG", "1");
    }
    ferrocl_tests::init();
    let t = Target::new();
    let mut file = out.map(|p| std::fs::File::create(p).expect("--out file"));
    let mut row = |line: String| {
        println!("{line}");
        if let Some(f) = file.as_mut() {
            let _ = writeln!(f, "{line}");
        }
    };
    row("cycle\tsecs\trss_kib\tanon_kib\tfds\tbuffers\timages\tbuffer_views\tpipelines\tqueue_engines\tcallbacks".into());
    let start = Instant::now();
    let sample = |c: u64| {
        let live = t.live_objects().unwrap_or_default();
        let l = |i: usize| live.get(i).map_or("-".to_string(), |v| v.to_string());
        format!(
            "{c}\t{:.0}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            start.elapsed().as_secs_f64(),
            rss_kib(),
            anon_kib(),
            open_fds(),
            l(0),
            l(1),
            l(2),
            l(3),
            l(4),
            callbacks()
        )
    };
    row(sample(0));
    for c in 1..=cycles {
        cycle(&t, c);
        let last = c == cycles || start.elapsed().as_secs() >= seconds;
        if c % every == 0 || last {
            row(sample(c));
        }
        if last {
            break;
        }
    }
}
