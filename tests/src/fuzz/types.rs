//! The integer types the generator uses: scalars, vectors, structs and
//! arrays.

/// An OpenCL C integer scalar type.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
pub enum S {
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
}

pub const ALL_S: [S; 8] = [S::I8, S::U8, S::I16, S::U16, S::I32, S::U32, S::I64, S::U64];

impl S {
    pub fn name(self) -> &'static str {
        match self {
            S::I8 => "char",
            S::U8 => "uchar",
            S::I16 => "short",
            S::U16 => "ushort",
            S::I32 => "int",
            S::U32 => "uint",
            S::I64 => "long",
            S::U64 => "ulong",
        }
    }

    pub fn bits(self) -> u32 {
        match self {
            S::I8 | S::U8 => 8,
            S::I16 | S::U16 => 16,
            S::I32 | S::U32 => 32,
            S::I64 | S::U64 => 64,
        }
    }

    pub fn signed(self) -> bool {
        matches!(self, S::I8 | S::I16 | S::I32 | S::I64)
    }

    pub fn of(bits: u32, signed: bool) -> S {
        match (bits, signed) {
            (8, true) => S::I8,
            (8, false) => S::U8,
            (16, true) => S::I16,
            (16, false) => S::U16,
            (32, true) => S::I32,
            (32, false) => S::U32,
            (64, true) => S::I64,
            (64, false) => S::U64,
            _ => panic!("no {bits}-bit integer type"),
        }
    }

    pub fn unsigned(self) -> S {
        S::of(self.bits(), false)
    }

    pub fn to_signed(self) -> S {
        S::of(self.bits(), true)
    }

    /// The unsigned type scalar arithmetic on `self` is done in, so that it
    /// wraps instead of overflowing: uint up to 32 bits (no promotion to a
    /// signed int), else ulong.
    pub fn wide(self) -> &'static str {
        if self.bits() <= 32 {
            "uint"
        } else {
            "ulong"
        }
    }

    /// All ones in this type's width.
    pub fn mask(self) -> u64 {
        if self.bits() == 64 {
            u64::MAX
        } else {
            (1u64 << self.bits()) - 1
        }
    }

    /// The smallest value, as C source of this type.
    pub fn min_src(self) -> &'static str {
        match self {
            S::I8 => "((char)-128)",
            S::I16 => "((short)-32768)",
            S::I32 => "(-2147483647 - 1)",
            S::I64 => "(-9223372036854775807L - 1L)",
            _ => "0",
        }
    }
}

/// A scalar (`n == 1`) or vector integer type.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
pub struct Vt {
    pub s: S,
    pub n: u8,
}

pub const WIDTHS: [u8; 6] = [1, 2, 3, 4, 8, 16];

impl Vt {
    pub fn new(s: S, n: u8) -> Self {
        Vt { s, n }
    }

    pub fn scalar(s: S) -> Self {
        Vt { s, n: 1 }
    }

    pub fn name(self) -> String {
        if self.n == 1 {
            self.s.name().to_owned()
        } else {
            format!("{}{}", self.s.name(), self.n)
        }
    }

    pub fn is_vec(self) -> bool {
        self.n > 1
    }

    pub fn with_s(self, s: S) -> Self {
        Vt { s, n: self.n }
    }

    /// Storage size in bytes (3-vectors take 4 elements).
    pub fn bytes(self) -> u32 {
        let n = if self.n == 3 { 4 } else { u32::from(self.n) };
        n * self.s.bits() / 8
    }
}

/// A type a variable or struct field can have.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Ty {
    V(Vt),
    /// Struct number `i` (`S<i>`).
    St(usize),
    /// An array of a value or struct type; the length is a power of two.
    Arr(Box<Ty>, usize),
}

impl Ty {
    /// The element type's name, for declarations (`int4`, `S1`).
    pub fn base_name(&self) -> String {
        match self {
            Ty::V(vt) => vt.name(),
            Ty::St(i) => format!("S{i}"),
            Ty::Arr(elem, _) => elem.base_name(),
        }
    }

    /// `name` declared with this type: `int4 v`, `S0 a[4]`.
    pub fn declare(&self, name: &str) -> String {
        match self {
            Ty::Arr(elem, len) => format!("{}[{len}]", elem.declare(name)),
            _ => format!("{} {name}", self.base_name()),
        }
    }
}

/// A generated struct type: its fields' names and types.
#[derive(Clone, Debug)]
pub struct StructDef {
    pub fields: Vec<(String, Ty)>,
}
