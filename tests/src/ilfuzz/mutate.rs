//! Mutations of SPIR-V modules and ferrocl program binaries.
//!
//! A mutant is a valid seed with one to four mutations applied, chosen by
//! a [`Rng`] stream: mutant `i` of run seed `S` is always the same bytes.
//! SPIR-V mutations know the module's layout (5-word header, then
//! instructions whose first word is `word count << 16 | opcode`), so that
//! most mutants get past the first checks and into the compiler; binary
//! mutations know the binary's layout (`compiler/src/backend/binary/`) and
//! usually recompute its checksum, so that they reach the decoder and the
//! kernels it hands to the driver.

use crate::fuzz::rng::Rng;

/// SPIR-V's magic number.
pub const SPIRV_MAGIC: u32 = 0x0723_0203;

/// Words that make good replacements: the extremes, and values one off.
const INTERESTING: [u32; 10] = [
    0,
    1,
    2,
    0x7f,
    0xffff,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_fffe,
    0xffff_ffff,
    0x0001_0000,
];

/// What a mutation did, for the report.
pub type Log = Vec<String>;

/// Instruction boundaries of a module's words: (start, word count) of each
/// instruction whose count is sane, stopping at the first that is not.
pub fn instructions(words: &[u32]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 5;
    while i < words.len() {
        let n = (words[i] >> 16) as usize;
        if n == 0 || i + n > words.len() {
            break;
        }
        out.push((i, n));
        i += n;
    }
    out
}

fn to_words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect()
}

fn to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The result-type ids (`OpType*`, opcodes 19..=39) of a module.
fn type_ids(words: &[u32]) -> Vec<u32> {
    instructions(words)
        .into_iter()
        .filter(|&(s, n)| n >= 2 && (19..=39).contains(&(words[s] & 0xffff)))
        .map(|(s, _)| words[s + 1])
        .collect()
}

/// One mutation of a little-endian SPIR-V module (`bytes`, a whole number
/// of words when it starts; truncations may leave a partial word).
pub fn mutate_spirv(bytes: &mut Vec<u8>, rng: &mut Rng, log: &mut Log) {
    if bytes.len() < 24 || bytes.len() % 4 != 0 {
        mutate_bytes(bytes, rng, log);
        return;
    }
    let mut words = to_words(bytes);
    let bound = words[3];
    let insts = instructions(&words);
    let any_word = |rng: &mut Rng, words: &[u32]| rng.below(words.len());
    let some_value = |rng: &mut Rng| -> u32 {
        match rng.below(4) {
            0 => *rng.pick(&INTERESTING),
            1 => bound.wrapping_add(rng.below(3) as u32).wrapping_sub(1),
            2 => rng.below(bound.max(1) as usize) as u32,
            _ => rng.next_u64() as u32,
        }
    };
    match rng.weighted(&[8, 6, 3, 4, 4, 4, 4, 3, 6, 8, 4, 4, 5, 1]) {
        0 => {
            let i = rng.below(bytes.len() * 8);
            bytes[i / 8] ^= 1 << (i % 8);
            log.push(format!("flip bit {} of byte {}", i % 8, i / 8));
            return;
        }
        1 => {
            let i = any_word(rng, &words);
            let v = some_value(rng);
            log.push(format!("word {i}: {:#x} -> {v:#x}", words[i]));
            words[i] = v;
        }
        2 => {
            let i = rng.below(bytes.len());
            let v = *rng.pick(&[0u8, 0xff, 0x7f, 0x80, 1]);
            log.push(format!("byte {i}: {:#x} -> {v:#x}", bytes[i]));
            bytes[i] = v;
            return;
        }
        3 => {
            // Mostly at an instruction boundary, sometimes mid-word.
            let at = if rng.chance(70) && !insts.is_empty() {
                rng.pick(&insts).0 * 4
            } else {
                rng.below(bytes.len())
            };
            log.push(format!("truncate to {at} bytes"));
            bytes.truncate(at);
            return;
        }
        4 => {
            let i = rng.below(words.len() + 1);
            let v = some_value(rng);
            log.push(format!("insert {v:#x} at word {i}"));
            words.insert(i, v);
        }
        5 => {
            let i = any_word(rng, &words);
            log.push(format!("delete word {i} ({:#x})", words[i]));
            words.remove(i);
        }
        6 if insts.len() >= 2 => {
            let a = rng.below(insts.len() - 1);
            let b = rng.range(a + 1, insts.len() - 1);
            log.push(format!("swap instructions {a} and {b}"));
            let (sa, na) = insts[a];
            let (sb, nb) = insts[b];
            let mut out = words[..sa].to_vec();
            out.extend_from_slice(&words[sb..sb + nb]);
            out.extend_from_slice(&words[sa + na..sb]);
            out.extend_from_slice(&words[sa..sa + na]);
            out.extend_from_slice(&words[sb + nb..]);
            words = out;
        }
        7 if !insts.is_empty() => {
            let (s, n) = *rng.pick(&insts);
            if rng.chance(50) {
                log.push(format!("delete the instruction at word {s}"));
                words.drain(s..s + n);
            } else {
                log.push(format!("duplicate the instruction at word {s}"));
                let copy = words[s..s + n].to_vec();
                let at = rng.pick(&insts).0;
                words.splice(at..at, copy);
            }
        }
        8 if !insts.is_empty() => {
            // Another opcode of the module, or any opcode up to 400.
            let (s, _) = *rng.pick(&insts);
            let op = if rng.chance(70) {
                words[rng.pick(&insts).0] & 0xffff
            } else {
                rng.below(400) as u32
            };
            log.push(format!("opcode at word {s}: {} -> {op}", words[s] & 0xffff));
            words[s] = (words[s] & 0xffff_0000) | op;
        }
        9 if !insts.is_empty() => {
            // An operand that names an id: another id, or one out of range.
            let (s, n) = *rng.pick(&insts);
            if n < 2 {
                return;
            }
            let i = s + 1 + rng.below(n - 1);
            let v = match rng.below(4) {
                0 => 0,
                1 => bound.wrapping_add(rng.below(2) as u32),
                _ => 1 + rng.below(bound.max(2) as usize - 1) as u32,
            };
            log.push(format!("operand word {i}: {:#x} -> {v}", words[i]));
            words[i] = v;
        }
        10 if !insts.is_empty() => {
            // The result type of an instruction becomes another type.
            let types = type_ids(&words);
            let (s, n) = *rng.pick(&insts);
            if types.is_empty() || n < 3 {
                return;
            }
            let t = *rng.pick(&types);
            log.push(format!(
                "type operand at word {}: {} -> {t}",
                s + 1,
                words[s + 1]
            ));
            words[s + 1] = t;
        }
        11 if !insts.is_empty() => {
            let (s, n) = *rng.pick(&insts);
            let c = *rng.pick(&[0u32, 1, 0xffff, n as u32 + 1, n as u32 - 1, 0x8000]);
            log.push(format!("word count at word {s}: {n} -> {c}"));
            words[s] = (c << 16) | (words[s] & 0xffff);
        }
        12 => {
            let field = rng.below(5);
            let v = match field {
                0 => *rng.pick(&[0, SPIRV_MAGIC.swap_bytes(), SPIRV_MAGIC ^ 1, 0xffff_ffff]),
                1 => *rng.pick(&[
                    0,
                    0x0001_0000,
                    0x0001_0500,
                    0x0001_0600,
                    0x0002_0000,
                    0xffff_ffff,
                ]),
                3 => *rng.pick(&[
                    0,
                    1,
                    2,
                    bound.wrapping_sub(1),
                    bound.wrapping_add(1),
                    0x0040_0000,
                    0xffff_ffff,
                ]),
                _ => some_value(rng),
            };
            log.push(format!(
                "header word {field}: {:#x} -> {v:#x}",
                words[field]
            ));
            words[field] = v;
        }
        13 => {
            // A big-endian module: valid, and a rarely taken path.
            log.push("byte-swap every word".into());
            for w in &mut words {
                *w = w.swap_bytes();
            }
        }
        _ => {
            let i = any_word(rng, &words);
            log.push(format!("word {i}: {:#x} -> 0", words[i]));
            words[i] = 0;
        }
    }
    *bytes = to_bytes(&words);
}

/// Byte-level mutations for anything: flips, overwrites, truncation,
/// insertion and deletion.
pub fn mutate_bytes(bytes: &mut Vec<u8>, rng: &mut Rng, log: &mut Log) {
    if bytes.is_empty() {
        bytes.extend_from_slice(&[0; 4]);
        log.push("grow from empty".into());
        return;
    }
    match rng.below(6) {
        0 => {
            let i = rng.below(bytes.len() * 8);
            bytes[i / 8] ^= 1 << (i % 8);
            log.push(format!("flip bit {} of byte {}", i % 8, i / 8));
        }
        1 => {
            let i = rng.below(bytes.len());
            let v = *rng.pick(&[0u8, 0xff, 0x7f, 0x80, 1]);
            log.push(format!("byte {i} -> {v:#x}"));
            bytes[i] = v;
        }
        2 if bytes.len() >= 4 => {
            let i = rng.below(bytes.len() - 3);
            let v = *rng.pick(&INTERESTING);
            log.push(format!("u32 at byte {i} -> {v:#x}"));
            bytes[i..i + 4].copy_from_slice(&v.to_le_bytes());
        }
        3 => {
            let at = rng.below(bytes.len());
            log.push(format!("truncate to {at} bytes"));
            bytes.truncate(at);
        }
        4 => {
            let i = rng.below(bytes.len() + 1);
            let n = rng.range(1, 8);
            log.push(format!("insert {n} bytes at {i}"));
            let fill: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
            bytes.splice(i..i, fill);
        }
        _ => {
            let i = rng.below(bytes.len());
            let n = rng.range(1, 8).min(bytes.len() - i);
            log.push(format!("delete {n} bytes at {i}"));
            bytes.drain(i..i + n);
        }
    }
}

/// FNV-1a 64, the binary format's checksum.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Recomputes a ferrocl binary's trailing checksum, so that a mutant
/// reaches the decoder past the integrity check.
pub fn fix_checksum(bytes: &mut [u8]) {
    if bytes.len() < 8 {
        return;
    }
    let n = bytes.len() - 8;
    let sum = fnv1a(&bytes[..n]);
    bytes[n..].copy_from_slice(&sum.to_le_bytes());
}

/// Byte offsets of the SPIR-V modules a binary embeds (the kernels of an
/// executable): where the magic number starts, after its length word.
pub fn embedded_modules(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let magic = SPIRV_MAGIC.to_le_bytes();
    let mut i = 4;
    while i + 4 <= bytes.len() {
        if bytes[i..i + 4] == magic {
            let len = u32::from_le_bytes(bytes[i - 4..i].try_into().expect("4 bytes")) as usize;
            // The length is in words or bytes depending on the writer:
            // take whichever fits.
            let n = [len * 4, len]
                .into_iter()
                .find(|&n| n >= 20 && i + n <= bytes.len())
                .unwrap_or(0);
            if n > 0 {
                out.push((i, n));
                i += n;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// Offsets of u32 values that look like lengths or counts: non-zero and
/// no larger than the bytes that follow them.
fn length_fields(bytes: &[u8]) -> Vec<usize> {
    (8..bytes.len().saturating_sub(12))
        .filter(|&i| {
            let v = u32::from_le_bytes(bytes[i..i + 4].try_into().expect("4 bytes")) as usize;
            v > 0 && v <= bytes.len() - i - 4
        })
        .collect()
}

/// One mutation of a ferrocl program binary, then (usually) its checksum
/// recomputed.
pub fn mutate_binary(bytes: &mut Vec<u8>, rng: &mut Rng, log: &mut Log) {
    match rng.weighted(&[3, 3, 3, 4]) {
        0 => {
            // Header: magic, format version, fingerprint length.
            let (at, v) = *rng.pick(&[
                (0usize, 0u32),
                (8, 0),
                (8, 15),
                (8, 17),
                (8, 0xffff_ffff),
                (12, 0),
                (12, 0xffff_ffff),
                (12, 1000),
            ]);
            if at + 4 <= bytes.len() {
                log.push(format!("header u32 at byte {at} -> {v:#x}"));
                bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
        1 => {
            let fields = length_fields(bytes);
            if fields.is_empty() {
                mutate_bytes(bytes, rng, log);
            } else {
                let at = *rng.pick(&fields);
                let old = u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
                let v = *rng.pick(&[
                    0,
                    old.wrapping_add(1),
                    old.wrapping_sub(1),
                    old.wrapping_mul(2),
                    0xffff_ffff,
                    0x7fff_ffff,
                    0x1000_0000,
                ]);
                log.push(format!("length-like u32 at byte {at}: {old} -> {v:#x}"));
                bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
        2 => {
            let modules = embedded_modules(bytes);
            if modules.is_empty() {
                mutate_bytes(bytes, rng, log);
            } else {
                let (at, n) = *rng.pick(&modules);
                let mut module = bytes[at..at + n].to_vec();
                let mut inner = Log::new();
                mutate_spirv(&mut module, rng, &mut inner);
                if module.len() == n {
                    log.push(format!("kernel module at byte {at}: {}", inner.join("; ")));
                    bytes[at..at + n].copy_from_slice(&module);
                } else {
                    // Keep the container's lengths: overwrite a word instead.
                    let i = at + 4 * rng.below(n / 4);
                    let v = *rng.pick(&INTERESTING);
                    log.push(format!("kernel module word at byte {i} -> {v:#x}"));
                    bytes[i..i + 4].copy_from_slice(&v.to_le_bytes());
                }
            }
        }
        _ => mutate_bytes(bytes, rng, log),
    }
    if rng.chance(85) {
        fix_checksum(bytes);
        log.push("checksum recomputed".into());
    }
}

/// Applies one to four mutations (`binary` picks the binary mutator).
pub fn mutate(seed: &[u8], binary: bool, rng: &mut Rng) -> (Vec<u8>, Log) {
    let mut bytes = seed.to_vec();
    let mut log = Log::new();
    let n = *rng.pick(&[1, 1, 1, 2, 2, 3, 4]);
    for _ in 0..n {
        if binary {
            mutate_binary(&mut bytes, rng, &mut log);
        } else {
            mutate_spirv(&mut bytes, rng, &mut log);
        }
    }
    (bytes, log)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small module: header, OpCapability Kernel, OpMemoryModel, a
    /// string-carrying OpEntryPoint.
    fn module() -> Vec<u8> {
        let words = [
            SPIRV_MAGIC,
            0x0001_0400,
            0,
            8,
            0,
            2 << 16 | 17,
            6,
            3 << 16 | 14,
            2,
            2,
            4 << 16 | 15,
            6,
            1,
            0x6b,
        ];
        to_bytes(&words)
    }

    /// Mutations applied on top of each other (so that zero bounds, empty
    /// inputs and truncated headers come up) never panic, and the same
    /// stream gives the same bytes.
    #[test]
    fn chained_mutations_never_panic_and_repeat() {
        for binary in [false, true] {
            let mut rng = Rng::new(7);
            let mut bytes = module();
            for i in 0..20_000 {
                if i % 50 == 0 {
                    bytes = module();
                }
                let mut log = Log::new();
                if binary {
                    mutate_binary(&mut bytes, &mut rng, &mut log);
                } else {
                    mutate_spirv(&mut bytes, &mut rng, &mut log);
                }
            }
        }
        let a = mutate(&module(), false, &mut Rng::new(3));
        let b = mutate(&module(), false, &mut Rng::new(3));
        assert_eq!(a, b);
    }
}
