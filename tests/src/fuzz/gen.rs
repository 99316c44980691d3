//! The program generator: random OpenCL C programs whose every result is
//! defined by the language, so that two correct implementations must
//! agree on every output word.
//!
//! How undefined behaviour is kept out:
//! - signed `+ - *` and negation are done in an unsigned type (`uint` or
//!   `ulong` for scalars, `as_u*` for vectors) and cast back; unsigned
//!   arithmetic wraps. Narrow unsigned scalars are widened to `uint`, never
//!   promoted to `int`.
//! - shifts rely on OpenCL's rule that the count is taken modulo the
//!   width (clang masks it); left shifts never carry `nsw`.
//! - `/` and `%` go through `div_T`/`rem_T`, which replace a zero divisor
//!   (and MIN / -1) by a defined case; `clamp` through `clampx_T`, which
//!   orders its bounds; `mad_hi` only on unsigned types, `mul24`/`mad24`
//!   on masked operands.
//! - every variable is initialised where it is declared; array indices
//!   are masked to the (power of two) length; loops count a counter
//!   declared in their header to a small bound (lavapipe ends a loop after
//!   65535 iterations).
//! - helpers with pointer parameters (side effects) are only called as
//!   whole statements or as a declaration's initialiser, so evaluation
//!   order never matters.
//! - `__local` arrays are used in phases separated by barriers at the
//!   kernel's top level (or in a loop of constant trip count that holds
//!   them): each work-item writes only its own slots, and reads other
//!   work-items' slots only after a barrier, before the next write phase.
//! - each work-item owns `SLOTS` words of `out`; the rest of `out` is never
//!   touched.
//!
//! Known ferrocl bugs can be kept out, so that the fuzzer finds new ones:
//! [`Config::byval_mutation`] (helpers modifying a by-value struct
//! parameter), [`Config::irreducible`] (a `goto` into a loop body).

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::rng::Rng;
use super::types::{StructDef, Ty, Vt, ALL_S, S, WIDTHS};

/// Words of `out` each work-item owns: word 0 is the final hash, the
/// others are written by statements.
pub const SLOTS: usize = 4;
/// Length of the `in` buffer (a power of two).
pub const INPUT_LEN: usize = 64;

/// Constructs that trigger ferrocl bugs the fuzzer already found (each
/// has a corpus case marked `known_bug`), or bugs of the reference: the
/// generator leaves them out unless allowed (`--allow NAME`,
/// `--allow-all`), so that a run finds new bugs instead of these again.
/// Remove an entry when its bug is fixed.
pub const KNOWN_BUGS: &[(&str, &str)] = &[
    (
        "pocl-abs-diff",
        "the reference's bug: PoCL 3.1's abs_diff of signed values whose difference \
         overflows is wrong when an operand is a constant (abs_diff(239, INT_MIN) gives \
         0x7fffff11 at -O0, garbage at -O2; ferrocl gives 0x800000ef, as the spec says); \
         avoided by halving signed operands first (x >> 1), so no difference overflows",
    ),
    (
        "pocl-abs",
        "the reference's bug: PoCL 3.1's abs of a signed constant that is the type's \
         minimum gives garbage (abs((int)0x80000000u) gives 0x300 at -O0, other words at \
         -O2; ferrocl gives 0x80000000, as the spec says); avoided by halving the signed \
         operand first (x >> 1), so it is never the minimum",
    ),
    (
        "divergent-loop-exit",
        "on lavapipe, a value loaded inside a loop and used after it read 0 in the \
         work-items that left the loop before others of their group (the SPIR-V uses the \
         load's result in the loop's merge block); worked round since session 17 \
         (passes::spill_loop_live_outs; corpus fuzz_loop_exit_value.cl and \
         fuzz_loop_exit_converted.cl), and for the values a break brings to the merge block \
         since session 20 (seed 27 p100595; test \
         loop_exit_branches::divergent_trips_with_a_dead_break); still avoided by default \
         until longer runs with --allow divergent-loop-exit agree (seed 21: 30 programs; \
         seed 27: 1,546 programs, that one mismatch; seed 28, with the fix): every \
         condition that leaves a loop (trip counts, break, goto, return) is then the same \
         for all work-items, and such jumps stay out of branches that only some \
         work-items take",
    ),
];

/// What the generator may produce.
#[derive(Clone, Debug)]
pub struct Config {
    pub kernels: usize,
    /// Helpers may modify a struct parameter passed by value.
    pub byval_mutation: bool,
    /// Forward `goto` out of nested statements (reducible).
    pub goto: bool,
    /// `goto` into a loop body (irreducible control flow).
    pub irreducible: bool,
    /// Largest statement budget of a kernel.
    pub max_stmts: usize,
    /// Names from [`KNOWN_BUGS`] to leave out.
    pub avoid: BTreeSet<&'static str>,
}

impl Config {
    fn avoids(&self, bug: &str) -> bool {
        self.avoid.contains(bug)
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            kernels: 16,
            byval_mutation: false,
            goto: true,
            irreducible: false,
            max_stmts: 40,
            avoid: KNOWN_BUGS.iter().map(|(name, _)| *name).collect(),
        }
    }
}

/// One kernel of a program: its name, its `arg` value and the first word
/// of `out` it writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelInfo {
    pub name: String,
    pub arg: u64,
    pub base: usize,
}

/// A generated program and how to run it.
#[derive(Clone, Debug)]
pub struct Program {
    pub source: String,
    pub kernels: Vec<KernelInfo>,
    pub global: usize,
    pub local: usize,
    pub input: Vec<u64>,
    pub options: String,
}

pub const OPTIONS: &str = "-cl-std=CL3.0";

impl Program {
    /// Words of `out` the kernels write (and the buffer's length).
    pub fn out_len(&self) -> usize {
        self.kernels
            .iter()
            .map(|k| k.base + self.global * SLOTS)
            .max()
            .unwrap_or(0)
    }

    /// The header lines that make a saved program runnable again
    /// ([`Program::parse`]).
    pub fn header(&self) -> String {
        let mut h = format!(
            "// @ferrocl-fuzz global={} local={} slots={SLOTS} options={}\n// @input",
            self.global, self.local, self.options
        );
        for (i, x) in self.input.iter().enumerate() {
            h.push(if i == 0 { ' ' } else { ',' });
            write!(h, "{x:#x}").unwrap();
        }
        h.push('\n');
        for k in &self.kernels {
            writeln!(h, "// @kernel {} arg={:#x} base={}", k.name, k.arg, k.base).unwrap();
        }
        h
    }

    /// This program without kernel `name` (its source and its entry).
    pub fn without_kernel(&self, name: &str) -> Program {
        let mut p = self.clone();
        p.kernels.retain(|k| k.name != name);
        let head = format!("kernel void {name}(");
        let mut out = String::new();
        let mut skipping = false;
        for line in self.source.lines() {
            if line.starts_with(&head) {
                skipping = true;
            }
            if !skipping {
                out.push_str(line);
                out.push('\n');
            }
            if skipping && line == "}" {
                skipping = false;
            }
        }
        p.source = out;
        p
    }

    /// This program with only kernels `range` (indices into `kernels`).
    pub fn with_kernels(&self, range: std::ops::Range<usize>) -> Program {
        let mut p = self.clone();
        for (i, k) in self.kernels.iter().enumerate() {
            if !range.contains(&i) {
                p = p.without_kernel(&k.name);
            }
        }
        p
    }

    /// This program with only the kernels named.
    pub fn with_kernels_named(&self, names: &[&str]) -> Program {
        let mut p = self.clone();
        for k in &self.kernels {
            if !names.contains(&k.name.as_str()) {
                p = p.without_kernel(&k.name);
            }
        }
        p
    }

    /// The full text: header and source.
    pub fn text(&self) -> String {
        format!("{}{}", self.header(), self.source)
    }

    /// Reads a program saved with [`Program::text`] (the source may have
    /// been edited or reduced; kernels named in the header but no longer
    /// defined are dropped).
    pub fn parse(text: &str) -> Result<Program, String> {
        let mut p = Program {
            source: String::new(),
            kernels: Vec::new(),
            global: 0,
            local: 0,
            input: Vec::new(),
            options: OPTIONS.to_owned(),
        };
        let num = |v: &str| -> Result<u64, String> {
            let v = v.trim();
            if let Some(hex) = v.strip_prefix("0x") {
                u64::from_str_radix(hex, 16).map_err(|e| format!("{v}: {e}"))
            } else {
                v.parse().map_err(|e| format!("{v}: {e}"))
            }
        };
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("// @ferrocl-fuzz ") {
                let (kv, options) = rest.split_once(" options=").unwrap_or((rest, OPTIONS));
                p.options = options.trim().to_owned();
                for item in kv.split_whitespace() {
                    match item.split_once('=') {
                        Some(("global", v)) => p.global = num(v)? as usize,
                        Some(("local", v)) => p.local = num(v)? as usize,
                        Some(("slots", v)) if num(v)? as usize != SLOTS => {
                            return Err(format!("slots={v}, this fuzzer uses {SLOTS}"))
                        }
                        _ => {}
                    }
                }
            } else if let Some(rest) = line.strip_prefix("// @input ") {
                p.input = rest.split(',').map(num).collect::<Result<_, _>>()?;
            } else if let Some(rest) = line.strip_prefix("// @kernel ") {
                let mut it = rest.split_whitespace();
                let name = it.next().ok_or("kernel line without a name")?.to_owned();
                let mut k = KernelInfo {
                    name,
                    arg: 0,
                    base: 0,
                };
                for item in it {
                    match item.split_once('=') {
                        Some(("arg", v)) => k.arg = num(v)?,
                        Some(("base", v)) => k.base = num(v)? as usize,
                        _ => {}
                    }
                }
                p.kernels.push(k);
            } else {
                p.source.push_str(line);
                p.source.push('\n');
            }
        }
        if p.global == 0 || p.local == 0 || p.input.len() != INPUT_LEN {
            return Err("missing or malformed @ferrocl-fuzz / @input header".into());
        }
        let source = p.source.clone();
        p.kernels
            .retain(|k| source.contains(&format!("void {}(", k.name)));
        Ok(p)
    }
}

/// A variable in scope.
#[derive(Clone, Debug)]
struct Var {
    name: String,
    ty: Ty,
    mutable: bool,
    /// A pointer to a struct (`S0* p`): accessed as `(*p)`.
    deref: bool,
    /// Folded into the kernel's hash when its block ends.
    fold: bool,
    /// The same in every work-item that reaches it (a loop counter).
    uniform: bool,
}

/// A `__local` array: each work-item owns `per` consecutive slots.
#[derive(Clone, Debug)]
struct LocalArr {
    name: String,
    vt: Vt,
    per: usize,
    len: usize,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Phase {
    /// Each work-item reads and writes its own slots only.
    Write,
    /// Anyone reads any slot; nobody writes.
    Read,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Brk {
    Loop,
    Switch,
    /// A loop holding barriers: no break or continue may leave it.
    Uniform,
}

/// One step of the path from a variable to a part of it.
#[derive(Clone, Debug)]
enum Part {
    Text(String),
    /// `[masked index]` into an array of this length.
    Index(usize),
}

/// A part of a variable in scope (the variable itself, a field, an
/// element), of any type.
#[derive(Clone, Debug)]
struct Access {
    parts: Vec<Part>,
    ty: Ty,
    mutable: bool,
}

/// A generated helper function's signature.
#[derive(Clone, Debug)]
struct Helper {
    name: String,
    ret: Ty,
    params: Vec<Param>,
    /// Most loop iterations one call can run.
    iters: usize,
}

#[derive(Clone, Debug)]
enum Param {
    /// By value: a scalar, vector or struct.
    Value(Ty),
    /// `T* p` or `T p[len]` for a private array of `len` `T`s.
    Array(Vt, usize),
    /// `S* p`.
    StructPtr(usize),
}

impl Helper {
    fn pure(&self) -> bool {
        self.params.iter().all(|p| matches!(p, Param::Value(_)))
    }
}

/// The state of the function being generated.
struct Cx {
    scopes: Vec<Vec<Var>>,
    kernel: bool,
    /// Helpers `0..callable` may be called.
    callable: usize,
    ret: Option<Ty>,
    brk: Vec<Brk>,
    /// Goto labels in scope, with the number of loops around each.
    labels: Vec<(String, usize)>,
    /// The number of loops around the outermost `if` or `switch` around
    /// this point whose condition may differ between work-items: a jump
    /// that leaves one of those loops from here leaves it in some
    /// work-items only.
    diverged_at: Option<usize>,
    locals: Vec<LocalArr>,
    phase: Phase,
    depth: usize,
    budget: usize,
    names: usize,
    /// Product of the largest trip counts of the loops around.
    mult: usize,
    /// Most loop iterations the function can run so far (lavapipe ends
    /// the loops of an invocation after 65535 iterations in all).
    iters: std::cell::Cell<usize>,
}

/// Most loop iterations a kernel may run (including its helpers and the
/// hashing of arrays), well under lavapipe's 65535 per invocation.
const MAX_ITERS: usize = 20_000;

impl Cx {
    /// Whether `n` more iterations (each run `mult` times) fit, and if so
    /// counts them.
    fn spend(&self, n: usize) -> bool {
        let total = self.iters.get() + self.mult * n;
        if total > MAX_ITERS {
            return false;
        }
        self.iters.set(total);
        true
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.names += 1;
        format!("{prefix}{}", self.names)
    }

    fn declare(&mut self, name: &str, ty: Ty, mutable: bool) {
        let fold = self.kernel;
        self.scopes.last_mut().unwrap().push(Var {
            name: name.to_owned(),
            ty,
            mutable,
            deref: false,
            fold,
            uniform: false,
        });
    }

    /// Loops around the current statement.
    fn loops(&self) -> usize {
        self.brk.iter().filter(|b| **b != Brk::Switch).count()
    }

    /// Whether a jump from here to a point inside `to` loops leaves a
    /// loop in some work-items and not in others: it sits in a branch
    /// that only some take, inside a loop it leaves.
    fn divergent_exit(&self, to: usize) -> bool {
        self.diverged_at.is_some_and(|d| d > to)
    }

    /// Enters an `if` or `switch` (whose condition is the same in every
    /// work-item where `uniform`); returns what to restore on leaving it.
    fn diverge(&mut self, uniform: bool) -> Option<usize> {
        let saved = self.diverged_at;
        if !uniform && saved.is_none() {
            self.diverged_at = Some(self.loops());
        }
        saved
    }

    fn can_break(&self) -> bool {
        matches!(self.brk.last(), Some(Brk::Loop | Brk::Switch))
    }

    fn can_continue(&self) -> bool {
        for b in self.brk.iter().rev() {
            match b {
                Brk::Loop => return true,
                Brk::Uniform => return false,
                Brk::Switch => {}
            }
        }
        false
    }
}

fn walk(ty: &Ty, parts: Vec<Part>, mutable: bool, out: &mut Vec<Access>, structs: &[StructDef]) {
    out.push(Access {
        parts: parts.clone(),
        ty: ty.clone(),
        mutable,
    });
    match ty {
        Ty::V(_) => {}
        Ty::St(i) => {
            if let Some(def) = structs.get(*i) {
                for (fname, fty) in &def.fields {
                    let mut p = parts.clone();
                    p.push(Part::Text(format!(".{fname}")));
                    walk(fty, p, mutable, out, structs);
                }
            }
        }
        Ty::Arr(elem, len) => {
            let mut p = parts;
            p.push(Part::Index(*len));
            walk(elem, p, mutable, out, structs);
        }
    }
}

/// Text lines with indentation.
#[derive(Default)]
struct Out {
    lines: Vec<String>,
    indent: usize,
}

impl Out {
    fn line(&mut self, s: impl AsRef<str>) {
        let s = s.as_ref();
        self.lines
            .push(format!("{}{s}", "    ".repeat(self.indent)));
    }
    fn open(&mut self, s: impl AsRef<str>) {
        self.line(s);
        self.indent += 1;
    }
    fn close(&mut self, s: impl AsRef<str>) {
        self.indent -= 1;
        self.line(s);
    }
}

/// A helper the generated code needs from the prelude.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Support {
    Div(Vt),
    Rem(Vt),
    Clamp(Vt),
    HashVec(Vt),
    HashStruct(usize),
}

pub struct Gen<'c> {
    rng: Rng,
    cfg: &'c Config,
    structs: Vec<StructDef>,
    helpers: Vec<Helper>,
    support: BTreeSet<Support>,
    local_size: usize,
    /// Operators the expressions being generated may still use.
    nodes: usize,
    /// Expressions being generated must be the same in every work-item.
    uniform: bool,
}

/// Generates program number `index` of the run seeded `seed`.
pub fn generate(seed: u64, index: u64, cfg: &Config) -> Program {
    let mut g = Gen {
        rng: Rng::for_item(seed, index),
        cfg,
        structs: Vec::new(),
        helpers: Vec::new(),
        support: BTreeSet::new(),
        local_size: 0,
        nodes: 0,
        uniform: false,
    };
    g.program(seed, index)
}

const GLOBALS: [usize; 3] = [64, 128, 256];
const LOCALS: [usize; 3] = [16, 32, 64];

impl Gen<'_> {
    fn program(&mut self, seed: u64, index: u64) -> Program {
        let global = *self.rng.pick(&GLOBALS);
        let local = *self.rng.pick(&LOCALS);
        self.local_size = local;
        let input: Vec<u64> = (0..INPUT_LEN).map(|_| self.literal_bits(S::U64)).collect();

        let nstructs = self.rng.below(4);
        for _ in 0..nstructs {
            let def = self.struct_def();
            self.structs.push(def);
        }
        let mut helper_text = Vec::new();
        let nhelpers = self.rng.range(1, 6);
        for i in 0..nhelpers {
            let (sig, text) = self.helper(i);
            self.helpers.push(sig);
            helper_text.push(text);
        }
        let mut kernel_text = Vec::new();
        let mut kernels = Vec::new();
        for i in 0..self.cfg.kernels {
            let name = format!("k{i}");
            let base = i * global * SLOTS;
            let text = self.kernel(&name, base);
            kernel_text.push(text);
            kernels.push(KernelInfo {
                name,
                arg: self.literal_bits(S::U64),
                base,
            });
        }

        let mut src = String::new();
        writeln!(
            src,
            "// generated by ferrocl-fuzz: seed {seed}, program {index}"
        )
        .unwrap();
        src.push_str(
            "ulong mix(ulong h, ulong v) { h = (h ^ v) * 0x100000001B3UL; return h ^ (h >> 32); }\n",
        );
        src.push_str("constant ulong ctab[16] = {");
        for i in 0..16 {
            let v = self.literal_bits(S::U64);
            write!(src, "{}{v:#x}UL", if i == 0 { "" } else { ", " }).unwrap();
        }
        src.push_str("};\n");
        for (i, def) in self.structs.iter().enumerate() {
            src.push_str("typedef struct {");
            for (fname, fty) in &def.fields {
                write!(src, " {};", fty.declare(fname)).unwrap();
            }
            writeln!(src, " }} S{i};").unwrap();
        }
        src.push_str(&self.support_text());
        for t in helper_text.iter().chain(&kernel_text) {
            src.push_str(t);
        }
        Program {
            source: src,
            kernels,
            global,
            local,
            input,
            options: OPTIONS.to_owned(),
        }
    }

    // ---- types ----

    fn scalar(&mut self) -> S {
        *self.rng.pick(&ALL_S)
    }

    fn width(&mut self) -> u8 {
        WIDTHS[self.rng.weighted(&[40, 12, 10, 16, 7, 4])]
    }

    fn vt(&mut self) -> Vt {
        let s = self.scalar();
        let n = self.width();
        Vt::new(s, n)
    }

    /// A small value type, for array elements and struct fields.
    fn small_vt(&mut self) -> Vt {
        let s = self.scalar();
        let n = WIDTHS[self.rng.weighted(&[50, 15, 10, 15, 5, 0])];
        Vt::new(s, n)
    }

    fn struct_def(&mut self) -> StructDef {
        let n = self.rng.range(1, 5);
        let mut fields = Vec::new();
        for f in 0..n {
            let ty = match self.rng.weighted(&[60, 20, 10, 10]) {
                0 => Ty::V(self.vt()),
                1 => {
                    let vt = self.small_vt();
                    Ty::Arr(Box::new(Ty::V(vt)), *self.rng.pick(&[2, 4, 8]))
                }
                2 if !self.structs.is_empty() => Ty::St(self.rng.below(self.structs.len())),
                3 if !self.structs.is_empty() => Ty::Arr(
                    Box::new(Ty::St(self.rng.below(self.structs.len()))),
                    *self.rng.pick(&[2, 4]),
                ),
                _ => Ty::V(self.vt()),
            };
            fields.push((format!("f{f}"), ty));
        }
        StructDef { fields }
    }

    /// A type for a new variable.
    fn var_ty(&mut self) -> Ty {
        match self.rng.weighted(&[62, 14, 14, 5, 5]) {
            1 if !self.structs.is_empty() => Ty::St(self.rng.below(self.structs.len())),
            2 => {
                let vt = self.small_vt();
                Ty::Arr(Box::new(Ty::V(vt)), *self.rng.pick(&[2, 4, 8, 16]))
            }
            3 if !self.structs.is_empty() => Ty::Arr(
                Box::new(Ty::St(self.rng.below(self.structs.len()))),
                *self.rng.pick(&[2, 4]),
            ),
            _ => Ty::V(self.vt()),
        }
    }

    // ---- literals ----

    /// Random bits of an interesting value of `s`, zero-extended.
    fn literal_bits(&mut self, s: S) -> u64 {
        let bits = s.bits();
        let v = match self.rng.below(12) {
            0 => 0,
            1 => 1,
            2 => self.rng.below(8) as u64,
            3 | 4 => self.rng.below(300) as u64,
            5 => s.mask() >> 1,                   // signed max
            6 => 1u64 << (bits - 1),              // signed min
            7 => s.mask(),                        // -1 / unsigned max
            8 => (s.mask() >> 1).wrapping_sub(1), // max - 1
            9 => (1u64 << (bits - 1)) + 1,        // min + 1
            10 => (self.rng.below(300) as u64).wrapping_neg(),
            _ => self.rng.next_u64(),
        };
        v & s.mask()
    }

    fn scalar_lit(&mut self, s: S) -> String {
        let v = self.literal_bits(s);
        let t = s.name();
        if v < 1000 {
            return format!("(({t}){v})");
        }
        let neg = v.wrapping_neg() & s.mask();
        if s.signed() && neg < 1000 {
            return format!("(({t})-{neg})");
        }
        if s.bits() == 64 {
            format!("(({t}){v:#x}UL)")
        } else {
            format!("(({t}){v:#x}u)")
        }
    }

    fn literal(&mut self, vt: Vt) -> String {
        if !vt.is_vec() {
            return self.scalar_lit(vt.s);
        }
        let t = vt.name();
        if self.rng.chance(40) {
            let x = self.scalar_lit(vt.s);
            return format!("(({t}){x})");
        }
        let parts: Vec<String> = (0..vt.n).map(|_| self.scalar_lit(vt.s)).collect();
        format!("(({t})({}))", parts.join(", "))
    }

    // ---- accesses ----

    fn accesses(&self, cx: &Cx) -> Vec<Access> {
        let mut out = Vec::new();
        for var in cx.scopes.iter().flatten() {
            let base = if var.deref {
                format!("(*{})", var.name)
            } else {
                var.name.clone()
            };
            walk(
                &var.ty,
                vec![Part::Text(base)],
                var.mutable,
                &mut out,
                &self.structs,
            );
        }
        out
    }

    fn render(&mut self, cx: &Cx, parts: &[Part]) -> String {
        let mut s = String::new();
        for p in parts {
            match p {
                Part::Text(t) => s.push_str(t),
                Part::Index(len) => {
                    let i = self.index(cx, *len);
                    write!(s, "[{i}]").unwrap();
                }
            }
        }
        s
    }

    /// An index expression in `0..len` (a power of two).
    fn index(&mut self, cx: &Cx, len: usize) -> String {
        if self.rng.chance(25) {
            return format!("{}", self.rng.below(len));
        }
        let s = self.scalar();
        let d = self.rng.below(2) as u32;
        let e = self.expr(cx, Vt::scalar(s), d);
        format!("({e}) & {}", len - 1)
    }

    // ---- expressions ----

    /// An expression of type exactly `vt`.
    fn expr(&mut self, cx: &Cx, vt: Vt, depth: u32) -> String {
        if depth == 0 || self.nodes == 0 || self.rng.chance(15) {
            return self.leaf(cx, vt);
        }
        self.nodes -= 1;
        let d = depth - 1;
        let t = vt.name();
        {
            let pure_helpers = self.callable_pure(cx, &Ty::V(vt));
            let w = [
                14,                              // 0 arith
                8,                               // 1 bitwise
                6,                               // 2 shift
                4,                               // 3 div/rem
                4,                               // 4 unary
                6,                               // 5 compare
                6,                               // 6 ternary
                20,                              // 7 builtin
                8,                               // 8 swizzle
                if vt.is_vec() { 4 } else { 0 }, // 9 construct
                6,                               // 10 convert
                4,                               // 11 as_type
                if pure_helpers.is_empty() || self.uniform {
                    0
                } else {
                    6
                }, // 12 call
                if vt.s.bits() >= 16 { 2 } else { 0 }, // 13 upsample
            ];
            match self.rng.weighted(&w) {
                0 => {
                    let op = *self.rng.pick(&["+", "-", "*"]);
                    let a = self.expr(cx, vt, d);
                    if vt.is_vec() && self.rng.chance(20) {
                        // vector op scalar: the scalar is widened.
                        let u = vt.s.unsigned();
                        let b = self.expr(cx, Vt::scalar(vt.s), d);
                        if vt.s.signed() {
                            let ut = vt.with_s(u).name();
                            format!("as_{t}(as_{ut}({a}) {op} ({})({b}))", u.name())
                        } else {
                            format!("({a} {op} {b})")
                        }
                    } else {
                        let b = self.expr(cx, vt, d);
                        self.arith(vt, op, &a, &b)
                    }
                }
                1 => {
                    let op = *self.rng.pick(&["&", "|", "^"]);
                    let a = self.expr(cx, vt, d);
                    let b = self.expr(cx, vt, d);
                    format!("(({t})({a} {op} {b}))")
                }
                2 => {
                    let op = *self.rng.pick(&["<<", ">>"]);
                    let a = self.expr(cx, vt, d);
                    let b = if vt.is_vec() && self.rng.chance(70) {
                        self.expr(cx, vt, d)
                    } else if vt.is_vec() {
                        self.scalar_lit(vt.s)
                    } else {
                        let s2 = self.scalar();
                        self.expr(cx, Vt::scalar(s2), d)
                    };
                    if vt.is_vec() {
                        format!("({a} {op} {b})")
                    } else {
                        format!("(({t})({a} {op} {b}))")
                    }
                }
                3 => {
                    let a = self.expr(cx, vt, d);
                    let b = self.expr(cx, vt, d);
                    let sup = if self.rng.chance(50) {
                        Support::Div(vt)
                    } else {
                        Support::Rem(vt)
                    };
                    let name = support_name(sup);
                    self.support.insert(sup);
                    format!("{name}({a}, {b})")
                }
                4 => {
                    let a = self.expr(cx, vt, d);
                    if self.rng.chance(50) {
                        format!("(({t})(~{a}))")
                    } else if !vt.is_vec() {
                        if !vt.s.signed() && vt.s.bits() >= 32 {
                            format!("(-{a})")
                        } else {
                            format!("(({t})(-({})({a})))", vt.s.wide())
                        }
                    } else if !vt.s.signed() {
                        format!("(-{a})")
                    } else {
                        let ut = vt.with_s(vt.s.unsigned()).name();
                        format!("as_{t}(-as_{ut}({a}))")
                    }
                }
                5 => self.compare(cx, vt, d),
                6 => {
                    let a = self.expr(cx, vt, d);
                    let b = self.expr(cx, vt, d);
                    if vt.is_vec() {
                        let s2 = S::of(vt.s.bits(), self.rng.chance(70));
                        let c = self.expr(cx, vt.with_s(s2), d);
                        format!("(({c}) ? {a} : {b})")
                    } else {
                        let s2 = self.scalar();
                        let c = self.expr(cx, Vt::scalar(s2), d);
                        format!("(({t})(({c}) ? {a} : {b}))")
                    }
                }
                7 => self.builtin(cx, vt, d),
                8 => self.swizzle(cx, vt, d),
                9 => {
                    let mut parts = Vec::new();
                    let mut left = vt.n;
                    while left > 0 {
                        let sizes: Vec<u8> =
                            [1, 2, 3, 4, 8].into_iter().filter(|&k| k <= left).collect();
                        let k = *self.rng.pick(&sizes);
                        left -= k;
                        parts.push(self.expr(cx, Vt::new(vt.s, k), d));
                    }
                    format!("(({t})({}))", parts.join(", "))
                }
                10 => {
                    let s2 = self.scalar();
                    let src = self.expr(cx, vt.with_s(s2), d);
                    let sat = "_sat";
                    match self.rng.below(4) {
                        0 if !vt.is_vec() => format!("(({t}){src})"),
                        0 | 1 => format!("convert_{t}({src})"),
                        2 => format!("convert_{t}{sat}({src})"),
                        _ => {
                            let mode = *self.rng.pick(&["_rte", "_rtz", "_rtp", "_rtn"]);
                            let sat = if self.rng.chance(50) { sat } else { "" };
                            format!("convert_{t}{sat}{mode}({src})")
                        }
                    }
                }
                11 => {
                    let mut cands = Vec::new();
                    for s2 in ALL_S {
                        for n2 in WIDTHS {
                            let other = Vt::new(s2, n2);
                            let ok = if vt.n == 3 || n2 == 3 {
                                vt.n == n2 && s2.bits() == vt.s.bits()
                            } else {
                                other.bytes() == vt.bytes()
                            };
                            if ok {
                                cands.push(other);
                            }
                        }
                    }
                    let src_vt = *self.rng.pick(&cands);
                    let src = self.expr(cx, src_vt, d);
                    format!("as_{t}({src})")
                }
                12 => {
                    let h = *self.rng.pick(&pure_helpers);
                    self.call(cx, h, d)
                }
                13 => {
                    let half = S::of(vt.s.bits() / 2, vt.s.signed());
                    let hi = self.expr(cx, vt.with_s(half), d);
                    let lo = self.expr(cx, vt.with_s(half.unsigned()), d);
                    format!("upsample({hi}, {lo})")
                }
                _ => unreachable!(),
            }
        }
    }

    /// `a op b` for `+ - *`, wrapping.
    fn arith(&mut self, vt: Vt, op: &str, a: &str, b: &str) -> String {
        let t = vt.name();
        if !vt.s.signed() && (vt.is_vec() || vt.s.bits() >= 32) {
            format!("({a} {op} {b})")
        } else if !vt.is_vec() {
            let w = vt.s.wide();
            format!("(({t})(({w})({a}) {op} ({w})({b})))")
        } else {
            let ut = vt.with_s(vt.s.unsigned()).name();
            format!("as_{t}(as_{ut}({a}) {op} as_{ut}({b}))")
        }
    }

    fn compare(&mut self, cx: &Cx, vt: Vt, d: u32) -> String {
        let t = vt.name();
        let op = *self
            .rng
            .pick(&["<", ">", "<=", ">=", "==", "!=", "&&", "||", "!"]);
        if vt.is_vec() {
            // The operands' elements have vt's size; the result is the
            // signed type of that size (-1 or 0).
            let s2 = S::of(vt.s.bits(), self.rng.chance(50));
            let a = self.expr(cx, vt.with_s(s2), d);
            if op == "!" {
                return format!("as_{t}(!{a})");
            }
            let b = self.expr(cx, vt.with_s(s2), d);
            format!("as_{t}({a} {op} {b})")
        } else {
            let s2 = self.scalar();
            let a = self.expr(cx, Vt::scalar(s2), d);
            if op == "!" {
                return format!("(({t})(!{a}))");
            }
            let b = if op == "&&" || op == "||" {
                let s3 = self.scalar();
                self.expr(cx, Vt::scalar(s3), d)
            } else {
                self.expr(cx, Vt::scalar(s2), d)
            };
            format!("(({t})({a} {op} {b}))")
        }
    }

    fn swizzle(&mut self, cx: &Cx, vt: Vt, d: u32) -> String {
        let m = *self.rng.pick(&[2u8, 3, 4, 8, 16]);
        let src = self.expr(cx, Vt::new(vt.s, m), d);
        const HEX: &[u8] = b"0123456789abcdef";
        const XYZW: &[u8] = b"xyzw";
        if vt.n * 2 == m && self.rng.chance(40) {
            let sel = if m == 3 {
                *self.rng.pick(&["lo", "even"])
            } else {
                *self.rng.pick(&["lo", "hi", "even", "odd"])
            };
            return format!("({src}).{sel}");
        }
        if m == 3 && vt.n == 2 && self.rng.chance(20) {
            let sel = *self.rng.pick(&["lo", "even"]);
            return format!("({src}).{sel}");
        }
        let idx: Vec<usize> = (0..vt.n).map(|_| self.rng.below(m as usize)).collect();
        let sel: String = if m <= 4 && vt.n <= 4 && self.rng.chance(50) {
            idx.iter().map(|&i| XYZW[i] as char).collect()
        } else {
            let digits: String = idx.iter().map(|&i| HEX[i] as char).collect();
            format!("s{digits}")
        };
        format!("({src}).{sel}")
    }

    fn builtin(&mut self, cx: &Cx, vt: Vt, d: u32) -> String {
        let t = vt.name();
        let mut names = vec![
            "min",
            "max",
            "clamp",
            "abs",
            "abs_diff",
            "add_sat",
            "sub_sat",
            "hadd",
            "rhadd",
            "mul_hi",
            "rotate",
            "popcount",
            "clz",
            "ctz",
            "mad_sat",
            "bitselect",
            "select",
        ];
        if !vt.s.signed() {
            names.push("mad_hi");
        }
        if vt.s.bits() == 32 {
            names.push("mul24");
            if !vt.s.signed() {
                names.push("mad24");
            }
        }
        if !vt.is_vec() {
            names.extend(["any", "all"]);
        }
        if matches!(vt.n, 2 | 4 | 8 | 16) {
            names.extend(["shuffle", "shuffle2"]);
        }
        let name = *self.rng.pick(&names);
        match name {
            "min" | "max" => {
                let a = self.expr(cx, vt, d);
                if vt.is_vec() && self.rng.chance(25) {
                    let b = self.expr(cx, Vt::scalar(vt.s), d);
                    format!("{name}({a}, {b})")
                } else {
                    let b = self.expr(cx, vt, d);
                    format!("{name}({a}, {b})")
                }
            }
            "clamp" => {
                let x = self.expr(cx, vt, d);
                let a = self.expr(cx, vt, d);
                let b = self.expr(cx, vt, d);
                self.support.insert(Support::Clamp(vt));
                format!("clampx_{t}({x}, {a}, {b})")
            }
            "abs" | "abs_diff" => {
                let s2 = S::of(vt.s.bits(), self.rng.chance(70));
                let a = self.expr(cx, vt.with_s(s2), d);
                let call = if name == "abs" {
                    if s2.signed() && self.cfg.avoids("pocl-abs") {
                        let t2 = vt.with_s(s2).name();
                        format!("abs(({t2})(({a}) >> 1))")
                    } else {
                        format!("abs({a})")
                    }
                } else {
                    let b = self.expr(cx, vt.with_s(s2), d);
                    if s2.signed() && self.cfg.avoids("pocl-abs-diff") {
                        let t2 = vt.with_s(s2).name();
                        format!("abs_diff(({t2})(({a}) >> 1), ({t2})(({b}) >> 1))")
                    } else {
                        format!("abs_diff({a}, {b})")
                    }
                };
                if !vt.s.signed() {
                    call
                } else if vt.is_vec() {
                    format!("as_{t}({call})")
                } else {
                    format!("(({t}){call})")
                }
            }
            "add_sat" | "sub_sat" | "hadd" | "rhadd" | "mul_hi" | "rotate" => {
                let a = self.expr(cx, vt, d);
                let b = self.expr(cx, vt, d);
                format!("{name}({a}, {b})")
            }
            "popcount" | "clz" | "ctz" => {
                let a = self.expr(cx, vt, d);
                format!("{name}({a})")
            }
            "mad_sat" | "bitselect" | "mad_hi" => {
                let a = self.expr(cx, vt, d);
                let b = self.expr(cx, vt, d);
                let c = self.expr(cx, vt, d);
                format!("{name}({a}, {b}, {c})")
            }
            "select" => {
                let a = self.expr(cx, vt, d);
                let b = self.expr(cx, vt, d);
                let s2 = S::of(vt.s.bits(), self.rng.chance(50));
                let c = self.expr(cx, vt.with_s(s2), d);
                format!("select({a}, {b}, {c})")
            }
            "mul24" | "mad24" => {
                let a = self.expr(cx, vt, d);
                let b = self.expr(cx, vt, d);
                let m = format!("(({t})0x7FFF)");
                if name == "mul24" {
                    format!("mul24(({a}) & {m}, ({b}) & {m})")
                } else {
                    let c = self.expr(cx, vt, d);
                    format!("mad24(({a}) & {m}, ({b}) & {m}, {c})")
                }
            }
            "any" | "all" => {
                let s2 = S::of(*self.rng.pick(&[8, 16, 32, 64]), true);
                let n2 = self.width();
                let a = self.expr(cx, Vt::new(s2, n2), d);
                format!("(({t}){name}({a}))")
            }
            "shuffle" | "shuffle2" => {
                let m = *self.rng.pick(&[2u8, 4, 8, 16]);
                let x = self.expr(cx, Vt::new(vt.s, m), d);
                let mask = self.expr(cx, vt.with_s(vt.s.unsigned()), d);
                if name == "shuffle" {
                    format!("shuffle({x}, {mask})")
                } else {
                    let y = self.expr(cx, Vt::new(vt.s, m), d);
                    format!("shuffle2({x}, {y}, {mask})")
                }
            }
            _ => unreachable!("{name}"),
        }
    }

    fn callable_pure(&self, cx: &Cx, ret: &Ty) -> Vec<usize> {
        (0..cx.callable)
            .filter(|&i| self.helpers[i].pure() && self.helpers[i].ret == *ret)
            .collect()
    }

    /// A call of helper `h`, or None if an argument cannot be made (no
    /// array or struct of the right type in scope).
    fn try_call(&mut self, cx: &Cx, h: usize, d: u32) -> Option<String> {
        let helper = self.helpers[h].clone();
        if !cx.spend(helper.iters) {
            return None;
        }
        let mut args = Vec::new();
        for p in &helper.params {
            let arg = match p {
                Param::Value(Ty::V(vt)) => self.expr(cx, *vt, d),
                Param::Value(Ty::St(i)) => self.struct_expr(cx, *i, d)?,
                Param::Value(Ty::Arr(..)) => unreachable!("arrays are not passed by value"),
                Param::Array(vt, len) => {
                    let want = Ty::Arr(Box::new(Ty::V(*vt)), *len);
                    let cands: Vec<Access> = self
                        .accesses(cx)
                        .into_iter()
                        .filter(|a| a.mutable && a.ty == want)
                        .collect();
                    if cands.is_empty() {
                        return None;
                    }
                    let a = self.rng.pick(&cands).clone();
                    self.render(cx, &a.parts)
                }
                Param::StructPtr(i) => {
                    let cands: Vec<Access> = self
                        .accesses(cx)
                        .into_iter()
                        .filter(|a| a.mutable && a.ty == Ty::St(*i))
                        .collect();
                    if cands.is_empty() {
                        return None;
                    }
                    let a = self.rng.pick(&cands).clone();
                    format!("&{}", self.render(cx, &a.parts))
                }
            };
            args.push(arg);
        }
        Some(format!("{}({})", helper.name, args.join(", ")))
    }

    fn call(&mut self, cx: &Cx, h: usize, d: u32) -> String {
        // Pure helpers take values only, which can always be made, except
        // a struct when none is in scope: then a literal of the return
        // type stands in.
        match self.try_call(cx, h, d) {
            Some(c) => c,
            None => match self.helpers[h].ret.clone() {
                Ty::V(vt) => self.literal(vt),
                _ => unreachable!("only value-returning helpers are called in expressions"),
            },
        }
    }

    /// An expression of struct type `i`: a struct in scope or a call.
    fn struct_expr(&mut self, cx: &Cx, i: usize, d: u32) -> Option<String> {
        let cands: Vec<Access> = self
            .accesses(cx)
            .into_iter()
            .filter(|a| a.ty == Ty::St(i))
            .collect();
        let helpers = self.callable_pure(cx, &Ty::St(i));
        if !helpers.is_empty() && (cands.is_empty() || self.rng.chance(20)) && d > 0 {
            let h = *self.rng.pick(&helpers);
            if let Some(c) = self.try_call(cx, h, d - 1) {
                return Some(c);
            }
        }
        if cands.is_empty() {
            return None;
        }
        let a = self.rng.pick(&cands).clone();
        Some(self.render(cx, &a.parts))
    }

    fn leaf(&mut self, cx: &Cx, vt: Vt) -> String {
        if self.uniform {
            return self.uniform_leaf(cx, vt);
        }
        let t = vt.name();
        let accs: Vec<Access> = self
            .accesses(cx)
            .into_iter()
            .filter(|a| a.ty == Ty::V(vt))
            .collect();
        let has_locals = cx.locals.iter().any(|l| l.vt == vt);
        let w = [
            if accs.is_empty() { 0 } else { 50 },
            16,
            if cx.kernel { 10 } else { 0 },
            if cx.kernel { 6 } else { 0 },
            4,
            if has_locals { 10 } else { 0 },
            if cx.kernel { 3 } else { 0 },
        ];
        let scalar = |this: &mut Self, e: String| -> String {
            if vt.is_vec() && this.rng.chance(50) {
                format!("(({t})(({})({e})))", vt.s.name())
            } else if vt.is_vec() {
                // Lanes that differ.
                let lanes: Vec<String> = (0..u32::from(vt.n))
                    .map(|k| format!("{}", k * 37 % 128))
                    .collect();
                format!(
                    "((({t})(({})({e}))) ^ (({t})({})))",
                    vt.s.name(),
                    lanes.join(", ")
                )
            } else {
                format!("(({t}){e})")
            }
        };
        match self.rng.weighted(&w) {
            0 => {
                let a = self.rng.pick(&accs).clone();
                self.render(cx, &a.parts)
            }
            1 => self.literal(vt),
            2 => {
                let i = if self.rng.chance(50) {
                    format!("(gid + {}u) & {}", self.rng.below(INPUT_LEN), INPUT_LEN - 1)
                } else {
                    let s = self.scalar();
                    let e = self.leaf(cx, Vt::scalar(s));
                    format!("({e}) & {}", INPUT_LEN - 1)
                };
                scalar(self, format!("in[{i}]"))
            }
            3 => {
                let e = *self.rng.pick(&["gid", "lid", "arg", "get_group_id(0)"]);
                scalar(self, format!("(ulong){e}"))
            }
            4 => {
                let s = self.scalar();
                let e = self.leaf(cx, Vt::scalar(s));
                scalar(self, format!("ctab[({e}) & 15]"))
            }
            5 => {
                let cands: Vec<LocalArr> =
                    cx.locals.iter().filter(|l| l.vt == vt).cloned().collect();
                let l = self.rng.pick(&cands).clone();
                self.local_ref(cx, &l, cx.phase == Phase::Read)
            }
            6 => {
                let s = self.scalar();
                let e = self.leaf(cx, Vt::scalar(s));
                scalar(self, format!("out[ob + 1 + (uint)({e}) % {}u]", SLOTS - 1))
            }
            _ => unreachable!(),
        }
    }

    /// A leaf that is the same in every work-item: a literal, `arg`, a
    /// constant element of `in` or `ctab`, the group id, a loop counter.
    fn uniform_leaf(&mut self, cx: &Cx, vt: Vt) -> String {
        let t = vt.name();
        let counters: Vec<String> = cx
            .scopes
            .iter()
            .flatten()
            .filter(|v| v.uniform)
            .map(|v| v.name.clone())
            .collect();
        let w = [
            20,
            if cx.kernel { 10 } else { 0 },
            8,
            4,
            if counters.is_empty() { 0 } else { 16 },
        ];
        let e = match self.rng.weighted(&w) {
            0 => return self.literal(vt),
            1 => {
                if self.rng.chance(50) {
                    "arg".to_string()
                } else {
                    format!("in[{}]", self.rng.below(INPUT_LEN))
                }
            }
            2 => format!("ctab[{}]", self.rng.below(16)),
            3 => "(ulong)get_group_id(0)".to_string(),
            _ => format!("(ulong){}", self.rng.pick(&counters)),
        };
        if vt.is_vec() {
            format!("(({t})(({})({e})))", vt.s.name())
        } else {
            format!("(({t}){e})")
        }
    }

    /// A jump from here to a point inside `to` loops would leave a loop
    /// in some work-items only (`Cx::divergent_exit`), and the
    /// `divergent-loop-exit` bug is avoided.
    fn avoids_divergent_exit(&self, cx: &Cx, to: usize) -> bool {
        cx.divergent_exit(to) && self.cfg.avoids("divergent-loop-exit")
    }

    /// A scalar condition; `leaves_loop`: it decides whether work-items
    /// leave a loop, so it is the same for all of them where the
    /// `divergent-loop-exit` bug is avoided.
    fn cond(&mut self, cx: &Cx, leaves_loop: bool, depth: u32) -> String {
        let s = self.scalar();
        let was = self.uniform;
        self.uniform = was || (leaves_loop && self.cfg.avoids("divergent-loop-exit"));
        let c = self.expr(cx, Vt::scalar(s), depth);
        self.uniform = was;
        c
    }

    /// `l[...]`: one of this work-item's own slots, or (`any`) any slot.
    fn local_ref(&mut self, cx: &Cx, l: &LocalArr, any: bool) -> String {
        let s = self.scalar();
        if any {
            let e = self.leaf(cx, Vt::scalar(s));
            let how = self.rng.below(3);
            match how {
                0 => format!("{}[({e}) & {}]", l.name, l.len - 1),
                1 => format!(
                    "{}[(lid * {} + {}u) & {}]",
                    l.name,
                    l.per,
                    self.rng.below(l.len),
                    l.len - 1
                ),
                _ => format!("{}[(lid + 1u) % {}u * {}]", l.name, self.local_size, l.per),
            }
        } else if l.per == 1 {
            format!("{}[lid]", l.name)
        } else {
            let e = self.leaf(cx, Vt::scalar(s));
            format!("{}[lid * {} + (({e}) & {})]", l.name, l.per, l.per - 1)
        }
    }

    // ---- initialisers and hashing ----

    fn init(&mut self, cx: &Cx, ty: &Ty) -> String {
        self.init_in(cx, ty, false, false)
    }

    /// An initialiser; `nested`: part of a bigger one; `runtime`: must not
    /// be a constant (its first scalar is xored with a run-time 0, which
    /// clang cannot fold: get_work_dim() - 1).
    fn init_in(&mut self, cx: &Cx, ty: &Ty, nested: bool, runtime: bool) -> String {
        match ty {
            Ty::V(vt) => {
                let e = self.expr(cx, *vt, if nested { 1 } else { 3 });
                if runtime {
                    let t = vt.name();
                    format!("(({t})(({e}) ^ ({t})(get_work_dim() - 1u)))")
                } else {
                    e
                }
            }
            Ty::St(i) => {
                let fields = self.structs[*i].fields.clone();
                let parts: Vec<String> = fields
                    .iter()
                    .enumerate()
                    .map(|(f, (_, fty))| self.init_in(cx, fty, true, runtime && f == 0))
                    .collect();
                format!("{{ {} }}", parts.join(", "))
            }
            Ty::Arr(elem, len) => {
                let guard = runtime;
                let parts: Vec<String> = (0..*len)
                    .map(|k| self.init_in(cx, elem, true, guard && k == 0))
                    .collect();
                format!("{{ {} }}", parts.join(", "))
            }
        }
    }

    /// Statements folding `x` (of type `ty`) into `h`.
    fn fold(&mut self, cx: &mut Cx, out: &mut Out, x: &str, ty: &Ty) {
        match ty {
            Ty::V(vt) if !vt.is_vec() => out.line(format!("h = mix(h, (ulong)({x}));")),
            Ty::V(vt) => {
                self.support.insert(Support::HashVec(*vt));
                out.line(format!("h = hash_{}(h, {x});", vt.name()));
            }
            Ty::St(i) => {
                self.need_struct_hash(*i);
                out.line(format!("h = hash_S{i}(h, {x});"));
            }
            Ty::Arr(elem, len) => {
                let j = cx.fresh("j");
                out.open(format!("for (uint {j} = 0; {j} < {len}u; {j}++) {{"));
                self.fold(cx, out, &format!("{x}[{j}]"), elem);
                out.close("}");
            }
        }
    }

    /// Loop iterations hashing a value of type `ty` runs.
    fn fold_iters(&self, ty: &Ty) -> usize {
        match ty {
            Ty::V(_) => 0,
            Ty::St(i) => self.structs[*i]
                .fields
                .iter()
                .map(|(_, f)| self.fold_iters(f))
                .sum(),
            Ty::Arr(elem, len) => len * (1 + self.fold_iters(elem)),
        }
    }

    /// A type for a new variable of `cx` whose hashing (in a kernel) fits
    /// the iteration budget: else a scalar.
    fn var_ty_in(&mut self, cx: &Cx) -> Ty {
        let ty = self.var_ty();
        if cx.kernel && !cx.spend(self.fold_iters(&ty)) {
            let s = self.scalar();
            return Ty::V(Vt::scalar(s));
        }
        ty
    }

    fn need_struct_hash(&mut self, i: usize) {
        if !self.support.insert(Support::HashStruct(i)) {
            return;
        }
        for (_, fty) in self.structs[i].fields.clone() {
            let mut t = fty;
            while let Ty::Arr(elem, _) = t {
                t = *elem;
            }
            match t {
                Ty::V(vt) if vt.is_vec() => {
                    self.support.insert(Support::HashVec(vt));
                }
                Ty::St(j) => self.need_struct_hash(j),
                _ => {}
            }
        }
    }

    fn support_text(&self) -> String {
        let mut s = String::new();
        for sup in &self.support {
            let name = support_name(*sup);
            match *sup {
                Support::Div(vt) | Support::Rem(vt) => {
                    let t = vt.name();
                    let op = if matches!(sup, Support::Div(_)) {
                        "/"
                    } else {
                        "%"
                    };
                    let min = vt.s.min_src();
                    if !vt.is_vec() {
                        let bad = if vt.s.signed() {
                            format!("b == ({t})0 || (a == ({t}){min} && b == ({t})-1)")
                        } else {
                            format!("b == ({t})0")
                        };
                        writeln!(
                            s,
                            "{t} {name}({t} a, {t} b) {{ return ({bad}) ? a : ({t})(a {op} b); }}"
                        )
                        .unwrap();
                    } else {
                        let bad = if vt.s.signed() {
                            format!("(b == ({t})(0)) | ((a == ({t})({min})) & (b == ({t})(-1)))")
                        } else {
                            format!("b == ({t})(0)")
                        };
                        writeln!(
                            s,
                            "{t} {name}({t} a, {t} b) {{ return a {op} select(b, ({t})(1), {bad}); }}"
                        )
                        .unwrap();
                    }
                }
                Support::Clamp(vt) => {
                    let t = vt.name();
                    writeln!(
                        s,
                        "{t} {name}({t} x, {t} a, {t} b) {{ return clamp(x, min(a, b), max(a, b)); }}"
                    )
                    .unwrap();
                }
                Support::HashVec(vt) => {
                    let t = vt.name();
                    write!(s, "ulong {name}(ulong h, {t} v) {{").unwrap();
                    for k in 0..vt.n {
                        write!(s, " h = mix(h, (ulong)v.s{k:x});").unwrap();
                    }
                    s.push_str(" return h; }\n");
                }
                Support::HashStruct(_) => {}
            }
        }
        // Structs after vectors: they use the vector hashes, and struct i
        // only contains structs below i.
        for sup in &self.support {
            if let Support::HashStruct(i) = *sup {
                let mut body = Out::default();
                let mut names = 0;
                for (fname, fty) in &self.structs[i].fields {
                    hash_lines(&mut body, &format!("v.{fname}"), fty, &mut names);
                }
                writeln!(s, "ulong hash_S{i}(ulong h, S{i} v) {{").unwrap();
                for l in body.lines {
                    writeln!(s, "    {l}").unwrap();
                }
                s.push_str("    return h;\n}\n");
            }
        }
        s
    }

    // ---- statements ----

    fn block(&mut self, cx: &mut Cx, out: &mut Out, stmts: usize) {
        cx.scopes.push(Vec::new());
        cx.depth += 1;
        for _ in 0..stmts {
            if cx.budget == 0 {
                break;
            }
            self.stmt(cx, out);
        }
        self.end_scope(cx, out);
        cx.depth -= 1;
    }

    /// Folds the innermost scope's variables into `h` and drops them.
    fn end_scope(&mut self, cx: &mut Cx, out: &mut Out) {
        let vars = cx.scopes.pop().unwrap();
        if cx.kernel {
            for v in vars.iter().filter(|v| v.fold) {
                self.fold(cx, out, &v.name.clone(), &v.ty);
            }
        }
    }

    /// Sets the number of operators the next expressions may have in all.
    fn size(&mut self) {
        self.nodes = self.rng.range(2, 14);
    }

    fn stmt(&mut self, cx: &mut Cx, out: &mut Out) {
        cx.budget = cx.budget.saturating_sub(1);
        self.size();
        let nested = cx.depth < 4 && cx.budget > 2;
        let top = cx.kernel && cx.depth == 1;
        let side_helpers: Vec<usize> = (0..cx.callable)
            .filter(|&i| !self.helpers[i].pure())
            .collect();
        let w = [
            14,                         // 0 decl
            30,                         // 1 assign
            if nested { 9 } else { 0 }, // 2 if
            if nested { 8 } else { 0 }, // 3 for
            if nested { 3 } else { 0 }, // 4 while
            if nested { 3 } else { 0 }, // 5 do-while
            if nested { 5 } else { 0 }, // 6 switch
            if nested { 2 } else { 0 }, // 7 block
            if cx.can_break() || cx.can_continue() {
                5
            } else {
                0
            }, // 8 break/continue
            if side_helpers.is_empty() { 0 } else { 6 }, // 9 side-effect call
            if cx.kernel { 4 } else { 0 }, // 10 out write
            if cx.kernel && !cx.locals.is_empty() && cx.phase == Phase::Write {
                6
            } else {
                0
            }, // 11 local write
            if top && !cx.locals.is_empty() { 4 } else { 0 }, // 12 barrier
            if top && !cx.locals.is_empty() && nested {
                2
            } else {
                0
            }, // 13 uniform loop
            if self.cfg.goto && nested { 3 } else { 0 }, // 14 goto region
            if !cx.labels.is_empty() { 3 } else { 0 }, // 15 goto
            if self.cfg.irreducible && nested { 2 } else { 0 }, // 16 goto into loop
            if cx.ret.is_some() && cx.depth > 1 {
                2
            } else {
                0
            }, // 17 early return
        ];
        match self.rng.weighted(&w) {
            0 => {
                let ty = self.var_ty_in(cx);
                let name = cx.fresh(match ty {
                    Ty::V(_) => "v",
                    Ty::St(_) => "s",
                    Ty::Arr(..) => "a",
                });
                let init = self.init(cx, &ty);
                out.line(format!("{} = {init};", ty.declare(&name)));
                cx.declare(&name, ty, true);
            }
            1 => self.assign(cx, out),
            2 => {
                let s = self.scalar();
                let c = self.expr(cx, Vt::scalar(s), 2);
                out.open(format!("if ({c}) {{"));
                let saved = cx.diverge(self.uniform);
                let n = self.rng.range(1, 4);
                self.block(cx, out, n);
                if self.rng.chance(50) {
                    out.indent -= 1;
                    out.open("} else {");
                    let n = self.rng.range(1, 4);
                    self.block(cx, out, n);
                }
                cx.diverged_at = saved;
                out.close("}");
            }
            3 => {
                let trip = self.rng.range(1, 5);
                let kind = self.rng.below(5);
                let max_trip = if kind == 2 { 4 } else { trip };
                if !cx.spend(max_trip + 1) {
                    return;
                }
                let i = cx.fresh("i");
                let head = match kind {
                    0 => format!("for (int {i} = {trip}; {i} > 0; {i}--)"),
                    1 => format!("for (uchar {i} = 0; {i} != {trip}; {i}++)"),
                    2 => {
                        // A trip count that may differ between work-items
                        // and change in the loop, still at most 4.
                        let e = self.cond(cx, true, 1);
                        format!("for (uint {i} = 0; {i} < (uint)(({e}) & 3) + 1u; {i}++)")
                    }
                    3 => format!("for (long {i} = -2; {i} < {}; {i} += 2)", 2 * trip - 2),
                    _ => format!("for (uint {i} = 0; {i} < {trip}u; {i}++)"),
                };
                out.open(format!("{head} {{"));
                cx.brk.push(Brk::Loop);
                cx.scopes.push(Vec::new());
                let ty = Ty::V(Vt::scalar(match head.split_whitespace().nth(1) {
                    Some("(int") => S::I32,
                    Some("(uchar") => S::U8,
                    Some("(long") => S::I64,
                    _ => S::U32,
                }));
                cx.scopes.last_mut().unwrap().push(Var {
                    name: i,
                    ty,
                    mutable: false,
                    deref: false,
                    fold: false,
                    uniform: true,
                });
                let n = self.rng.range(1, 5);
                let saved = cx.mult;
                cx.mult *= max_trip;
                self.block(cx, out, n);
                cx.mult = saved;
                cx.scopes.pop();
                cx.brk.pop();
                out.close("}");
            }
            4 | 5 => {
                let trip = self.rng.range(1, 5);
                if !cx.spend(trip + 1) {
                    return;
                }
                let c = cx.fresh("w");
                out.line(format!("uint {c} = 0;"));
                cx.scopes.last_mut().unwrap().push(Var {
                    name: c.clone(),
                    ty: Ty::V(Vt::scalar(S::U32)),
                    mutable: false,
                    deref: false,
                    fold: cx.kernel,

                    uniform: true,
                });
                cx.brk.push(Brk::Loop);
                let n = self.rng.range(1, 5);
                let saved = cx.mult;
                cx.mult *= trip;
                if self.rng.chance(50) {
                    out.open(format!("while ({c}++ < {trip}u) {{"));
                    self.block(cx, out, n);
                    out.close("}");
                } else {
                    out.open("do {");
                    self.block(cx, out, n);
                    out.close(format!("}} while (++{c} < {trip}u);"));
                }
                cx.mult = saved;
                cx.brk.pop();
            }
            6 => {
                let s = self.scalar();
                let e = self.expr(cx, Vt::scalar(s), 2);
                let masked = self.rng.chance(70);
                if masked {
                    out.open(format!("switch (({e}) & 7) {{"));
                } else {
                    out.open(format!("switch ({e}) {{"));
                }
                cx.brk.push(Brk::Switch);
                let saved = cx.diverge(self.uniform);
                let ncases = self.rng.range(1, 5);
                let mut used = BTreeSet::new();
                for _ in 0..ncases {
                    let v = if masked {
                        self.rng.below(8).to_string()
                    } else {
                        self.scalar_lit(s)
                    };
                    if !used.insert(v.clone()) {
                        continue;
                    }
                    out.open(format!("case {v}: {{"));
                    let n = self.rng.range(1, 3);
                    self.block(cx, out, n);
                    if self.rng.chance(75) {
                        out.line("break;");
                    }
                    out.close("}");
                }
                if self.rng.chance(60) {
                    out.open("default: {");
                    let n = self.rng.range(1, 3);
                    self.block(cx, out, n);
                    out.close("}");
                }
                cx.diverged_at = saved;
                cx.brk.pop();
                out.close("}");
            }
            7 => {
                out.open("{");
                let n = self.rng.range(1, 4);
                self.block(cx, out, n);
                out.close("}");
            }
            8 => {
                let mut what = if cx.can_break() && (!cx.can_continue() || self.rng.chance(50)) {
                    "break"
                } else {
                    "continue"
                };
                let mut leaves = what == "break" && cx.brk.last() == Some(&Brk::Loop);
                if leaves && self.avoids_divergent_exit(cx, cx.loops() - 1) {
                    if !cx.can_continue() {
                        return;
                    }
                    (what, leaves) = ("continue", false);
                }
                let c = self.cond(cx, leaves, 2);
                out.line(format!("if ({c}) {what};"));
            }
            9 => {
                let h = *self.rng.pick(&side_helpers);
                if let Some(call) = self.try_call(cx, h, 2) {
                    let ret = self.helpers[h].ret.clone();
                    let fold = if cx.kernel { self.fold_iters(&ret) } else { 0 };
                    if self.rng.chance(50) && cx.spend(fold) {
                        let name = cx.fresh("r");
                        out.line(format!("{} = {call};", ret.declare(&name)));
                        cx.declare(&name, ret, true);
                    } else {
                        out.line(format!("{call};"));
                    }
                }
            }
            10 => {
                let s = self.scalar();
                let vt = Vt::scalar(s);
                let e = self.expr(cx, vt, 3);
                let slot = 1 + self.rng.below(SLOTS - 1);
                out.line(format!("out[ob + {slot}] = (ulong)({e});"));
            }
            11 => {
                let l = self.rng.pick(&cx.locals).clone();
                let target = self.local_ref(cx, &l, false);
                let e = self.expr(cx, l.vt, 3);
                out.line(format!("{target} = {e};"));
            }
            12 => {
                out.line("barrier(CLK_LOCAL_MEM_FENCE);");
                cx.phase = match cx.phase {
                    Phase::Write => Phase::Read,
                    Phase::Read => Phase::Write,
                };
            }
            13 => {
                let trip = self.rng.range(1, 3);
                if !cx.spend(trip + 1) {
                    return;
                }
                if cx.phase == Phase::Read {
                    out.line("barrier(CLK_LOCAL_MEM_FENCE);");
                }
                let u = cx.fresh("u");
                out.open(format!("for (uint {u} = 0; {u} < {trip}u; {u}++) {{"));
                cx.brk.push(Brk::Uniform);
                cx.phase = Phase::Write;
                let n = self.rng.range(1, 4);
                // Not self.block: the barriers must stay at this level.
                cx.scopes.push(Vec::new());
                cx.scopes.last_mut().unwrap().push(Var {
                    name: u,
                    ty: Ty::V(Vt::scalar(S::U32)),
                    mutable: false,
                    deref: false,
                    fold: false,

                    uniform: true,
                });
                for _ in 0..n {
                    self.size();
                    let l = self.rng.pick(&cx.locals).clone();
                    let target = self.local_ref(cx, &l, false);
                    let e = self.expr(cx, l.vt, 3);
                    out.line(format!("{target} = {e};"));
                }
                out.line("barrier(CLK_LOCAL_MEM_FENCE);");
                cx.phase = Phase::Read;
                out.open("{");
                let n = self.rng.range(1, 4);
                let saved = cx.mult;
                cx.mult *= trip;
                self.block(cx, out, n);
                cx.mult = saved;
                out.close("}");
                out.line("barrier(CLK_LOCAL_MEM_FENCE);");
                cx.scopes.pop();
                cx.phase = Phase::Write;
                cx.brk.pop();
                out.close("}");
            }
            14 => {
                let label = cx.fresh("L");
                cx.labels.push((label.clone(), cx.loops()));
                out.open("{");
                let n = self.rng.range(2, 5);
                self.block(cx, out, n);
                out.close("}");
                cx.labels.pop();
                out.line(format!("{label}: ;"));
            }
            15 => {
                let (label, loops) = self.rng.pick(&cx.labels).clone();
                if self.avoids_divergent_exit(cx, loops) {
                    return;
                }
                let c = self.cond(cx, cx.loops() > loops, 2);
                out.line(format!("if ({c}) goto {label};"));
            }
            16 => {
                // A second entry into a loop body: irreducible.
                let trip = self.rng.range(1, 4);
                if !cx.spend(trip + 1) {
                    return;
                }
                let c = cx.fresh("c");
                let label = cx.fresh("E");
                out.line(format!("uint {c} = 0;"));
                cx.scopes.last_mut().unwrap().push(Var {
                    name: c.clone(),
                    ty: Ty::V(Vt::scalar(S::U32)),
                    mutable: false,
                    deref: false,
                    fold: cx.kernel,

                    uniform: false,
                });
                let s = self.scalar();
                let e = self.expr(cx, Vt::scalar(s), 2);
                out.line(format!("if ({e}) goto {label};"));
                out.open(format!("for (; {c} < {trip}u; {c}++) {{"));
                cx.brk.push(Brk::Loop);
                let saved = cx.mult;
                cx.mult *= trip;
                out.open("{");
                let n = self.rng.range(1, 3);
                self.block(cx, out, n);
                out.close("}");
                out.line(format!("{label}: ;"));
                out.open("{");
                let n = self.rng.range(1, 3);
                self.block(cx, out, n);
                out.close("}");
                cx.mult = saved;
                cx.brk.pop();
                out.close("}");
            }
            17 => {
                let ret = cx.ret.clone().unwrap();
                if self.avoids_divergent_exit(cx, 0) {
                    return;
                }
                let c = self.cond(cx, cx.loops() > 0, 2);
                if let Some(v) = self.value_of(cx, &ret) {
                    out.line(format!("if ({c}) return {v};"));
                }
            }
            _ => unreachable!(),
        }
    }

    /// An expression of any value type `ty` (a struct may be unavailable).
    fn value_of(&mut self, cx: &Cx, ty: &Ty) -> Option<String> {
        match ty {
            Ty::V(vt) => Some(self.expr(cx, *vt, 3)),
            Ty::St(i) => self.struct_expr(cx, *i, 2),
            Ty::Arr(..) => None,
        }
    }

    fn assign(&mut self, cx: &mut Cx, out: &mut Out) {
        let cands: Vec<Access> = self
            .accesses(cx)
            .into_iter()
            .filter(|a| a.mutable && !matches!(a.ty, Ty::Arr(..)))
            .collect();
        if cands.is_empty() {
            return;
        }
        let a = self.rng.pick(&cands).clone();
        let lv = self.render(cx, &a.parts);
        let vt = match a.ty {
            Ty::St(i) => {
                if let Some(e) = self.struct_expr(cx, i, 2) {
                    out.line(format!("{lv} = {e};"));
                }
                return;
            }
            Ty::V(vt) => vt,
            Ty::Arr(..) => unreachable!(),
        };
        match self.rng.below(10) {
            0 | 1 if vt.is_vec() => {
                // Component write: distinct lanes.
                let k = *self
                    .rng
                    .pick([1u8, 2, 3, 4, 8].map(|k| k.min(vt.n)).as_ref());
                let k = if k == vt.n { 1 } else { k };
                let mut lanes: Vec<usize> = (0..vt.n as usize).collect();
                for i in 0..lanes.len() {
                    let j = i + self.rng.below(lanes.len() - i);
                    lanes.swap(i, j);
                }
                lanes.truncate(k as usize);
                let sel: String = lanes
                    .iter()
                    .map(|&l| b"0123456789abcdef"[l] as char)
                    .collect();
                let e = self.expr(cx, Vt::new(vt.s, k), 3);
                out.line(format!("{lv}.s{sel} = {e};"));
            }
            2 | 3 => {
                // Compound assignment where it cannot overflow.
                let narrow = !vt.is_vec() && vt.s.bits() < 32;
                let mut ops = vec!["^=", "|=", "&=", ">>="];
                if !vt.s.signed() && !narrow {
                    ops.extend(["+=", "-=", "*=", "<<="]);
                }
                if narrow {
                    // Promoted to int: a sum of two narrow values fits.
                    ops.extend(["+=", "-="]);
                }
                let op = *self.rng.pick(&ops);
                let e = if op == ">>=" || op == "<<=" {
                    if vt.is_vec() {
                        self.expr(cx, vt, 2)
                    } else {
                        let s2 = self.scalar();
                        self.expr(cx, Vt::scalar(s2), 2)
                    }
                } else {
                    self.expr(cx, vt, 3)
                };
                out.line(format!("{lv} {op} {e};"));
            }
            4 if !vt.is_vec() && !vt.s.signed() => {
                let op = *self.rng.pick(&["++", "--"]);
                if self.rng.chance(50) {
                    out.line(format!("{lv}{op};"));
                } else {
                    out.line(format!("{op}{lv};"));
                }
            }
            5 => {
                // Read-modify-write through the expression generator.
                let e = self.expr(cx, vt, 2);
                let op = *self.rng.pick(&["+", "-", "*"]);
                let rhs = self.arith(vt, op, &lv, &e);
                out.line(format!("{lv} = {rhs};"));
            }
            _ => {
                let e = self.expr(cx, vt, 4);
                out.line(format!("{lv} = {e};"));
            }
        }
    }

    // ---- functions ----

    fn helper(&mut self, index: usize) -> (Helper, String) {
        let ret = if !self.structs.is_empty() && self.rng.chance(25) {
            Ty::St(self.rng.below(self.structs.len()))
        } else {
            Ty::V(self.vt())
        };
        let nparams = self.rng.range(1, 4);
        let mut params = Vec::new();
        let mut vars = Vec::new();
        let mut decls = Vec::new();
        for p in 0..nparams {
            let name = format!("p{p}");
            let param = match self.rng.weighted(&[50, 20, 15, 15]) {
                1 if !self.structs.is_empty() => {
                    Param::Value(Ty::St(self.rng.below(self.structs.len())))
                }
                2 => {
                    let vt = self.small_vt();
                    Param::Array(vt, *self.rng.pick(&[2, 4, 8, 16]))
                }
                3 if !self.structs.is_empty() => {
                    Param::StructPtr(self.rng.below(self.structs.len()))
                }
                _ => Param::Value(Ty::V(self.vt())),
            };
            let (decl, var) = match &param {
                Param::Value(ty) => {
                    let mutable = match ty {
                        Ty::St(_) => self.cfg.byval_mutation,
                        _ => true,
                    };
                    (
                        ty.declare(&name),
                        Var {
                            name: name.clone(),
                            ty: ty.clone(),
                            mutable,
                            deref: false,
                            fold: false,
                            uniform: false,
                        },
                    )
                }
                // Always `T* p`: in OpenCL C 3.0 with the generic address
                // space, clang-15 makes `T p[len]` a `__private T*` while
                // `T* p` and struct-pointer members are generic, and a
                // generic pointer cannot be passed to it.
                Param::Array(vt, len) => (
                    format!("{}* {name}", vt.name()),
                    Var {
                        name: name.clone(),
                        ty: Ty::Arr(Box::new(Ty::V(*vt)), *len),
                        mutable: true,
                        deref: false,
                        fold: false,

                        uniform: false,
                    },
                ),
                Param::StructPtr(i) => (
                    format!("S{i}* {name}"),
                    Var {
                        name: name.clone(),
                        ty: Ty::St(*i),
                        mutable: true,
                        deref: true,
                        fold: false,

                        uniform: false,
                    },
                ),
            };
            decls.push(decl);
            vars.push(var);
            params.push(param);
        }
        let name = format!("f{index}");
        let mut cx = Cx {
            diverged_at: None,
            scopes: vec![vars],
            kernel: false,
            callable: index,
            ret: Some(ret.clone()),
            brk: Vec::new(),
            labels: Vec::new(),
            locals: Vec::new(),
            phase: Phase::Write,
            depth: 0,
            budget: self.rng.range(3, 14),
            names: 0,
            mult: 1,
            iters: Default::default(),
        };
        let mut out = Out {
            lines: Vec::new(),
            indent: 1,
        };
        cx.scopes.push(Vec::new());
        cx.depth = 1;
        while cx.budget > 0 {
            self.stmt(&mut cx, &mut out);
        }
        self.size();
        let value = match self.value_of(&cx, &ret) {
            Some(v) => v,
            None => {
                // A struct to return: declare one.
                let v = cx.fresh("s");
                let init = self.init(&cx, &ret);
                out.line(format!("{} = {init};", ret.declare(&v)));
                v
            }
        };
        out.line(format!("return {value};"));
        let attr = if self.rng.chance(30) {
            "__attribute__((noinline)) "
        } else {
            ""
        };
        let mut text = format!(
            "{attr}{} {name}({}) {{\n",
            ret.base_name(),
            decls.join(", ")
        );
        for l in out.lines {
            text.push_str(&l);
            text.push('\n');
        }
        text.push_str("}\n");
        let iters = cx.iters.get();
        (
            Helper {
                name,
                ret,
                params,
                iters,
            },
            text,
        )
    }

    fn kernel(&mut self, name: &str, base: usize) -> String {
        let mut out = Out {
            lines: Vec::new(),
            indent: 1,
        };
        out.line("const uint gid = get_global_id(0);");
        out.line("const uint lid = get_local_id(0);");
        out.line(format!("const uint ob = {base}u + gid * {SLOTS}u;"));
        out.line("ulong h = 0xcbf29ce484222325UL;");
        for s in 1..SLOTS {
            out.line(format!("out[ob + {s}] = 0;"));
        }
        let mut cx = Cx {
            diverged_at: None,
            scopes: vec![Vec::new()],
            kernel: true,
            callable: self.helpers.len(),
            ret: None,
            brk: Vec::new(),
            labels: Vec::new(),
            locals: Vec::new(),
            phase: Phase::Write,
            depth: 1,
            budget: self.rng.range(self.cfg.max_stmts / 3, self.cfg.max_stmts),
            names: 0,
            mult: 1,
            iters: Default::default(),
        };
        let nlocals = if self.rng.chance(40) {
            self.rng.range(1, 2)
        } else {
            0
        };
        let mut locals = Vec::new();
        for _ in 0..nlocals {
            let vt = self.small_vt();
            let per = *self.rng.pick(&[1, 2, 4]);
            let len = per * self.local_size;
            let l = LocalArr {
                name: cx.fresh("l"),
                vt,
                per,
                len,
            };
            out.line(format!("local {} {}[{len}];", vt.name(), l.name));
            locals.push(l);
        }
        // Initialised from anything but the local arrays themselves.
        for l in locals.clone() {
            for k in 0..l.per {
                self.size();
                let e = self.expr(&cx, l.vt, 2);
                out.line(format!(
                    "{}[lid * {} + {k}] = {e}; /*@keep*/",
                    l.name, l.per
                ));
            }
        }
        cx.locals = locals;
        // A few variables first, so statements have something to work on.
        cx.scopes.push(Vec::new());
        for _ in 0..self.rng.range(2, 5) {
            let ty = self.var_ty_in(&cx);
            self.size();
            let v = cx.fresh(match ty {
                Ty::V(_) => "v",
                Ty::St(_) => "s",
                Ty::Arr(..) => "a",
            });
            let init = self.init(&cx, &ty);
            out.line(format!("{} = {init};", ty.declare(&v)));
            cx.declare(&v, ty, true);
        }
        while cx.budget > 0 {
            self.stmt(&mut cx, &mut out);
        }
        self.end_scope(&mut cx, &mut out);
        for l in cx.locals.clone() {
            for k in 0..l.per {
                self.fold(
                    &mut cx,
                    &mut out,
                    &format!("{}[lid * {} + {k}]", l.name, l.per),
                    &Ty::V(l.vt),
                );
            }
        }
        out.line("out[ob] = h;");
        let mut text = format!(
            "kernel void {name}(global const ulong* in, global ulong* out, ulong arg) {{\n    \
             // at most {} loop iterations\n",
            cx.iters.get()
        );
        for l in out.lines {
            text.push_str(&l);
            text.push('\n');
        }
        text.push_str("}\n");
        text
    }
}

fn support_name(s: Support) -> String {
    match s {
        Support::Div(vt) => format!("div_{}", vt.name()),
        Support::Rem(vt) => format!("rem_{}", vt.name()),
        Support::Clamp(vt) => format!("clampx_{}", vt.name()),
        Support::HashVec(vt) => format!("hash_{}", vt.name()),
        Support::HashStruct(i) => format!("hash_S{i}"),
    }
}

/// The lines of a struct hash that fold `x` of type `ty` into `h`.
fn hash_lines(out: &mut Out, x: &str, ty: &Ty, names: &mut usize) {
    match ty {
        Ty::V(vt) if !vt.is_vec() => out.line(format!("h = mix(h, (ulong)({x}));")),
        Ty::V(vt) => out.line(format!("h = hash_{}(h, {x});", vt.name())),
        Ty::St(i) => out.line(format!("h = hash_S{i}(h, {x});")),
        Ty::Arr(elem, len) => {
            *names += 1;
            let j = format!("j{names}");
            out.open(format!("for (uint {j} = 0; {j} < {len}u; {j}++) {{"));
            hash_lines(out, &format!("{x}[{j}]"), elem, names);
            out.close("}");
        }
    }
}
