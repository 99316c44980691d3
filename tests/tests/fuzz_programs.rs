//! Whole fuzz programs (`ferrocl-fuzz` files) that once failed on a device
//! and are fixed, kept with the output words two other implementations
//! agree on: `tests/fuzz-fixed/NAME.cl` and `NAME.words` (one word per
//! line, hexadecimal). Each program's kernels run in order on one output
//! buffer, as `ferrocl-fuzz --check` runs them; the buffer must equal the
//! words.
//!
//! - `h200-seed7008-p400015.reduced`: NVIDIA's Vulkan compiler (driver
//!   580) killed the process (SIGSEGV in `vkCreateComputePipelines`)
//!   compiling its kernel; spirv-reduce cut the final module down to a
//!   loop header's boolean phi of a value from before the loop, and the
//!   module with that phi as an integer phi (or without it) compiles
//!   (GPU runs 1 and 2 of session 23, H200). ferrocl now gives NVIDIA
//!   integer phis (`passes/widen_bool_phis.rs`). The words are PoCL's;
//!   NVIDIA's own OpenCL gives the same (run 2: `ferrocl-fuzz --check
//!   --ref NVIDIA`, all words agree). Fails (the process dies) on an H200
//!   with `FERROCL_INTEGER_BOOL_PHIS=0`.
//!
//! `FERROCL_FUZZ_BLESS=1` writes the `.words` files from the platform
//! under test instead (run it with PoCL, `FERROCL_TEST_PLATFORM=Portable`).

use ferrocl_tests::fuzz::exec::{Outcome, Platform};
use ferrocl_tests::fuzz::gen::Program;

const PROGRAMS: &[&str] = &["h200-seed7008-p400015.reduced"];

fn dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz-fixed")
}

fn words_of(text: &str) -> Vec<u64> {
    text.lines()
        .map(|l| u64::from_str_radix(l.trim().trim_start_matches("0x"), 16).expect("a hex word"))
        .collect()
}

#[test]
fn fixed_fuzz_programs_give_the_agreed_words() {
    let platform = Platform::open(&ferrocl_tests::info::platform_filter()).unwrap();
    let bless = std::env::var("FERROCL_FUZZ_BLESS").as_deref() == Ok("1");
    let mut failures = Vec::new();
    for name in PROGRAMS {
        let path = dir().join(format!("{name}.cl"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        let program = Program::parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let got = match platform.run(&program) {
            Outcome::Ran(words) => words,
            other => {
                failures.push(format!("{name}: {other:?}"));
                continue;
            }
        };
        let words_path = dir().join(format!("{name}.words"));
        if bless {
            let text: String = got.iter().map(|w| format!("{w:#x}\n")).collect();
            std::fs::write(&words_path, text).unwrap();
            continue;
        }
        let want = words_of(&std::fs::read_to_string(&words_path).unwrap());
        assert_eq!(got.len(), want.len(), "{name}: output length");
        let wrong: Vec<String> = (0..want.len())
            .filter(|&i| got[i] != want[i])
            .take(4)
            .map(|i| format!("word {i}: got {:#x}, want {:#x}", got[i], want[i]))
            .collect();
        if !wrong.is_empty() {
            failures.push(format!("{name}: {}", wrong.join("; ")));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
