//! Malformed-input fuzzing of clCreateProgramWithIL and
//! clCreateProgramWithBinary: valid seeds ([`seeds`]) mutated
//! ([`mutate`]) and run through create, build, kernel creation and a
//! launch ([`run`]). The driver, with its worker processes, is
//! `src/bin/ferrocl-ilfuzz.rs`; tests/README.md says how to run it.
//!
//! Every mutant must end in a CL error code (with a build log when the
//! build fails) or in a working program: a crash, a hang, a panic (even
//! one ferrocl catches) or an internal compiler error is a defect.

pub mod mutate;
pub mod run;
pub mod seeds;

use crate::fuzz::rng::Rng;
use seeds::Seed;

/// Percentage of mutants made from a program binary, when there are
/// binary seeds.
pub const BINARY_PERCENT: u32 = 30;

/// Mutant `index` of run seed `seed` over `seeds` (not empty): which seed
/// it starts from, its bytes and what was done to them.
pub fn mutant(seed: u64, index: u64, seeds: &[Seed]) -> (usize, Vec<u8>, mutate::Log) {
    let mut rng = Rng::for_item(seed, index);
    let binary = seeds.iter().any(|s| s.binary)
        && (seeds.iter().all(|s| s.binary) || rng.chance(BINARY_PERCENT));
    let pool: Vec<usize> = (0..seeds.len())
        .filter(|&i| seeds[i].binary == binary)
        .collect();
    let s = *rng.pick(&pool);
    let (bytes, log) = mutate::mutate(&seeds[s].bytes, seeds[s].binary, &mut rng);
    (s, bytes, log)
}
