//! The regression gate of ferrocl-bench: a committed baseline of ratios
//! (FIRST / SECOND per row, measured in one run on one card) and the
//! comparison of a new run against it.
//!
//! Baseline file (JSON, written by `--write-baseline`, read by `--check`):
//!
//! ```json
//! {
//!   "card": "NVIDIA H100 80GB HBM3",
//!   "driver": "580.159.04",
//!   "date": "2026-11-26",
//!   "first": "ferrocl / NVIDIA H100 80GB HBM3",
//!   "second": "NVIDIA CUDA / NVIDIA H100 80GB HBM3",
//!   "sizes": "full",
//!   "tolerance": 0.1,
//!   "rows": [
//!     {"name": "kernel launch latency (enqueue+finish)", "unit": "us",
//!      "higher_better": false, "ratio": 1.57},
//!     {"name": "fp32 compute (float4 mad)", "unit": "GFLOPS",
//!      "higher_better": true, "ratio": 0.91, "tolerance": 0.2}
//!   ]
//! }
//! ```
//!
//! `card` is the second (reference) platform's CL_DEVICE_NAME and
//! `driver` its CL_DRIVER_VERSION; `sizes` is `quick` or `full` (the
//! workload sizes, which `--check` reuses); `tolerance` is how much worse
//! than its baseline a row may get, as a fraction, and a row may carry its
//! own. A row is worse by `(base - now) / base` where higher is better and
//! `(now - base) / base` where lower is better (times, latencies), so
//! "10 % worse" means the same in both directions. A row that gets worse
//! by more than its tolerance fails the check; so does a baseline row the
//! run did not produce (renamed or dropped rows need a new baseline). Rows
//! the baseline lacks are listed as new and do not fail.

use std::fmt::Write as _;

/// Default tolerance: a row may get 10 % worse than its baseline.
pub const TOLERANCE: f64 = 0.10;

#[derive(Clone, Debug, PartialEq)]
pub struct Baseline {
    pub card: String,
    pub driver: String,
    pub date: String,
    pub first: String,
    pub second: String,
    pub sizes: String,
    pub tolerance: f64,
    pub rows: Vec<BaseRow>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct BaseRow {
    pub name: String,
    pub unit: String,
    pub higher_better: bool,
    pub ratio: f64,
    /// Overrides the baseline's tolerance for this row.
    pub tolerance: Option<f64>,
}

/// One row of a run: FIRST / SECOND (`None` when it could not be formed).
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    pub name: String,
    pub unit: String,
    pub higher_better: bool,
    pub ratio: Option<f64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Better than the baseline, or worse within the tolerance.
    Pass,
    /// Worse than the baseline by more than the tolerance.
    Worse,
    /// In the baseline, not in the run (or no ratio).
    Missing,
    /// In the run, not in the baseline.
    New,
}

/// One line of the check's table.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub name: String,
    pub higher_better: bool,
    pub base: Option<f64>,
    pub now: Option<f64>,
    /// How much worse than the baseline, as a fraction (negative: better).
    pub worse_by: Option<f64>,
    pub tolerance: f64,
    pub verdict: Verdict,
}

/// How much worse `now` is than `base`, as a fraction of `base`
/// (negative when better), in the row's direction.
pub fn worse_by(base: f64, now: f64, higher_better: bool) -> f64 {
    if higher_better {
        (base - now) / base
    } else {
        (now - base) / base
    }
}

/// Compares a run with the baseline, row by row: the baseline's rows in
/// its order, then the run's new rows.
pub fn compare(base: &Baseline, run: &[Measured]) -> Vec<Line> {
    let mut lines = Vec::new();
    for b in &base.rows {
        let tolerance = b.tolerance.unwrap_or(base.tolerance);
        let now = run
            .iter()
            .find(|m| m.name == b.name)
            .and_then(|m| m.ratio)
            .filter(|r| r.is_finite() && *r > 0.0);
        let worse = now.map(|n| worse_by(b.ratio, n, b.higher_better));
        let verdict = match worse {
            None => Verdict::Missing,
            // A hair of slack against the rounding of a ratio written
            // with few digits.
            Some(w) if w > tolerance + 1e-9 => Verdict::Worse,
            Some(_) => Verdict::Pass,
        };
        lines.push(Line {
            name: b.name.clone(),
            higher_better: b.higher_better,
            base: Some(b.ratio),
            now,
            worse_by: worse,
            tolerance,
            verdict,
        });
    }
    for m in run {
        if !base.rows.iter().any(|b| b.name == m.name) {
            lines.push(Line {
                name: m.name.clone(),
                higher_better: m.higher_better,
                base: None,
                now: m.ratio,
                worse_by: None,
                tolerance: base.tolerance,
                verdict: Verdict::New,
            });
        }
    }
    lines
}

/// Whether the check fails: a row worse beyond its tolerance, or missing.
pub fn failed(lines: &[Line]) -> bool {
    lines
        .iter()
        .any(|l| matches!(l.verdict, Verdict::Worse | Verdict::Missing))
}

/// The check's table, one row per line.
pub fn table(lines: &[Line]) -> String {
    let dir = |l: &Line| {
        if l.higher_better {
            ""
        } else {
            " (lower better)"
        }
    };
    let width = lines
        .iter()
        .map(|l| l.name.len() + dir(l).len())
        .max()
        .unwrap_or(0)
        .max(24);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<width$} {:>10} {:>10} {:>9} {:>6}  verdict",
        "row (ratio FIRST/SECOND)", "baseline", "now", "worse by", "limit"
    );
    let num = |x: Option<f64>| x.map_or_else(|| "-".to_string(), |v| format!("{v:.3}"));
    for l in lines {
        let verdict = match l.verdict {
            Verdict::Pass => "ok",
            Verdict::Worse => "WORSE",
            Verdict::Missing => "MISSING",
            Verdict::New => "new (not in baseline)",
        };
        let _ = writeln!(
            s,
            "{:<width$} {:>10} {:>10} {:>9} {:>6}  {verdict}",
            format!("{}{}", l.name, dir(l)),
            num(l.base),
            num(l.now),
            l.worse_by
                .map_or_else(|| "-".to_string(), |w| format!("{:+.1}%", w * 100.0)),
            format!("{:.0}%", l.tolerance * 100.0),
        );
    }
    s
}

/// A file-name-safe form of a card name: `NVIDIA H100 80GB HBM3` →
/// `nvidia-h100-80gb-hbm3`.
pub fn slug(card: &str) -> String {
    let mut s = String::new();
    for c in card.chars() {
        if c.is_ascii_alphanumeric() {
            s.push(c.to_ascii_lowercase());
        } else if !s.ends_with('-') && !s.is_empty() {
            s.push('-');
        }
    }
    s.trim_end_matches('-').to_string()
}

/// Today's date (UTC) as YYYY-MM-DD.
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    civil_date((secs / 86400) as i64)
}

/// The proleptic Gregorian date of `days` since 1970-01-01 (Howard
/// Hinnant's `civil_from_days`).
fn civil_date(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

fn json_string(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// The baseline as JSON (the format of the module doc).
pub fn to_json(b: &Baseline) -> String {
    let mut s = String::from("{\n");
    for (k, v) in [
        ("card", &b.card),
        ("driver", &b.driver),
        ("date", &b.date),
        ("first", &b.first),
        ("second", &b.second),
        ("sizes", &b.sizes),
    ] {
        let _ = writeln!(s, "  {}: {},", json_string(k), json_string(v));
    }
    let _ = writeln!(s, "  \"tolerance\": {},", b.tolerance);
    s.push_str("  \"rows\": [\n");
    for (i, r) in b.rows.iter().enumerate() {
        let _ = write!(
            s,
            "    {{\"name\": {}, \"unit\": {}, \"higher_better\": {}, \"ratio\": {}",
            json_string(&r.name),
            json_string(&r.unit),
            r.higher_better,
            r.ratio
        );
        if let Some(t) = r.tolerance {
            let _ = write!(s, ", \"tolerance\": {t}");
        }
        s.push('}');
        s.push_str(if i + 1 < b.rows.len() { ",\n" } else { "\n" });
    }
    s.push_str("  ]\n}\n");
    s
}

/// A JSON value (what the baseline file needs of JSON).
#[derive(Clone, Debug, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(kv) => kv.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    fn str(&self, key: &str) -> Result<String, String> {
        match self.get(key) {
            Some(Json::Str(s)) => Ok(s.clone()),
            _ => Err(format!("\"{key}\": a string expected")),
        }
    }
    fn num(&self, key: &str) -> Result<f64, String> {
        match self.get(key) {
            Some(Json::Num(n)) => Ok(*n),
            _ => Err(format!("\"{key}\": a number expected")),
        }
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn err<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("{what} at byte {}", self.i))
    }
    fn eat(&mut self, c: u8) -> Result<(), String> {
        self.ws();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            Ok(())
        } else {
            self.err(&format!("'{}' expected", c as char))
        }
    }
    fn value(&mut self) -> Result<Json, String> {
        self.ws();
        match self.s.get(self.i) {
            Some(b'{') => {
                self.i += 1;
                let mut kv = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b'}') {
                    self.i += 1;
                    return Ok(Json::Obj(kv));
                }
                loop {
                    self.ws();
                    let Json::Str(k) = self.value()? else {
                        return self.err("a key expected");
                    };
                    self.eat(b':')?;
                    kv.push((k, self.value()?));
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            return Ok(Json::Obj(kv));
                        }
                        _ => return self.err("',' or '}' expected"),
                    }
                }
            }
            Some(b'[') => {
                self.i += 1;
                let mut v = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b']') {
                    self.i += 1;
                    return Ok(Json::Arr(v));
                }
                loop {
                    v.push(self.value()?);
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            return Ok(Json::Arr(v));
                        }
                        _ => return self.err("',' or ']' expected"),
                    }
                }
            }
            Some(b'"') => {
                self.i += 1;
                let mut out = String::new();
                loop {
                    let Some(&c) = self.s.get(self.i) else {
                        return self.err("unterminated string");
                    };
                    self.i += 1;
                    match c {
                        b'"' => return Ok(Json::Str(out)),
                        b'\\' => {
                            let Some(&e) = self.s.get(self.i) else {
                                return self.err("unterminated escape");
                            };
                            self.i += 1;
                            match e {
                                b'n' => out.push('\n'),
                                b't' => out.push('\t'),
                                b'u' => {
                                    let hex = self
                                        .s
                                        .get(self.i..self.i + 4)
                                        .and_then(|h| std::str::from_utf8(h).ok())
                                        .and_then(|h| u32::from_str_radix(h, 16).ok())
                                        .and_then(char::from_u32);
                                    let Some(ch) = hex else {
                                        return self.err("bad \\u escape");
                                    };
                                    out.push(ch);
                                    self.i += 4;
                                }
                                other => out.push(other as char),
                            }
                        }
                        _ => {
                            // Copy a whole UTF-8 sequence.
                            let start = self.i - 1;
                            let mut end = self.i;
                            while end < self.s.len() && (self.s[end] & 0xC0) == 0x80 {
                                end += 1;
                            }
                            out.push_str(&String::from_utf8_lossy(&self.s[start..end]));
                            self.i = end;
                        }
                    }
                }
            }
            Some(b't') if self.s[self.i..].starts_with(b"true") => {
                self.i += 4;
                Ok(Json::Bool(true))
            }
            Some(b'f') if self.s[self.i..].starts_with(b"false") => {
                self.i += 5;
                Ok(Json::Bool(false))
            }
            Some(b'n') if self.s[self.i..].starts_with(b"null") => {
                self.i += 4;
                Ok(Json::Null)
            }
            Some(c) if *c == b'-' || c.is_ascii_digit() => {
                let start = self.i;
                while self.i < self.s.len()
                    && matches!(
                        self.s[self.i],
                        b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'
                    )
                {
                    self.i += 1;
                }
                std::str::from_utf8(&self.s[start..self.i])
                    .ok()
                    .and_then(|t| t.parse().ok())
                    .map(Json::Num)
                    .ok_or_else(|| format!("bad number at byte {start}"))
            }
            _ => self.err("a value expected"),
        }
    }
}

/// Reads a baseline file's text.
pub fn from_json(text: &str) -> Result<Baseline, String> {
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
    };
    let v = p.value()?;
    p.ws();
    if p.i != p.s.len() {
        return p.err("trailing text");
    }
    let Some(Json::Arr(rows)) = v.get("rows") else {
        return Err("\"rows\": an array expected".into());
    };
    let rows = rows
        .iter()
        .map(|r| {
            Ok(BaseRow {
                name: r.str("name")?,
                unit: r.str("unit").unwrap_or_default(),
                higher_better: match r.get("higher_better") {
                    Some(Json::Bool(b)) => *b,
                    _ => return Err("\"higher_better\": true or false expected".to_string()),
                },
                ratio: r.num("ratio")?,
                tolerance: r.num("tolerance").ok(),
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(Baseline {
        card: v.str("card")?,
        driver: v.str("driver").unwrap_or_default(),
        date: v.str("date").unwrap_or_default(),
        first: v.str("first").unwrap_or_default(),
        second: v.str("second").unwrap_or_default(),
        sizes: v.str("sizes").unwrap_or_else(|_| "full".into()),
        tolerance: v.num("tolerance").unwrap_or(TOLERANCE),
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base(rows: &[(&str, bool, f64)]) -> Baseline {
        Baseline {
            card: "Card X".into(),
            driver: "1.0".into(),
            date: "2026-11-26".into(),
            first: "ferrocl / Card X".into(),
            second: "Ref / Card X".into(),
            sizes: "full".into(),
            tolerance: TOLERANCE,
            rows: rows
                .iter()
                .map(|(n, hb, r)| BaseRow {
                    name: n.to_string(),
                    unit: "u".into(),
                    higher_better: *hb,
                    ratio: *r,
                    tolerance: None,
                })
                .collect(),
        }
    }

    fn run(rows: &[(&str, bool, f64)]) -> Vec<Measured> {
        rows.iter()
            .map(|(n, hb, r)| Measured {
                name: n.to_string(),
                unit: "u".into(),
                higher_better: *hb,
                ratio: Some(*r),
            })
            .collect()
    }

    fn verdicts(b: &Baseline, r: &[Measured]) -> Vec<Verdict> {
        compare(b, r).iter().map(|l| l.verdict).collect()
    }

    #[test]
    fn better_equal_and_slightly_worse_rows_pass() {
        // Higher is better (bandwidth): 0.80 is the baseline ratio.
        let b = base(&[("bw", true, 0.80), ("lat", false, 2.0)]);
        for (bw, lat) in [
            (0.95, 1.5),               // better
            (0.80, 2.0),               // equal
            (0.80 * 0.91, 2.0 * 1.09), // 9 % worse
            (0.80 * 0.90, 2.0 * 1.10), // exactly at the limit
        ] {
            let lines = compare(&b, &run(&[("bw", true, bw), ("lat", false, lat)]));
            assert!(!failed(&lines), "{bw} {lat}:\n{}", table(&lines));
        }
    }

    #[test]
    fn a_row_eleven_percent_worse_fails() {
        let b = base(&[("bw", true, 0.80), ("lat", false, 2.0)]);
        // Bandwidth ratio 11 % lower.
        let r = run(&[("bw", true, 0.80 * 0.89), ("lat", false, 2.0)]);
        assert_eq!(verdicts(&b, &r), [Verdict::Worse, Verdict::Pass]);
        assert!(failed(&compare(&b, &r)));
        // Latency ratio 11 % higher (lower is better).
        let r = run(&[("bw", true, 0.80), ("lat", false, 2.0 * 1.11)]);
        assert_eq!(verdicts(&b, &r), [Verdict::Pass, Verdict::Worse]);
        assert!(failed(&compare(&b, &r)));
        // A latency ratio 11 % lower is better, not worse.
        let r = run(&[("bw", true, 0.80), ("lat", false, 2.0 * 0.89)]);
        assert!(!failed(&compare(&b, &r)));
    }

    #[test]
    fn worse_by_is_direction_aware() {
        assert!((worse_by(2.0, 1.8, true) - 0.10).abs() < 1e-12);
        assert!((worse_by(2.0, 2.2, false) - 0.10).abs() < 1e-12);
        assert!(worse_by(2.0, 2.2, true) < 0.0);
        assert!(worse_by(2.0, 1.8, false) < 0.0);
    }

    #[test]
    fn a_missing_row_is_reported_and_fails() {
        let b = base(&[("bw", true, 0.80), ("gone", false, 1.0)]);
        let lines = compare(&b, &run(&[("bw", true, 0.80)]));
        assert_eq!(lines[1].verdict, Verdict::Missing);
        assert!(failed(&lines));
        assert!(table(&lines).contains("MISSING"));
        // A row without a ratio (the reference could not run it) too.
        let mut r = run(&[("bw", true, 0.80), ("gone", false, 1.0)]);
        r[1].ratio = None;
        assert_eq!(verdicts(&b, &r), [Verdict::Pass, Verdict::Missing]);
    }

    #[test]
    fn a_new_row_is_listed_and_passes() {
        let b = base(&[("bw", true, 0.80)]);
        let lines = compare(&b, &run(&[("bw", true, 0.80), ("fresh", false, 3.0)]));
        assert_eq!(lines[1].verdict, Verdict::New);
        assert!(!failed(&lines));
    }

    #[test]
    fn a_row_tolerance_overrides_the_default() {
        let mut b = base(&[("noisy", false, 1.0)]);
        b.rows[0].tolerance = Some(0.25);
        assert!(!failed(&compare(&b, &run(&[("noisy", false, 1.2)]))));
        assert!(failed(&compare(&b, &run(&[("noisy", false, 1.3)]))));
    }

    #[test]
    fn the_file_format_round_trips() {
        let mut b = base(&[
            ("clBuildProgram cold", false, 0.7912),
            ("a \"quoted\" row", true, 1.5),
        ]);
        b.rows[1].tolerance = Some(0.2);
        let text = to_json(&b);
        assert_eq!(from_json(&text).expect("parses"), b);
        // Written by hand: defaults for what is left out.
        let b2 = from_json(
            r#"{"card": "C", "rows": [{"name": "r", "higher_better": true, "ratio": 2}]}"#,
        )
        .expect("parses");
        assert_eq!(b2.tolerance, TOLERANCE);
        assert_eq!(b2.sizes, "full");
        assert_eq!(b2.rows[0].ratio, 2.0);
        assert!(from_json("{\"card\": \"C\"}").is_err());
        assert!(from_json("{\"card\": \"C\", \"rows\": [] } x").is_err());
    }

    #[test]
    fn slugs_and_dates() {
        assert_eq!(slug("NVIDIA H100 80GB HBM3"), "nvidia-h100-80gb-hbm3");
        assert_eq!(
            slug("llvmpipe (LLVM 15.0.6, 256 bits)"),
            "llvmpipe-llvm-15-0-6-256-bits"
        );
        assert_eq!(civil_date(0), "1970-01-01");
        assert_eq!(civil_date(20_418), "2025-11-26");
        assert_eq!(civil_date(20_783), "2026-11-26");
    }

    /// The committed GPU baseline reads, with its per-row tolerances.
    #[test]
    fn committed_baseline_reads() {
        let b = from_json(include_str!("../../../bench/baseline-nvidia-h200.json")).unwrap();
        assert_eq!(b.card, "NVIDIA H200");
        assert!(b.rows.len() >= 18, "{}", b.rows.len());
        let row = |name: &str| b.rows.iter().find(|r| r.name == name).unwrap();
        assert_eq!(row("clBuildProgram cold").tolerance, Some(1.0));
        assert_eq!(row("fp64 compute (double4 mad)").tolerance, None);
        assert!(row("fp64 compute (double4 mad)").higher_better);
    }
}
