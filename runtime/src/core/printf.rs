//! printf (DESIGN §4): the buffer a launch of a kernel with printf calls
//! writes its records into (`ferrocl_compiler::PrintfCall` has the layout),
//! and their formatting on the host once the launch completes.
//!
//! Each conversion is formatted by the C library's `snprintf` with the
//! flags, width and precision the kernel gave, so the output is what the
//! host's printf prints for the same values: integers are first cut to the
//! width the length modifier names (`hh`, `h`, none = 32 bits, `l` = 64
//! bits; for vectors the modifier names the element width; OpenCL C 3.1's
//! `z` and `t` (`size_t`, `ptrdiff_t`) the width of the argument the
//! kernel passed), floating-point
//! values are passed as double. Vector conversions (`%v4hlf`) format each
//! component and separate them with commas.
//!
//! Layer: foundation (pure formatting, no object): used by kernel launches
//! (`super::kernel`).

use std::ffi::{c_char, c_int, c_void, CString};
use std::io::Write;

use ferrocl_compiler::{PrintfArg, PrintfArgKind, PrintfCall};

/// Bytes of records a launch may write (CL_DEVICE_PRINTF_BUFFER_SIZE).
pub const PRINTF_CAPACITY: u32 = 1024 * 1024;

/// Size of the printf buffer of a kernel with `calls`: header, capacity,
/// and room past the capacity for one record that does not fit.
pub fn buffer_size(calls: &[PrintfCall]) -> u64 {
    let largest = calls.iter().map(PrintfCall::record_size).max().unwrap_or(0);
    8 + PRINTF_CAPACITY as u64 + largest as u64
}

/// The header a launch starts with: nothing used, the capacity.
pub fn header() -> [u8; 8] {
    let mut h = [0u8; 8];
    h[4..].copy_from_slice(&PRINTF_CAPACITY.to_le_bytes());
    h
}

/// Formats the records of a completed launch: `buffer` is the whole printf
/// buffer (header first).
pub fn format_buffer(calls: &[PrintfCall], strings: &[u8], buffer: &[u8]) -> Vec<u8> {
    let word = |i: usize| -> Option<u32> {
        Some(u32::from_le_bytes(buffer.get(i..i + 4)?.try_into().ok()?))
    };
    let (Some(used), Some(capacity)) = (word(0), word(4)) else {
        return Vec::new();
    };
    let end = 8 + used.min(capacity) as usize;
    let mut out = Vec::new();
    let mut pos = 8;
    while pos + 4 <= end {
        let Some(call) = word(pos).and_then(|i| calls.get(i as usize)) else {
            break;
        };
        let size = call.record_size();
        if pos + size > end {
            break;
        }
        let words: Vec<u32> = (pos + 4..pos + size).step_by(4).filter_map(word).collect();
        format_call(call, &words, strings, &mut out);
        pos += size;
    }
    out
}

/// Writes `text` to the process's standard output and flushes it.
pub fn print(text: &[u8]) {
    if text.is_empty() {
        return;
    }
    let mut out = std::io::stdout().lock();
    // Nothing sensible to do when stdout is gone.
    let _ = out.write_all(text);
    let _ = out.flush();
}

/// One conversion specification: `%[flags][width][.precision][vN][length]conv`.
struct Spec {
    flags: String,
    width: String,
    precision: Option<String>,
    vector: Option<u32>,
    length: String,
    conv: u8,
}

fn parse_spec(f: &[u8]) -> Option<(Spec, usize)> {
    let mut i = 0;
    let take = |i: &mut usize, pred: &dyn Fn(u8) -> bool| {
        let start = *i;
        while *i < f.len() && pred(f[*i]) {
            *i += 1;
        }
        String::from_utf8_lossy(&f[start..*i]).into_owned()
    };
    let flags = take(&mut i, &|c| b"-+ #0".contains(&c));
    let width = take(&mut i, &|c| c.is_ascii_digit());
    let precision = if f.get(i) == Some(&b'.') {
        i += 1;
        Some(take(&mut i, &|c| c.is_ascii_digit()))
    } else {
        None
    };
    let vector = if f.get(i) == Some(&b'v') {
        i += 1;
        Some(take(&mut i, &|c| c.is_ascii_digit()).parse().ok()?)
    } else {
        None
    };
    let length = take(&mut i, &|c| b"hlLjzt".contains(&c));
    let conv = *f.get(i)?;
    Some((
        Spec {
            flags,
            width,
            precision,
            vector,
            length,
            conv,
        },
        i + 1,
    ))
}

fn format_call(call: &PrintfCall, words: &[u32], strings: &[u8], out: &mut Vec<u8>) {
    let f = call.format.as_bytes();
    let mut args = call.args.iter();
    let mut at = 0usize;
    let mut i = 0;
    while i < f.len() {
        if f[i] != b'%' {
            out.push(f[i]);
            i += 1;
            continue;
        }
        if f.get(i + 1) == Some(&b'%') {
            out.push(b'%');
            i += 2;
            continue;
        }
        let Some((spec, n)) = parse_spec(&f[i + 1..]) else {
            out.extend_from_slice(&f[i..]);
            return;
        };
        i += 1 + n;
        let Some(arg) = args.next() else {
            continue;
        };
        let w = &words[at.min(words.len())..(at + arg.words()).min(words.len())];
        at += arg.words();
        format_arg(&spec, arg, w, strings, out);
    }
}

/// Raw bits of component `k` of an argument.
fn component(arg: &PrintfArg, words: &[u32], k: usize) -> u64 {
    let per = (arg.bytes as usize).div_ceil(4);
    let lo = words.get(k * per).copied().unwrap_or(0) as u64;
    let hi = if per > 1 {
        words.get(k * per + 1).copied().unwrap_or(0) as u64
    } else {
        0
    };
    lo | hi << 32
}

fn format_arg(spec: &Spec, arg: &PrintfArg, words: &[u32], strings: &[u8], out: &mut Vec<u8>) {
    let mut prefix = format!("%{}{}", spec.flags, spec.width);
    if let Some(p) = &spec.precision {
        prefix.push('.');
        prefix.push_str(p);
    }
    let conv = spec.conv as char;
    match spec.conv {
        b's' => {
            let s = match arg.kind {
                PrintfArgKind::String => {
                    let off = words.first().copied().unwrap_or(0) as usize;
                    let tail = strings.get(off..).unwrap_or_default();
                    let end = tail.iter().position(|&c| c == 0).unwrap_or(tail.len());
                    CString::new(&tail[..end]).unwrap_or_default()
                }
                _ => CString::new("(null)").unwrap_or_default(),
            };
            out.extend(c_format(&format!("{prefix}s"), Value::Str(&s)));
        }
        b'p' => {
            let v = component(arg, words, 0);
            out.extend(c_format(&format!("{prefix}p"), Value::Ptr(v)));
        }
        b'c' => {
            let v = component(arg, words, 0) as u8 as c_int;
            out.extend(c_format(&format!("{prefix}c"), Value::Int(v as i64)));
        }
        b'd' | b'i' | b'o' | b'u' | b'x' | b'X' => {
            let bits = match (spec.vector, spec.length.as_str()) {
                (_, "hh") => 8,
                (_, "h") => 16,
                (_, "l" | "ll" | "j") => 64,
                // size_t / ptrdiff_t: as wide as the argument the kernel
                // passed (64 bits: CL_DEVICE_ADDRESS_BITS).
                (_, "z" | "t") => (arg.bytes as u32 * 8).clamp(8, 64),
                (Some(_), _) => arg.bytes as u32 * 8,
                _ => 32,
            };
            let signed = matches!(spec.conv, b'd' | b'i');
            let fmt = format!("{prefix}ll{conv}");
            for k in 0..components(spec, arg) {
                if k > 0 {
                    out.push(b',');
                }
                let raw = component(arg, words, k);
                let v = if bits == 64 {
                    raw as i64
                } else if signed {
                    let sh = 64 - bits;
                    ((raw << sh) as i64) >> sh
                } else {
                    (raw & ((1u64 << bits) - 1)) as i64
                };
                out.extend(c_format(&fmt, Value::Int(v)));
            }
        }
        b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
            let fmt = format!("{prefix}{conv}");
            for k in 0..components(spec, arg) {
                if k > 0 {
                    out.push(b',');
                }
                let raw = component(arg, words, k);
                let v = match arg.bytes {
                    8 => f64::from_bits(raw),
                    2 => half_to_f64(raw as u16),
                    _ => f32::from_bits(raw as u32) as f64,
                };
                out.extend(c_format(&fmt, Value::Float(v)));
            }
        }
        _ => {
            // Not a conversion C knows: print it as written.
            out.extend_from_slice(prefix.as_bytes());
            out.extend_from_slice(spec.length.as_bytes());
            out.push(spec.conv);
        }
    }
}

fn components(spec: &Spec, arg: &PrintfArg) -> usize {
    match spec.vector {
        Some(n) => (n as usize).min(arg.components as usize),
        None => 1,
    }
}

fn half_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = ((h >> 10) & 0x1f) as i32;
    let man = (h & 0x3ff) as f64;
    sign * match exp {
        0 => man * 2f64.powi(-24),
        31 if man == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        e => (1.0 + man / 1024.0) * 2f64.powi(e - 15),
    }
}

enum Value<'a> {
    Int(i64),
    Float(f64),
    Str(&'a CString),
    Ptr(u64),
}

extern "C" {
    fn snprintf(buf: *mut c_char, size: usize, format: *const c_char, ...) -> c_int;
}

/// `snprintf(format, value)` into a new buffer.
fn c_format(format: &str, value: Value) -> Vec<u8> {
    let Ok(fmt) = CString::new(format) else {
        return Vec::new();
    };
    let mut buf = vec![0u8; 128];
    loop {
        let (p, n) = (buf.as_mut_ptr().cast::<c_char>(), buf.len());
        // SAFETY: `buf` has `n` writable bytes; `fmt` is a NUL-terminated
        // format with exactly one conversion whose C type matches the
        // value passed (long long, double, char*, void*).
        let r = unsafe {
            match value {
                Value::Int(v) => snprintf(p, n, fmt.as_ptr(), v as std::ffi::c_longlong),
                Value::Float(v) => snprintf(p, n, fmt.as_ptr(), v),
                Value::Str(s) => snprintf(p, n, fmt.as_ptr(), s.as_ptr()),
                Value::Ptr(v) => snprintf(p, n, fmt.as_ptr(), v as usize as *const c_void),
            }
        };
        let Ok(len) = usize::try_from(r) else {
            return Vec::new();
        };
        if len < n {
            buf.truncate(len);
            return buf;
        }
        buf.resize(len + 1, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arg(kind: PrintfArgKind, bytes: u8, components: u8) -> PrintfArg {
        PrintfArg {
            kind,
            bytes,
            components,
        }
    }

    fn buffer(records: &[Vec<u32>]) -> Vec<u8> {
        let words: Vec<u32> = records.iter().flatten().copied().collect();
        let mut b = header().to_vec();
        b[..4].copy_from_slice(&(4 * words.len() as u32).to_le_bytes());
        b.extend(words.iter().flat_map(|w| w.to_le_bytes()));
        b
    }

    #[test]
    fn formats_like_the_c_library() {
        let calls = vec![
            PrintfCall {
                format: "%d|%5.2f|%c|%ld|%s|%%|%x\n".into(),
                args: vec![
                    arg(PrintfArgKind::Int, 4, 1),
                    arg(PrintfArgKind::Float, 8, 1),
                    arg(PrintfArgKind::Int, 4, 1),
                    arg(PrintfArgKind::Int, 8, 1),
                    arg(PrintfArgKind::String, 4, 1),
                    arg(PrintfArgKind::Int, 4, 1),
                ],
            },
            PrintfCall {
                format: "%v4hlf %v2hhd %#v3hx %hhd %.3a\n".into(),
                args: vec![
                    arg(PrintfArgKind::Float, 4, 4),
                    arg(PrintfArgKind::Int, 1, 2),
                    arg(PrintfArgKind::Int, 2, 3),
                    arg(PrintfArgKind::Int, 4, 1),
                    arg(PrintfArgKind::Float, 8, 1),
                ],
            },
        ];
        let strings = b"xx\0hello\0";
        let d = 1.23456f64.to_bits();
        let l = (-5_000_000_000i64) as u64;
        let a = 1.0f64.to_bits();
        let recs = vec![
            vec![
                0,
                (-42i32) as u32,
                d as u32,
                (d >> 32) as u32,
                'Z' as u32,
                l as u32,
                (l >> 32) as u32,
                3,
                255,
            ],
            vec![
                1,
                1.5f32.to_bits(),
                (-2.0f32).to_bits(),
                0.0f32.to_bits(),
                100.0f32.to_bits(),
                0xff,
                7,
                0x10,
                0xabc,
                0,
                300,
                a as u32,
                (a >> 32) as u32,
            ],
        ];
        let out = format_buffer(&calls, strings, &buffer(&recs));
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "-42| 1.23|Z|-5000000000|hello|%|ff\n\
             1.500000,-2.000000,0.000000,100.000000 -1,7 0x10,0xabc,0 44 0x1.000p+0\n"
        );
    }

    #[test]
    fn size_modifiers_take_the_width_of_the_argument() {
        let calls = vec![PrintfCall {
            format: "%zu %zd %tx %td|%zu %td\n".into(),
            args: vec![
                arg(PrintfArgKind::Int, 8, 1),
                arg(PrintfArgKind::Int, 8, 1),
                arg(PrintfArgKind::Int, 8, 1),
                arg(PrintfArgKind::Int, 8, 1),
                arg(PrintfArgKind::Int, 4, 1),
                arg(PrintfArgKind::Int, 4, 1),
            ],
        }];
        let big = 0x1_2345_6789u64;
        let neg = (-5_000_000_000i64) as u64;
        let words = |v: u64| [v as u32, (v >> 32) as u32];
        let mut rec = vec![0];
        for v in [big, big, neg, neg] {
            rec.extend(words(v));
        }
        rec.extend([u32::MAX, (-3i32) as u32]);
        let out = format_buffer(&calls, &[], &buffer(&[rec]));
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "4886718345 4886718345 fffffffed5fa0e00 -5000000000|4294967295 -3\n"
        );
    }

    #[test]
    fn stops_at_the_capacity() {
        let calls = vec![PrintfCall {
            format: "%d\n".into(),
            args: vec![arg(PrintfArgKind::Int, 4, 1)],
        }];
        let mut b = buffer(&[vec![0, 1], vec![0, 2]]);
        // Three records were reserved; only the first two fit (capacity 16).
        b[..4].copy_from_slice(&24u32.to_le_bytes());
        b[4..8].copy_from_slice(&16u32.to_le_bytes());
        assert_eq!(format_buffer(&calls, &[], &b), b"1\n2\n");
        b[4..8].copy_from_slice(&12u32.to_le_bytes());
        assert_eq!(format_buffer(&calls, &[], &b), b"1\n");
    }
}
