//! OpenCL.std extended instructions → GLSL.std.450, core instructions or
//! inline code. THE table of how each OpenCL builtin is implemented.
//!
//! Precision: the GLSL.std.450 transcendental functions (exp, log, pow,
//! sin, ...) meet Vulkan's precision, not OpenCL's full-profile ULP
//! bounds. In programs built from OpenCL C, the float and double versions
//! come from libclc instead (`frontend::libclc`, linked before llvm-spirv,
//! so they never reach this table; its module doc tables the decision per
//! builtin): the float entries here serve `native_*` / `half_*`,
//! `-cl-fast-relaxed-math` (whose bounds are Vulkan's). SPIR-V programs
//! (clCreateProgramWithIL) get libclc's too (`frontend::il_math`), except
//! those it cannot round-trip through LLVM IR (or that still have
//! specialization constants): there the float entries serve, and the
//! double ones are build errors (`no_double_here`).

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{self, GlslStd450Op as GLOp, Op, OpenclStd100Op, Word};

use super::context::{Lower, Res};
use super::emit::{ids, Block};

/// Flag of an OpenCL.std instruction number that carries a rounding mode
/// (`pipeline::strip_debug_ext_insts` moves vstore_half*_r's literal mode
/// into bits 8-9 of the number: spirt reads every operand as an id).
pub(crate) const ROUNDED_STORE: u32 = 0x1000;
use crate::analyses::address_space::Space;
use crate::analyses::type_table::{align_at, Ty};

/// How an OpenCL.std instruction is lowered.
#[derive(Clone, Copy)]
enum Impl {
    /// The GLSL.std.450 instruction with the same operands.
    Glsl(GLOp),
    /// Same, but GLSL.std.450 has it for 16/32-bit floats only.
    GlslNoDouble(GLOp),
    /// A core instruction with the same operands.
    Core(Op),
    /// Inline code in `lower_cl_ext_inst`.
    Inline,
}

/// The table: OpenCL.std name → implementation.
fn implementation(name: &str) -> Option<Impl> {
    use GLOp::*;
    use Impl::*;
    Some(match name {
        "fabs" => Glsl(FAbs),
        "sqrt" | "native_sqrt" | "half_sqrt" => Glsl(Sqrt),
        "rsqrt" | "native_rsqrt" | "half_rsqrt" => Glsl(InverseSqrt),
        "floor" => Glsl(Floor),
        "ceil" => Glsl(Ceil),
        "trunc" => Glsl(Trunc),
        "rint" => Glsl(RoundEven),
        "fma" => Glsl(Fma),
        "fmin" | "fmin_common" => Glsl(NMin),
        "fmax" | "fmax_common" => Glsl(NMax),
        "fclamp" => Glsl(NClamp),
        "s_min" => Glsl(SMin),
        "u_min" => Glsl(UMin),
        "s_max" => Glsl(SMax),
        "u_max" => Glsl(UMax),
        "s_clamp" => Glsl(SClamp),
        "u_clamp" => Glsl(UClamp),
        "s_abs" => Glsl(SAbs),
        "mix" => Glsl(FMix),
        "step" => Glsl(Step),
        "smoothstep" => Glsl(SmoothStep),
        "sign" => Glsl(FSign),
        "degrees" => Glsl(Degrees),
        "radians" => Glsl(Radians),
        "cross" => Glsl(Cross),
        "length" | "fast_length" => Glsl(Length),
        "distance" | "fast_distance" => Glsl(Distance),
        "normalize" | "fast_normalize" => Glsl(Normalize),
        "ldexp" => Glsl(Ldexp),
        "exp" | "native_exp" | "half_exp" => GlslNoDouble(Exp),
        "exp2" | "native_exp2" | "half_exp2" => GlslNoDouble(Exp2),
        "log" | "native_log" | "half_log" => GlslNoDouble(Log),
        "log2" | "native_log2" | "half_log2" => GlslNoDouble(Log2),
        "pow" | "powr" | "native_powr" | "half_powr" => GlslNoDouble(Pow),
        "sin" | "native_sin" | "half_sin" => GlslNoDouble(Sin),
        "cos" | "native_cos" | "half_cos" => GlslNoDouble(Cos),
        "tan" | "native_tan" | "half_tan" => GlslNoDouble(Tan),
        "asin" => GlslNoDouble(Asin),
        "acos" => GlslNoDouble(Acos),
        "atan" => GlslNoDouble(Atan),
        "atan2" => GlslNoDouble(Atan2),
        "sinh" => GlslNoDouble(Sinh),
        "cosh" => GlslNoDouble(Cosh),
        "tanh" => GlslNoDouble(Tanh),
        "asinh" => GlslNoDouble(Asinh),
        "acosh" => GlslNoDouble(Acosh),
        "atanh" => GlslNoDouble(Atanh),
        "fmod" => Core(Op::FRem),
        "native_divide" | "half_divide" => Core(Op::FDiv),
        "mad" | "native_recip" | "half_recip" | "u_abs" | "u_mad24" | "s_mad24" | "u_mul24"
        | "s_mul24" | "exp10" | "native_exp10" | "half_exp10" | "log10" | "native_log10"
        | "half_log10" | "expm1" | "log1p" | "cbrt" | "hypot" | "round" | "copysign" | "fdim"
        | "bitselect" | "select" | "popcount" | "clz" | "ctz" | "s_mul_hi" | "u_mul_hi"
        | "s_mad_hi" | "u_mad_hi" | "rotate" | "vloadn" | "vstoren" | "prefetch" | "sinpi"
        | "cospi" | "tanpi" | "asinpi" | "acospi" | "atanpi" | "atan2pi" | "u_abs_diff"
        | "s_abs_diff" | "u_add_sat" | "s_add_sat" | "u_sub_sat" | "s_sub_sat" | "u_hadd"
        | "s_hadd" | "u_rhadd" | "s_rhadd" | "u_mad_sat" | "s_mad_sat" | "u_upsample"
        | "s_upsample" | "maxmag" | "minmag" | "nan" | "pown" | "rootn" | "remainder" | "logb"
        | "ilogb" | "vload_half" | "vload_halfn" | "vloada_halfn" | "vstore_half"
        | "vstore_half_r" | "vstore_halfn" | "vstore_halfn_r" | "vstorea_halfn"
        | "vstorea_halfn_r" | "fract" | "modf" | "sincos" | "frexp" | "nextafter" => Inline,
        _ => return None,
    })
}

/// The error for a double-precision transcendental that reaches the
/// lowering: only a SPIR-V program's that `frontend::il_math` could not
/// link with libclc can (see the module doc).
fn no_double_here(name: &str) -> String {
    format!(
        "double-precision '{name}' is not supported in programs created from SPIR-V \
         that cannot be linked with libclc's math (see the warning above)"
    )
}

impl Lower<'_> {
    pub(crate) fn glsl(&mut self, b: &mut Block, op: GLOp, ty: Word, args: &[Word]) -> Word {
        let set = self.out.glsl();
        let mut ops = vec![
            Operand::IdRef(set),
            Operand::LiteralExtInstInteger(op as u32),
        ];
        ops.extend(args.iter().map(|&a| Operand::IdRef(a)));
        self.emit(b, Op::ExtInst, ty, ops)
    }

    /// GLSL.std.450 rounding `op` (Trunc, RoundEven, Floor, Ceil) of `x`
    /// (output type `ty`). On doubles, Trunc and RoundEven are built from
    /// Floor, Ceil and exact additions: lavapipe (Mesa 22.3) returns large
    /// arguments (from about 2^30) unrounded and loses the sign of zero
    /// results, and OpenCL wants them exact (libclc's argument reductions
    /// depend on it).
    pub(crate) fn glsl_round(&mut self, b: &mut Block, op: GLOp, ty: Word, x: Word) -> Word {
        let e = self.out.elem(ty);
        let double = self.out.is_float(e) && self.out.scalar_width(e) == Some(64);
        if !double || !matches!(op, GLOp::Trunc | GLOp::RoundEven) {
            return self.glsl(b, op, ty, &[x]);
        }
        let bt = self.bool_ty(ty);
        if op == GLOp::Trunc {
            // Towards zero: ceil below zero, floor above (and for ±0, NaN).
            let zero = self.splat(ty, 0, 0.0);
            let neg = self.op2(b, Op::FOrdLessThan, bt, x, zero);
            let up = self.glsl(b, GLOp::Ceil, ty, &[x]);
            let down = self.glsl(b, GLOp::Floor, ty, &[x]);
            return self.emit(b, Op::Select, ty, ids(&[neg, up, down]));
        }
        // Nearest, ties to even: below 2^52, (|x| + 2^52) - 2^52 rounds
        // |x| to an integer in the adder (exact with NoContraction,
        // `decorate_exact_double_arithmetic`); from 2^52 on (and for
        // NaN/inf) every double is an integer. Then x's sign.
        let ax = self.glsl(b, GLOp::FAbs, ty, &[x]);
        let big = self.splat(ty, 0, 4503599627370496.0);
        let s = self.op2(b, Op::FAdd, ty, ax, big);
        let r = self.op2(b, Op::FSub, ty, s, big);
        let small = self.op2(b, Op::FOrdLessThan, bt, ax, big);
        let m = self.emit(b, Op::Select, ty, ids(&[small, r, ax]));
        self.copysign(b, ty, m, x)
    }

    /// A constant of (scalar or vector) output type `ty`: every component
    /// `v` (float types take `f`).
    pub(crate) fn splat(&mut self, ty: Word, v: u64, f: f64) -> Word {
        let e = self.out.elem(ty);
        let n = self.out.vec_len(ty);
        let w = self.out.scalar_width(e).unwrap_or(32);
        let s = if self.out.is_float(e) {
            self.out.c_float(w, f)
        } else {
            self.out.c_int(w, v)
        };
        if n == 1 {
            s
        } else {
            self.out.c_composite(ty, &vec![s; n as usize])
        }
    }

    pub(crate) fn bool_ty(&mut self, like: Word) -> Word {
        let bt = self.out.t_bool();
        let n = self.out.vec_len(like);
        if n == 1 {
            bt
        } else {
            self.out.t_vec(bt, n)
        }
    }

    /// The float type with the shape of `ty` and `width`-bit elements.
    pub(crate) fn float_like(&mut self, ty: Word, width: u32) -> Word {
        let ft = self.out.t_float(width);
        let n = self.out.vec_len(ty);
        if n == 1 {
            ft
        } else {
            self.out.t_vec(ft, n)
        }
    }

    /// The integer type with the shape of `ty` and `width`-bit elements.
    pub(crate) fn int_like(&mut self, ty: Word, width: u32) -> Word {
        let it = self.out.t_int(width);
        let n = self.out.vec_len(ty);
        if n == 1 {
            it
        } else {
            self.out.t_vec(it, n)
        }
    }

    pub(crate) fn op2(&mut self, b: &mut Block, op: Op, ty: Word, x: Word, y: Word) -> Word {
        self.emit(b, op, ty, ids(&[x, y]))
    }

    pub(crate) fn lower_cl_ext_inst(&mut self, b: &mut Block, inst: &Instruction) -> Res<()> {
        let n = match inst.operands.get(1) {
            Some(Operand::LiteralExtInstInteger(n)) => *n,
            _ => return Err("malformed OpExtInst".into()),
        };
        // vstore_half*_r: the rounding mode moved into the number.
        let (n, store_rounding) = if n & ROUNDED_STORE != 0 {
            let mode = spirv::FPRoundingMode::from_u32((n >> 8) & 3);
            (n & 0xff, mode)
        } else {
            (n, None)
        };
        let name = OpenclStd100Op::from_u32(n)
            .map(|o| format!("{o:?}"))
            .unwrap_or_else(|| format!("#{n}"));
        let raw: Vec<u32> = inst.operands[2..]
            .iter()
            .map(|o| match o {
                Operand::IdRef(i) => *i,
                Operand::LiteralBit32(v) => *v,
                _ => 0,
            })
            .collect();
        let id = inst.result_id.unwrap_or(0);
        let rty_orig = inst.result_type.unwrap_or(0);
        if name == "printf" {
            return self.lower_printf(b, id, rty_orig, &raw);
        }
        if name == "shuffle" || name == "shuffle2" {
            return self.lower_shuffle(b, id, rty_orig, &raw);
        }
        let imp = implementation(&name)
            .ok_or_else(|| format!("builtin '{name}' is not supported yet"))?;
        if matches!(name.as_str(), "vloadn" | "vstoren" | "prefetch") {
            return self.lower_vload_store(b, &name, id, rty_orig, &raw);
        }
        if name.starts_with("vload") || name.starts_with("vstore") {
            return self.lower_vload_store_half(b, &name, id, rty_orig, &raw, store_rounding);
        }
        if matches!(name.as_str(), "fract" | "modf" | "sincos" | "frexp") {
            return self.lower_pointer_out(b, &name, id, rty_orig, &raw);
        }
        let double = matches!(self.tys.get(rty_orig), Ty::Float(64))
            || matches!(self.tys.get(rty_orig), Ty::Vector(e, _) if matches!(self.tys.get(*e), Ty::Float(64)));
        let wide = self.is_wide(rty_orig) || raw.iter().any(|&i| self.is_wide(self.ty_of(i)));
        let r = if wide {
            // 8/16-wide vectors: every OpenCL.std function the table has
            // for them is component-wise; apply it to each 4-wide part.
            let rt = self.lower_ty(rty_orig)?;
            let part_rt = self.wide_part_ty(rty_orig)?;
            let k = self.wide_parts(rty_orig);
            let mut parts = Vec::new();
            for i in 0..k {
                let mut a = Vec::new();
                let mut arg_tys = Vec::new();
                for &x in &raw {
                    let t = self.ty_of(x);
                    if self.is_wide(t) {
                        let pt = self.wide_part_ty(t)?;
                        let v = self.v(x);
                        a.push(self.wide_part(b, v, pt, i));
                        arg_tys.push(pt);
                    } else {
                        a.push(self.v(x));
                        arg_tys.push(self.lower_ty(t)?);
                    }
                }
                parts.push(self.ext_inst_value(b, &name, imp, part_rt, &a, &arg_tys, double)?);
            }
            self.emit(b, Op::CompositeConstruct, rt, ids(&parts))
        } else {
            let rt = self.lower_ty(rty_orig)?;
            let a: Vec<Word> = raw.iter().map(|&i| self.v(i)).collect();
            let mut arg_tys = Vec::new();
            for &i in &raw {
                let t = self.ty_of(i);
                arg_tys.push(if t == 0 { 0 } else { self.lower_ty(t)? });
            }
            self.ext_inst_value(b, &name, imp, rt, &a, &arg_tys, double)?
        };
        self.alias.insert(id, r);
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn ext_inst_value(
        &mut self,
        b: &mut Block,
        name: &str,
        imp: Impl,
        rt: Word,
        a: &[Word],
        arg_tys: &[Word],
        double: bool,
    ) -> Res<Word> {
        if let Some(v) = self.lower_geometric(b, name, rt, a, arg_tys, double)? {
            return Ok(v);
        }
        Ok(match imp {
            Impl::Glsl(op @ (GLOp::Trunc | GLOp::RoundEven)) => self.glsl_round(b, op, rt, a[0]),
            Impl::Glsl(op) => self.glsl(b, op, rt, a),
            Impl::GlslNoDouble(op) => {
                if double {
                    return Err(no_double_here(name));
                }
                self.glsl(b, op, rt, a)
            }
            Impl::Core(op) => self.emit(b, op, rt, ids(a)),
            Impl::Inline => self.inline_builtin(b, name, rt, a, arg_tys, double)?,
        })
    }

    fn inline_builtin(
        &mut self,
        b: &mut Block,
        name: &str,
        rt: Word,
        a: &[Word],
        arg_tys: &[Word],
        double: bool,
    ) -> Res<Word> {
        use std::f64::consts::{LN_10, LOG10_2, PI};
        let transcendental = matches!(
            name,
            "exp10"
                | "native_exp10"
                | "half_exp10"
                | "log10"
                | "native_log10"
                | "half_log10"
                | "expm1"
                | "log1p"
                | "cbrt"
                | "sinpi"
                | "cospi"
                | "tanpi"
                | "asinpi"
                | "acospi"
                | "atanpi"
                | "atan2pi"
                | "pown"
                | "rootn"
                | "hypot"
        );
        if double && transcendental {
            return Err(no_double_here(name));
        }
        let r = match name {
            "mad" => {
                let m = self.op2(b, Op::FMul, rt, a[0], a[1]);
                self.op2(b, Op::FAdd, rt, m, a[2])
            }
            "native_recip" | "half_recip" => {
                let one = self.splat(rt, 1, 1.0);
                self.op2(b, Op::FDiv, rt, one, a[0])
            }
            "u_abs" => a[0],
            "u_mul24" | "s_mul24" => self.op2(b, Op::IMul, rt, a[0], a[1]),
            "u_mad24" | "s_mad24" => {
                let m = self.op2(b, Op::IMul, rt, a[0], a[1]);
                self.op2(b, Op::IAdd, rt, m, a[2])
            }
            "exp10" | "native_exp10" | "half_exp10" => {
                let k = self.splat(rt, 0, LN_10 / std::f64::consts::LN_2);
                let x = self.op2(b, Op::FMul, rt, a[0], k);
                self.glsl(b, GLOp::Exp2, rt, &[x])
            }
            "log10" | "native_log10" | "half_log10" => {
                let l = self.glsl(b, GLOp::Log2, rt, &[a[0]]);
                let k = self.splat(rt, 0, LOG10_2);
                self.op2(b, Op::FMul, rt, l, k)
            }
            "expm1" => {
                let e = self.glsl(b, GLOp::Exp, rt, &[a[0]]);
                let one = self.splat(rt, 1, 1.0);
                self.op2(b, Op::FSub, rt, e, one)
            }
            "log1p" => {
                let one = self.splat(rt, 1, 1.0);
                let x = self.op2(b, Op::FAdd, rt, a[0], one);
                self.glsl(b, GLOp::Log, rt, &[x])
            }
            "cbrt" => {
                let ax = self.glsl(b, GLOp::FAbs, rt, &[a[0]]);
                let third = self.splat(rt, 0, 1.0 / 3.0);
                let p = self.glsl(b, GLOp::Pow, rt, &[ax, third]);
                let s = self.glsl(b, GLOp::FSign, rt, &[a[0]]);
                self.op2(b, Op::FMul, rt, s, p)
            }
            "sinpi" | "cospi" | "tanpi" => {
                let pi = self.splat(rt, 0, PI);
                let x = self.op2(b, Op::FMul, rt, a[0], pi);
                let op = match name {
                    "sinpi" => GLOp::Sin,
                    "cospi" => GLOp::Cos,
                    _ => GLOp::Tan,
                };
                self.glsl(b, op, rt, &[x])
            }
            "asinpi" | "acospi" | "atanpi" | "atan2pi" => {
                let op = match name {
                    "asinpi" => GLOp::Asin,
                    "acospi" => GLOp::Acos,
                    "atanpi" => GLOp::Atan,
                    _ => GLOp::Atan2,
                };
                let x = self.glsl(b, op, rt, a);
                let k = self.splat(rt, 0, 1.0 / PI);
                self.op2(b, Op::FMul, rt, x, k)
            }
            "hypot" => {
                let x2 = self.op2(b, Op::FMul, rt, a[0], a[0]);
                let y2 = self.op2(b, Op::FMul, rt, a[1], a[1]);
                let s = self.op2(b, Op::FAdd, rt, x2, y2);
                self.glsl(b, GLOp::Sqrt, rt, &[s])
            }
            "round" => {
                // Halfway cases away from zero: trunc(x + copysign(0.5 - ulp/2, x))
                // is wrong near 0.5; use t = trunc(x), |x - t| >= 0.5 → t + sign(x).
                let t = self.glsl_round(b, GLOp::Trunc, rt, a[0]);
                let d = self.op2(b, Op::FSub, rt, a[0], t);
                let ad = self.glsl(b, GLOp::FAbs, rt, &[d]);
                let half = self.splat(rt, 0, 0.5);
                let bt = self.bool_ty(rt);
                let c = self.op2(b, Op::FOrdGreaterThanEqual, bt, ad, half);
                let s = self.glsl(b, GLOp::FSign, rt, &[a[0]]);
                let ts = self.op2(b, Op::FAdd, rt, t, s);
                self.emit(b, Op::Select, rt, ids(&[c, ts, t]))
            }
            "copysign" => self.copysign(b, rt, a[0], a[1]),
            "nextafter" => {
                // On the bits: one step away from zero when moving towards
                // y away from zero, else towards it; ±0 steps to the
                // smallest subnormal with y's sign; x == y gives y; NaN in
                // gives NaN.
                let w = self.out.scalar_width(rt).unwrap_or(32);
                let it = self.int_like(rt, w);
                let bt = self.bool_ty(rt);
                let xi = self.emit(b, Op::Bitcast, it, ids(&[a[0]]));
                let yi = self.emit(b, Op::Bitcast, it, ids(&[a[1]]));
                let one = self.splat(it, 1, 0.0);
                let sign = self.splat(it, 1u64 << (w - 1), 0.0);
                let mag = self.splat(it, (1u64 << (w - 1)) - 1, 0.0);
                let zero_i = self.splat(it, 0, 0.0);
                let zero_f = self.splat(rt, 0, 0.0);
                let lt = self.op2(b, Op::FOrdLessThan, bt, a[0], a[1]);
                let pos = self.op2(b, Op::FOrdGreaterThan, bt, a[0], zero_f);
                let away = self.op2(b, Op::LogicalEqual, bt, lt, pos);
                let inc = self.op2(b, Op::IAdd, it, xi, one);
                let dec = self.op2(b, Op::ISub, it, xi, one);
                let stepped = self.emit(b, Op::Select, it, ids(&[away, inc, dec]));
                let ys = self.op2(b, Op::BitwiseAnd, it, yi, sign);
                let tiny = self.op2(b, Op::BitwiseOr, it, ys, one);
                let xm = self.op2(b, Op::BitwiseAnd, it, xi, mag);
                let xz = self.op2(b, Op::IEqual, bt, xm, zero_i);
                let r = self.emit(b, Op::Select, it, ids(&[xz, tiny, stepped]));
                let eq = self.op2(b, Op::FOrdEqual, bt, a[0], a[1]);
                let r = self.emit(b, Op::Select, it, ids(&[eq, yi, r]));
                let xn = self.emit(b, Op::IsNan, bt, ids(&[a[0]]));
                let yn = self.emit(b, Op::IsNan, bt, ids(&[a[1]]));
                let un = self.op2(b, Op::LogicalOr, bt, xn, yn);
                let sum = self.op2(b, Op::FAdd, rt, a[0], a[1]);
                let sum = self.emit(b, Op::Bitcast, it, ids(&[sum]));
                let r = self.emit(b, Op::Select, it, ids(&[un, sum, r]));
                self.emit(b, Op::Bitcast, rt, ids(&[r]))
            }
            "fdim" => {
                let d = self.op2(b, Op::FSub, rt, a[0], a[1]);
                let bt = self.bool_ty(rt);
                let le = self.op2(b, Op::FOrdLessThanEqual, bt, a[0], a[1]);
                let z = self.splat(rt, 0, 0.0);
                self.emit(b, Op::Select, rt, ids(&[le, z, d]))
            }
            "bitselect" => {
                let float = self.out.is_float(rt);
                let w = self.out.scalar_width(rt).unwrap_or(32);
                let it = if float { self.int_like(rt, w) } else { rt };
                let cast = |l: &mut Self, b: &mut Block, x: Word| {
                    if float {
                        l.emit(b, Op::Bitcast, it, ids(&[x]))
                    } else {
                        x
                    }
                };
                let (x, y, c) = (
                    cast(self, b, a[0]),
                    cast(self, b, a[1]),
                    cast(self, b, a[2]),
                );
                let nc = self.emit(b, Op::Not, it, ids(&[c]));
                let xa = self.op2(b, Op::BitwiseAnd, it, x, nc);
                let yc = self.op2(b, Op::BitwiseAnd, it, y, c);
                let r = self.op2(b, Op::BitwiseOr, it, xa, yc);
                if float {
                    self.emit(b, Op::Bitcast, rt, ids(&[r]))
                } else {
                    r
                }
            }
            "select" => {
                // Scalars: c != 0; vectors: the most significant bit of c.
                let ct = arg_tys[2];
                let bt = self.bool_ty(rt);
                let cond = if self.out.vec_len(rt) == 1 {
                    let z = self.splat(ct, 0, 0.0);
                    self.op2(b, Op::INotEqual, bt, a[2], z)
                } else {
                    let z = self.splat(ct, 0, 0.0);
                    self.op2(b, Op::SLessThan, bt, a[2], z)
                };
                self.emit(b, Op::Select, rt, ids(&[cond, a[1], a[0]]))
            }
            "popcount" => self.popcount(b, rt, a[0]),
            "clz" => self.clz(b, rt, a[0]),
            "ctz" => self.ctz(b, rt, a[0]),
            "s_mul_hi" | "u_mul_hi" => self.mul_hi(b, rt, a[0], a[1], name == "s_mul_hi"),
            "s_mad_hi" | "u_mad_hi" => {
                let h = self.mul_hi(b, rt, a[0], a[1], name == "s_mad_hi");
                self.op2(b, Op::IAdd, rt, h, a[2])
            }
            "s_mad_sat" | "u_mad_sat" => {
                self.mad_sat(b, rt, [a[0], a[1], a[2]], name == "s_mad_sat")
            }
            "rotate" => {
                let w = self.out.scalar_width(rt).unwrap_or(32);
                let mask = self.splat(rt, (w - 1) as u64, 0.0);
                let wc = self.splat(rt, w as u64, 0.0);
                let n = self.op2(b, Op::BitwiseAnd, rt, a[1], mask);
                let l = self.op2(b, Op::ShiftLeftLogical, rt, a[0], n);
                let rn = self.op2(b, Op::ISub, rt, wc, n);
                let rn = self.op2(b, Op::BitwiseAnd, rt, rn, mask);
                let r = self.op2(b, Op::ShiftRightLogical, rt, a[0], rn);
                // n == 0: x >> 0 | x << 0 = x, fine.
                self.op2(b, Op::BitwiseOr, rt, l, r)
            }
            "u_abs_diff" | "s_abs_diff" => {
                let bt = self.bool_ty(rt);
                let cmp = if name == "s_abs_diff" {
                    Op::SGreaterThan
                } else {
                    Op::UGreaterThan
                };
                let gt = self.op2(b, cmp, bt, a[0], a[1]);
                let d1 = self.op2(b, Op::ISub, rt, a[0], a[1]);
                let d2 = self.op2(b, Op::ISub, rt, a[1], a[0]);
                self.emit(b, Op::Select, rt, ids(&[gt, d1, d2]))
            }
            "u_add_sat" => {
                let r = self.op2(b, Op::IAdd, rt, a[0], a[1]);
                let bt = self.bool_ty(rt);
                let ov = self.op2(b, Op::ULessThan, bt, r, a[0]);
                let ones = self.splat(rt, u64::MAX, 0.0);
                self.emit(b, Op::Select, rt, ids(&[ov, ones, r]))
            }
            "u_sub_sat" => {
                let r = self.op2(b, Op::ISub, rt, a[0], a[1]);
                let bt = self.bool_ty(rt);
                let un = self.op2(b, Op::ULessThan, bt, a[0], a[1]);
                let z = self.splat(rt, 0, 0.0);
                self.emit(b, Op::Select, rt, ids(&[un, z, r]))
            }
            "s_add_sat" | "s_sub_sat" => {
                let w = self.out.scalar_width(rt).unwrap_or(32);
                let add = name == "s_add_sat";
                let r = self.op2(b, if add { Op::IAdd } else { Op::ISub }, rt, a[0], a[1]);
                // Overflow: the result's sign is impossible for the operands.
                let xr = self.op2(b, Op::BitwiseXor, rt, a[0], r);
                let other = if add {
                    self.op2(b, Op::BitwiseXor, rt, a[1], r)
                } else {
                    self.op2(b, Op::BitwiseXor, rt, a[0], a[1])
                };
                let both = self.op2(b, Op::BitwiseAnd, rt, xr, other);
                let z = self.splat(rt, 0, 0.0);
                let bt = self.bool_ty(rt);
                let ov = self.op2(b, Op::SLessThan, bt, both, z);
                let neg = self.op2(b, Op::SLessThan, bt, a[0], z);
                let min = self.splat(rt, 1u64 << (w - 1), 0.0);
                let max = self.splat(rt, (1u64 << (w - 1)) - 1, 0.0);
                let lim = self.emit(b, Op::Select, rt, ids(&[neg, min, max]));
                self.emit(b, Op::Select, rt, ids(&[ov, lim, r]))
            }
            "u_hadd" | "s_hadd" | "u_rhadd" | "s_rhadd" => {
                let sh = if name.starts_with('s') {
                    Op::ShiftRightArithmetic
                } else {
                    Op::ShiftRightLogical
                };
                let one = self.splat(rt, 1, 0.0);
                let x = self.op2(b, sh, rt, a[0], one);
                let y = self.op2(b, sh, rt, a[1], one);
                let s = self.op2(b, Op::IAdd, rt, x, y);
                let carry = if name.contains("rhadd") {
                    Op::BitwiseOr
                } else {
                    Op::BitwiseAnd
                };
                let c = self.op2(b, carry, rt, a[0], a[1]);
                let c = self.op2(b, Op::BitwiseAnd, rt, c, one);
                self.op2(b, Op::IAdd, rt, s, c)
            }
            "u_upsample" | "s_upsample" => {
                let w = self.out.scalar_width(arg_tys[0]).unwrap_or(8);
                let ext = if name == "s_upsample" {
                    Op::SConvert
                } else {
                    Op::UConvert
                };
                let hi = self.emit(b, ext, rt, ids(&[a[0]]));
                let lo = self.emit(b, Op::UConvert, rt, ids(&[a[1]]));
                let s = self.splat(rt, w as u64, 0.0);
                let hi = self.op2(b, Op::ShiftLeftLogical, rt, hi, s);
                self.op2(b, Op::BitwiseOr, rt, hi, lo)
            }
            "maxmag" | "minmag" => {
                let ax = self.glsl(b, GLOp::FAbs, rt, &[a[0]]);
                let ay = self.glsl(b, GLOp::FAbs, rt, &[a[1]]);
                let bt = self.bool_ty(rt);
                let max = name == "maxmag";
                let (first, second) = if max {
                    (Op::FOrdGreaterThan, Op::FOrdLessThan)
                } else {
                    (Op::FOrdLessThan, Op::FOrdGreaterThan)
                };
                let c1 = self.op2(b, first, bt, ax, ay);
                let c2 = self.op2(b, second, bt, ax, ay);
                let m = self.glsl(
                    b,
                    if max { GLOp::NMax } else { GLOp::NMin },
                    rt,
                    &[a[0], a[1]],
                );
                let r = self.emit(b, Op::Select, rt, ids(&[c2, a[1], m]));
                self.emit(b, Op::Select, rt, ids(&[c1, a[0], r]))
            }
            "nan" => {
                let w = self.out.scalar_width(rt).unwrap_or(32);
                let it = self.int_like(rt, w);
                let q = self.splat(
                    it,
                    match w {
                        64 => 0x7ff8_0000_0000_0000,
                        16 => 0x7e00,
                        _ => 0x7fc0_0000,
                    },
                    0.0,
                );
                let code = if self.out.scalar_width(arg_tys[0]) == Some(w) {
                    a[0]
                } else {
                    self.emit(b, Op::UConvert, it, ids(&[a[0]]))
                };
                let bits = self.op2(b, Op::BitwiseOr, it, q, code);
                self.emit(b, Op::Bitcast, rt, ids(&[bits]))
            }
            "pown" | "rootn" => {
                // pow(|x|, n or 1/n), negated for odd n and negative x.
                let nf = self.emit(b, Op::ConvertSToF, rt, ids(&[a[1]]));
                let e = if name == "pown" {
                    nf
                } else {
                    let one = self.splat(rt, 0, 1.0);
                    self.op2(b, Op::FDiv, rt, one, nf)
                };
                let ax = self.glsl(b, GLOp::FAbs, rt, &[a[0]]);
                let p = self.glsl(b, GLOp::Pow, rt, &[ax, e]);
                let one_i = self.splat(arg_tys[1], 1, 0.0);
                let odd_bits = self.op2(b, Op::BitwiseAnd, arg_tys[1], a[1], one_i);
                let zi = self.splat(arg_tys[1], 0, 0.0);
                let bt = self.bool_ty(rt);
                let odd = self.op2(b, Op::INotEqual, bt, odd_bits, zi);
                let zf = self.splat(rt, 0, 0.0);
                let neg = self.op2(b, Op::FOrdLessThan, bt, a[0], zf);
                let flip = self.op2(b, Op::LogicalAnd, bt, odd, neg);
                let np = self.emit(b, Op::FNegate, rt, ids(&[p]));
                self.emit(b, Op::Select, rt, ids(&[flip, np, p]))
            }
            "remainder" => {
                let q = self.op2(b, Op::FDiv, rt, a[0], a[1]);
                let n = self.glsl_round(b, GLOp::RoundEven, rt, q);
                let m = self.op2(b, Op::FMul, rt, n, a[1]);
                self.op2(b, Op::FSub, rt, a[0], m)
            }
            "logb" | "ilogb" => {
                let xt = arg_tys[0];
                let it = self.int_like(xt, 32);
                let st = self.out.t_struct(&[xt, it]);
                let fr = self.glsl(b, GLOp::FrexpStruct, st, &[a[0]]);
                let e = self.emit(
                    b,
                    Op::CompositeExtract,
                    it,
                    vec![Operand::IdRef(fr), Operand::LiteralBit32(1)],
                );
                let one = self.splat(it, 1, 0.0);
                let e = self.op2(b, Op::ISub, it, e, one);
                if name == "ilogb" {
                    e
                } else {
                    self.emit(b, Op::ConvertSToF, rt, ids(&[e]))
                }
            }
            other => return Err(format!("builtin '{other}' is not supported yet")),
        };
        Ok(r)
    }

    fn widen_int(
        &mut self,
        b: &mut Block,
        rt: Word,
        x: Word,
        width: u32,
        signed: bool,
    ) -> (Word, Word) {
        let wt = self.int_like(rt, width);
        let op = if signed { Op::SConvert } else { Op::UConvert };
        (self.emit(b, op, wt, ids(&[x])), wt)
    }

    /// OpBitCount of any width (Vulkan takes 32-bit operands only).
    pub(crate) fn popcount(&mut self, b: &mut Block, rt: Word, x: Word) -> Word {
        let w = self.out.scalar_width(rt).unwrap_or(32);
        match w {
            32 => self.emit(b, Op::BitCount, rt, ids(&[x])),
            64 => {
                let t32 = self.int_like(rt, 32);
                let lo = self.emit(b, Op::UConvert, t32, ids(&[x]));
                let s = self.splat(rt, 32, 0.0);
                let h = self.op2(b, Op::ShiftRightLogical, rt, x, s);
                let hi = self.emit(b, Op::UConvert, t32, ids(&[h]));
                let a = self.emit(b, Op::BitCount, t32, ids(&[lo]));
                let c = self.emit(b, Op::BitCount, t32, ids(&[hi]));
                let s = self.op2(b, Op::IAdd, t32, a, c);
                self.emit(b, Op::UConvert, rt, ids(&[s]))
            }
            _ => {
                let (x32, t32) = self.widen_int(b, rt, x, 32, false);
                let c = self.emit(b, Op::BitCount, t32, ids(&[x32]));
                self.emit(b, Op::UConvert, rt, ids(&[c]))
            }
        }
    }

    /// clz of a 32-bit value: 31 - FindUMsb (FindUMsb(0) = -1 gives 32).
    fn clz32(&mut self, b: &mut Block, t32: Word, x: Word) -> Word {
        let m = self.glsl(b, GLOp::FindUMsb, t32, &[x]);
        let c31 = self.splat(t32, 31, 0.0);
        self.op2(b, Op::ISub, t32, c31, m)
    }

    fn clz(&mut self, b: &mut Block, rt: Word, x: Word) -> Word {
        let w = self.out.scalar_width(rt).unwrap_or(32);
        match w {
            32 => self.clz32(b, rt, x),
            64 => {
                let t32 = self.int_like(rt, 32);
                let lo = self.emit(b, Op::UConvert, t32, ids(&[x]));
                let s = self.splat(rt, 32, 0.0);
                let h = self.op2(b, Op::ShiftRightLogical, rt, x, s);
                let hi = self.emit(b, Op::UConvert, t32, ids(&[h]));
                let ch = self.clz32(b, t32, hi);
                let cl = self.clz32(b, t32, lo);
                let c32 = self.splat(t32, 32, 0.0);
                let cl32 = self.op2(b, Op::IAdd, t32, cl, c32);
                let z = self.splat(t32, 0, 0.0);
                let bt = self.bool_ty(t32);
                let hz = self.op2(b, Op::IEqual, bt, hi, z);
                let r = self.emit(b, Op::Select, t32, ids(&[hz, cl32, ch]));
                self.emit(b, Op::UConvert, rt, ids(&[r]))
            }
            _ => {
                let (x32, t32) = self.widen_int(b, rt, x, 32, false);
                let c = self.clz32(b, t32, x32);
                let k = self.splat(t32, (32 - w) as u64, 0.0);
                let c = self.op2(b, Op::ISub, t32, c, k);
                self.emit(b, Op::UConvert, rt, ids(&[c]))
            }
        }
    }

    /// ctz of a 32-bit value with a guard bit at `guard` (the width).
    fn ctz32(&mut self, b: &mut Block, t32: Word, x: Word, guard: u32) -> Word {
        if guard < 32 {
            let g = self.splat(t32, 1 << guard, 0.0);
            let x = self.op2(b, Op::BitwiseOr, t32, x, g);
            return self.glsl(b, GLOp::FindILsb, t32, &[x]);
        }
        let l = self.glsl(b, GLOp::FindILsb, t32, &[x]);
        let z = self.splat(t32, 0, 0.0);
        let bt = self.bool_ty(t32);
        let iz = self.op2(b, Op::IEqual, bt, x, z);
        let c32 = self.splat(t32, 32, 0.0);
        self.emit(b, Op::Select, t32, ids(&[iz, c32, l]))
    }

    fn ctz(&mut self, b: &mut Block, rt: Word, x: Word) -> Word {
        let w = self.out.scalar_width(rt).unwrap_or(32);
        match w {
            32 => self.ctz32(b, rt, x, 32),
            64 => {
                let t32 = self.int_like(rt, 32);
                let lo = self.emit(b, Op::UConvert, t32, ids(&[x]));
                let s = self.splat(rt, 32, 0.0);
                let h = self.op2(b, Op::ShiftRightLogical, rt, x, s);
                let hi = self.emit(b, Op::UConvert, t32, ids(&[h]));
                let cl = self.ctz32(b, t32, lo, 32);
                let ch = self.ctz32(b, t32, hi, 32);
                let c32 = self.splat(t32, 32, 0.0);
                let ch32 = self.op2(b, Op::IAdd, t32, ch, c32);
                let z = self.splat(t32, 0, 0.0);
                let bt = self.bool_ty(t32);
                let lz = self.op2(b, Op::IEqual, bt, lo, z);
                let r = self.emit(b, Op::Select, t32, ids(&[lz, ch32, cl]));
                self.emit(b, Op::UConvert, rt, ids(&[r]))
            }
            _ => {
                let (x32, t32) = self.widen_int(b, rt, x, 32, false);
                let c = self.ctz32(b, t32, x32, w);
                self.emit(b, Op::UConvert, rt, ids(&[c]))
            }
        }
    }

    fn mul_hi(&mut self, b: &mut Block, rt: Word, x: Word, y: Word, signed: bool) -> Word {
        let w = self.out.scalar_width(rt).unwrap_or(32);
        if w >= 32 {
            let st = self.out.t_struct(&[rt, rt]);
            let op = if signed {
                Op::SMulExtended
            } else {
                Op::UMulExtended
            };
            let m = self.op2(b, op, st, x, y);
            return self.emit(
                b,
                Op::CompositeExtract,
                rt,
                vec![Operand::IdRef(m), Operand::LiteralBit32(1)],
            );
        }
        let (xw, t32) = self.widen_int(b, rt, x, 32, signed);
        let (yw, _) = self.widen_int(b, rt, y, 32, signed);
        let p = self.op2(b, Op::IMul, t32, xw, yw);
        let s = self.splat(t32, w as u64, 0.0);
        let h = self.op2(
            b,
            if signed {
                Op::ShiftRightArithmetic
            } else {
                Op::ShiftRightLogical
            },
            t32,
            p,
            s,
        );
        self.emit(b, Op::UConvert, rt, ids(&[h]))
    }

    /// mad_sat(x, y, z) = x * y + z saturated to the range of `rt`, exact:
    /// 8/16-bit operands in 32 bits and 32-bit ones in 64 bits (neither
    /// the product nor the sum can overflow there), then clamped and
    /// narrowed; 64-bit ones as a 128-bit value (hi, lo) = the full product
    /// (Op[SU]MulExtended) plus z (sign-extended when signed) with the
    /// carry out of lo. Unsigned, it fits where hi = 0 (the sum stays below
    /// 2^128); signed, where hi is lo's sign extension, else its sign picks
    /// the minimum or the maximum (|x * y + z| < 2^127).
    fn mad_sat(&mut self, b: &mut Block, rt: Word, a: [Word; 3], signed: bool) -> Word {
        let w = self.out.scalar_width(rt).unwrap_or(32);
        let bt = self.bool_ty(rt);
        let (min, max) = if signed {
            (1u64 << (w - 1), (1u64 << (w - 1)) - 1)
        } else {
            (0, u64::MAX >> (64 - w))
        };
        if w <= 32 {
            let ww = if w == 32 { 64 } else { 32 };
            let (x, wt) = self.widen_int(b, rt, a[0], ww, signed);
            let (y, _) = self.widen_int(b, rt, a[1], ww, signed);
            let (z, _) = self.widen_int(b, rt, a[2], ww, signed);
            let p = self.op2(b, Op::IMul, wt, x, y);
            let s = self.op2(b, Op::IAdd, wt, p, z);
            let c = if signed {
                // The limits sign-extended to the wide type.
                let ext = |v: u64| (((v << (64 - w)) as i64) >> (64 - w)) as u64;
                let lo = self.splat(wt, ext(min), 0.0);
                let hi = self.splat(wt, max, 0.0);
                self.glsl(b, GLOp::SClamp, wt, &[s, lo, hi])
            } else {
                let hi = self.splat(wt, max, 0.0);
                self.glsl(b, GLOp::UMin, wt, &[s, hi])
            };
            return self.emit(b, Op::UConvert, rt, ids(&[c]));
        }
        let st = self.out.t_struct(&[rt, rt]);
        let mul = if signed {
            Op::SMulExtended
        } else {
            Op::UMulExtended
        };
        let m = self.op2(b, mul, st, a[0], a[1]);
        let part = |l: &mut Self, b: &mut Block, k: u32| {
            l.emit(
                b,
                Op::CompositeExtract,
                rt,
                vec![Operand::IdRef(m), Operand::LiteralBit32(k)],
            )
        };
        let lo = part(self, b, 0);
        let hi = part(self, b, 1);
        let sum = self.op2(b, Op::IAdd, rt, lo, a[2]);
        let carried = self.op2(b, Op::ULessThan, bt, sum, lo);
        let one = self.splat(rt, 1, 0.0);
        let zero = self.splat(rt, 0, 0.0);
        let carry = self.emit(b, Op::Select, rt, ids(&[carried, one, zero]));
        let hi = self.op2(b, Op::IAdd, rt, hi, carry);
        let max_c = self.splat(rt, max, 0.0);
        if !signed {
            let over = self.op2(b, Op::INotEqual, bt, hi, zero);
            return self.emit(b, Op::Select, rt, ids(&[over, max_c, sum]));
        }
        // z's sign extension (0 or -1) added to the high half.
        let s63 = self.splat(rt, 63, 0.0);
        let z_ext = self.op2(b, Op::ShiftRightArithmetic, rt, a[2], s63);
        let hi = self.op2(b, Op::IAdd, rt, hi, z_ext);
        let sum_ext = self.op2(b, Op::ShiftRightArithmetic, rt, sum, s63);
        let fits = self.op2(b, Op::IEqual, bt, hi, sum_ext);
        let neg = self.op2(b, Op::SLessThan, bt, hi, zero);
        let min_c = self.splat(rt, min, 0.0);
        let lim = self.emit(b, Op::Select, rt, ids(&[neg, min_c, max_c]));
        self.emit(b, Op::Select, rt, ids(&[fits, sum, lim]))
    }

    /// vloadn(offset, p, n) / vstoren(data, offset, p): element-aligned
    /// accesses at `p + offset × n × sizeof(element)`.
    fn lower_vload_store(
        &mut self,
        b: &mut Block,
        name: &str,
        id: Word,
        rty: Word,
        raw: &[u32],
    ) -> Res<()> {
        if name == "prefetch" {
            return Ok(());
        }
        let (data, offset, ptr, vty) = if name == "vloadn" {
            (None, raw[0], raw[1], rty)
        } else {
            (Some(raw[0]), raw[1], raw[2], self.ty_of(raw[0]))
        };
        let Ty::Vector(e, n) = self.tys.get(vty).clone() else {
            return Err(format!("{name} of a non-vector"));
        };
        let es = self.tys.size_of(e);
        let space = self.space(ptr)?;
        let base = self.addr_of(b, space, ptr)?;
        let width = if space == Space::Global { 64 } else { 32 };
        let ity = self.ty_of(offset);
        let Ty::Int(ow) = self.tys.get(ity).clone() else {
            return Err(format!("{name}: bad offset"));
        };
        let mut off = self.v(offset);
        let t = self.out.t_int(width);
        if ow != width {
            off = self.emit(b, Op::UConvert, t, ids(&[off]));
        }
        let stride = self.out.c_int(width, n as u64 * es);
        let off = self.op2(b, Op::IMul, t, off, stride);
        let addr = self.op2(b, Op::IAdd, t, base, off);
        self.desc_derive(base, addr);
        let et = self.lower_ty(e)?;
        if let Some(d) = data {
            let d = self.v(d);
            for i in 0..n {
                let x = self.vector_elem(b, d, vty, et, i);
                let a = self.addr_add(b, space, addr, i as u64 * es);
                self.store_value(b, space, a, e, x, es)?;
            }
        } else {
            let mut parts = Vec::new();
            for i in 0..n {
                let a = self.addr_add(b, space, addr, i as u64 * es);
                parts.push(self.load_value(b, space, a, e, es)?);
            }
            let v = self.make_vector(b, vty, &parts)?;
            self.alias.insert(id, v);
        }
        Ok(())
    }

    /// A 16-bit half (as u16) to float, without the Float16 capability.
    fn half_to_float(&mut self, b: &mut Block, h: Word) -> Word {
        let u32t = self.out.t_u32();
        let f32t = self.out.t_float(32);
        let v2 = self.out.t_vec(f32t, 2);
        let x = self.emit(b, Op::UConvert, u32t, ids(&[h]));
        let v = self.glsl(b, GLOp::UnpackHalf2x16, v2, &[x]);
        self.emit(
            b,
            Op::CompositeExtract,
            f32t,
            vec![Operand::IdRef(v), Operand::LiteralBit32(0)],
        )
    }

    /// vload_half[n] / vloada_half[n] / vstore_half[n][_r] /
    /// vstorea_half[n][_r]: halves as 16-bit integers (no Float16
    /// capability needed), loaded with UnpackHalf2x16, stored rounded as
    /// `rounding` says in integer arithmetic (`Lower::half_bits`).
    fn lower_vload_store_half(
        &mut self,
        b: &mut Block,
        name: &str,
        id: Word,
        rty: Word,
        raw: &[u32],
        rounding: Option<spirv::FPRoundingMode>,
    ) -> Res<()> {
        let store = name.starts_with("vstore");
        let (data, offset, ptr) = if store {
            (Some(raw[0]), raw[1], raw[2])
        } else {
            (None, raw[0], raw[1])
        };
        let vty = if let Some(d) = data {
            self.ty_of(d)
        } else {
            rty
        };
        let (n, elem) = match self.tys.get(vty).clone() {
            Ty::Vector(e, n) => (n, e),
            _ => (1, vty),
        };
        let aligned = name.starts_with("vloada") || name.starts_with("vstorea");
        let stride = if aligned && n == 3 { 4 } else { n } as u64 * 2;
        let space = self.space(ptr)?;
        let base = self.addr_of(b, space, ptr)?;
        let width = if space == Space::Global { 64 } else { 32 };
        let Ty::Int(ow) = self.tys.get(self.ty_of(offset)).clone() else {
            return Err(format!("{name}: bad offset"));
        };
        let t = self.out.t_int(width);
        let mut off = self.v(offset);
        if ow != width {
            off = self.emit(b, Op::UConvert, t, ids(&[off]));
        }
        let sc = self.out.c_int(width, stride);
        let off = self.op2(b, Op::IMul, t, off, sc);
        let addr = self.op2(b, Op::IAdd, t, base, off);
        self.desc_derive(base, addr);
        let u16t = self.out.t_int(16);
        let base_align = if aligned { stride.min(16) } else { 2 };
        if let Some(d) = data {
            let d = self.v(d);
            let et = self.lower_ty(elem)?;
            for i in 0..n {
                let x = if n == 1 {
                    d
                } else {
                    self.vector_elem(b, d, vty, et, i)
                };
                let h = self.half_bits(b, x, et, rounding);
                let a = self.addr_add(b, space, addr, i as u64 * 2);
                self.store_scalar(b, space, a, u16t, h, 2, align_at(base_align, i as u64 * 2))?;
            }
        } else {
            let mut parts = Vec::new();
            for i in 0..n {
                let a = self.addr_add(b, space, addr, i as u64 * 2);
                let h =
                    self.load_scalar(b, space, a, u16t, 2, align_at(base_align, i as u64 * 2))?;
                parts.push(self.half_to_float(b, h));
            }
            let v = if n == 1 {
                parts[0]
            } else {
                self.make_vector(b, vty, &parts)?
            };
            self.alias.insert(id, v);
        }
        Ok(())
    }

    /// Builtins with a pointer result operand: fract, modf, sincos, frexp.
    fn lower_pointer_out(
        &mut self,
        b: &mut Block,
        name: &str,
        id: Word,
        rty: Word,
        raw: &[u32],
    ) -> Res<()> {
        let x = self.v(raw[0]);
        let ptr = raw[1];
        let Ty::Pointer(_, pointee) = self.tys.get(self.ty_of(ptr)).clone() else {
            return Err(format!("'{name}': bad pointer"));
        };
        let double = matches!(self.tys.get(rty), Ty::Float(64))
            || matches!(self.tys.get(rty), Ty::Vector(e, _) if matches!(self.tys.get(*e), Ty::Float(64)));
        let (result, out) = if self.is_wide(rty) {
            // 8/16-wide vectors: once per 4-wide part.
            let (rt, it) = (self.wide_part_ty(rty)?, self.wide_part_ty(pointee)?);
            let (mut results, mut outs) = (Vec::new(), Vec::new());
            for i in 0..self.wide_parts(rty) {
                let xp = self.wide_part(b, x, rt, i);
                let (r, o) = self.pointer_out_values(b, name, rt, it, xp, double)?;
                results.push(r);
                outs.push(o);
            }
            let (rt, it) = (self.lower_ty(rty)?, self.lower_ty(pointee)?);
            (
                self.emit(b, Op::CompositeConstruct, rt, ids(&results)),
                self.emit(b, Op::CompositeConstruct, it, ids(&outs)),
            )
        } else {
            let (rt, it) = (self.lower_ty(rty)?, self.lower_ty(pointee)?);
            self.pointer_out_values(b, name, rt, it, x, double)?
        };
        let space = self.space(ptr)?;
        let addr = self.addr_of(b, space, ptr)?;
        let align = self.tys.align_of(pointee);
        self.store_value(b, space, addr, pointee, out, align)?;
        self.alias.insert(id, result);
        Ok(())
    }

    /// The two values of a pointer-result builtin (`lower_pointer_out`)
    /// on `x` of output type `rt`: the result and what goes through the
    /// pointer (type `it`).
    fn pointer_out_values(
        &mut self,
        b: &mut Block,
        name: &str,
        rt: Word,
        it: Word,
        x: Word,
        double: bool,
    ) -> Res<(Word, Word)> {
        Ok(match name {
            "fract" => {
                let fl = self.glsl(b, GLOp::Floor, rt, &[x]);
                let d = self.op2(b, Op::FSub, rt, x, fl);
                let below_one = match self.out.scalar_width(rt).unwrap_or(32) {
                    64 => f64::from_bits(0x3fef_ffff_ffff_ffff),
                    16 => 0.99951171875,
                    _ => f32::from_bits(0x3f7f_ffff) as f64,
                };
                let c = self.splat(rt, 0, below_one);
                let m = self.glsl(b, GLOp::NMin, rt, &[d, c]);
                // NMin returns c for a NaN difference: fract(NaN) is NaN.
                let bt = self.bool_ty(rt);
                let nan = self.emit(b, Op::IsNan, bt, ids(&[x]));
                (self.emit(b, Op::Select, rt, ids(&[nan, x, m])), fl)
            }
            "modf" => {
                let t = self.glsl_round(b, GLOp::Trunc, rt, x);
                let d = self.op2(b, Op::FSub, rt, x, t);
                // modf(±inf) = ±0: the sign of x on the difference.
                (
                    self.inline_builtin(b, "copysign", rt, &[d, x], &[rt, rt], double)?,
                    t,
                )
            }
            "sincos" => {
                if double {
                    return Err(no_double_here("sincos"));
                }
                (
                    self.glsl(b, GLOp::Sin, rt, &[x]),
                    self.glsl(b, GLOp::Cos, rt, &[x]),
                )
            }
            _ => {
                let st = self.out.t_struct(&[rt, it]);
                let fr = self.glsl(b, GLOp::FrexpStruct, st, &[x]);
                let m = self.emit(
                    b,
                    Op::CompositeExtract,
                    rt,
                    vec![Operand::IdRef(fr), Operand::LiteralBit32(0)],
                );
                let e = self.emit(
                    b,
                    Op::CompositeExtract,
                    it,
                    vec![Operand::IdRef(fr), Operand::LiteralBit32(1)],
                );
                (m, e)
            }
        })
    }

    /// convert_T_sat from float (output types `st` → `t`): the converted
    /// value, NaN → 0, below the range → its minimum, at or above 2^w (2^(w-1)
    /// signed) → its maximum. The clamp bound is the largest float below
    /// that limit (2^31 - 1 is not a float: clamping to it would round up to
    /// 2^31 and overflow the conversion); values at the limit or above
    /// select the integer maximum after the conversion.
    pub(crate) fn saturating_float_to_int(
        &mut self,
        b: &mut Block,
        op: Op,
        x: Word,
        st: Word,
        t: Word,
        signed: bool,
    ) -> Word {
        let w = self.out.scalar_width(self.out.elem(t)).unwrap_or(32) as i32;
        let fw = self.out.scalar_width(self.out.elem(st)).unwrap_or(32);
        let (precision, max_finite) = match fw {
            16 => (11, 65504.0),
            32 => (24, f32::MAX as f64),
            _ => (53, f64::MAX),
        };
        let k = if signed { w - 1 } else { w };
        let limit = 2f64.powi(k);
        let (limit, hi) = if limit <= max_finite {
            (limit, limit - 2f64.powi(k - precision))
        } else {
            (f64::INFINITY, max_finite)
        };
        let lo = if signed {
            (-2f64.powi(k)).max(-max_finite)
        } else {
            0.0
        };
        let lo_c = self.splat(st, 0, lo);
        let hi_c = self.splat(st, 0, hi);
        let c = self.glsl(b, GLOp::NClamp, st, &[x, lo_c, hi_c]);
        let bt = self.bool_ty(st);
        let nan = self.emit(b, Op::IsNan, bt, ids(&[x]));
        let z = self.splat(st, 0, 0.0);
        let c = self.emit(b, Op::Select, st, ids(&[nan, z, c]));
        let conv = self.emit(b, op, t, ids(&[c]));
        let limit_c = self.splat(st, 0, limit);
        let over = self.emit(b, Op::FOrdGreaterThanEqual, bt, ids(&[x, limit_c]));
        let max = if signed {
            (1u64 << (w - 1)) - 1
        } else if w == 64 {
            u64::MAX
        } else {
            (1u64 << w) - 1
        };
        let max_c = self.splat(t, max, 0.0);
        let r = self.emit(b, Op::Select, t, ids(&[over, max_c, conv]));
        if !(signed && limit.is_infinite()) {
            return r;
        }
        // A half converted to a wider signed type: -inf → the minimum.
        let neg = self.splat(st, 0, f64::NEG_INFINITY);
        let under = self.emit(b, Op::FOrdEqual, bt, ids(&[x, neg]));
        let min_c = self.splat(t, 1u64 << (w - 1), 0.0);
        self.emit(b, Op::Select, t, ids(&[under, min_c, r]))
    }

    /// A double converted to an integer type without `_sat`: out-of-range
    /// values and NaN have undefined results in OpenCL, so they get the
    /// saturated ones (NaN → 0), as on GPUs whose conversion instructions
    /// saturate. libclc's double-precision math turns arguments such as NaN
    /// or infinity into table indices this way and discards the value
    /// later: with x86's conversion (lavapipe: INT_MIN) the table read would
    /// leave the buffer. `x` of output type `st` (double or double vector)
    /// → the clamped double.
    pub(crate) fn clamp_double_to_int(
        &mut self,
        b: &mut Block,
        x: Word,
        st: Word,
        t: Word,
        signed: bool,
    ) -> Word {
        let w = self.out.scalar_width(self.out.elem(t)).unwrap_or(32) as i32;
        // The extreme doubles that convert in range.
        let (lo, hi) = match (signed, w) {
            (true, 64) => (-(2f64.powi(63)), 2f64.powi(63) - 1024.0),
            (false, 64) => (0.0, 2f64.powi(64) - 2048.0),
            (true, w) => (-(2f64.powi(w - 1)), 2f64.powi(w - 1) - 1.0),
            (false, w) => (0.0, 2f64.powi(w) - 1.0),
        };
        let lo_c = self.splat(st, 0, lo);
        let hi_c = self.splat(st, 0, hi);
        let c = self.glsl(b, GLOp::NClamp, st, &[x, lo_c, hi_c]);
        let bt = self.bool_ty(st);
        let nan = self.emit(b, Op::IsNan, bt, ids(&[x]));
        let z = self.splat(st, 0, 0.0);
        self.emit(b, Op::Select, st, ids(&[nan, z, c]))
    }

    /// Integer saturation before a width change: clamps `x` (output type
    /// `st`, `sw` bits, signed or not) to the range of the destination
    /// (`dw` bits, signed or not), in the source width.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn saturate_int(
        &mut self,
        b: &mut Block,
        x: Word,
        st: Word,
        sw: u32,
        dw: u32,
        src_signed: bool,
        dst_signed: bool,
    ) -> Word {
        let max_of = |w: u32, signed: bool| {
            if signed {
                (1u128 << (w - 1)) - 1
            } else {
                (1u128 << w) - 1
            }
        };
        let hi = max_of(dw, dst_signed).min(max_of(sw, src_signed)) as u64;
        if src_signed {
            let lo = if dst_signed {
                (-(1i128 << (dw.min(sw) - 1))) as u64
            } else {
                0
            };
            let lo = self.splat(st, lo, 0.0);
            let hi = self.splat(st, hi, 0.0);
            self.glsl(b, GLOp::SClamp, st, &[x, lo, hi])
        } else {
            let hi = self.splat(st, hi, 0.0);
            self.glsl(b, GLOp::UMin, st, &[x, hi])
        }
    }

    /// The Kernel-only float classification instructions: OpOrdered,
    /// OpUnordered, OpIsFinite, OpIsNormal, OpSignBitSet, OpLessOrGreater.
    pub(crate) fn lower_float_class(&mut self, b: &mut Block, inst: &Instruction) -> Res<()> {
        let rt = self.lower_ty(inst.result_type.unwrap_or(0))?;
        let args: Vec<Word> = inst
            .operands
            .iter()
            .filter_map(|o| o.id_ref_any())
            .collect();
        let xt = self.lower_ty(self.ty_of(args[0]))?;
        let x = self.v(args[0]);
        let y = args.get(1).map(|&a| self.v(a)).unwrap_or(0);
        let r = self.float_class(b, inst.class.opcode, rt, xt, [x, y])?;
        self.alias.insert(inst.result_id.unwrap_or(0), r);
        Ok(())
    }

    /// One float classification `op` on output values: `x` of type `xt`
    /// (and `y`, for the two-operand ones), result type `rt` (bool or a
    /// bool vector). Also used per 4-wide part of 8/16-wide vectors.
    pub(crate) fn float_class(
        &mut self,
        b: &mut Block,
        op: Op,
        rt: Word,
        xt: Word,
        [x, y]: [Word; 2],
    ) -> Res<Word> {
        Ok(match op {
            Op::Ordered | Op::Unordered => {
                let nx = self.emit(b, Op::IsNan, rt, ids(&[x]));
                let ny = self.emit(b, Op::IsNan, rt, ids(&[y]));
                let u = self.emit(b, Op::LogicalOr, rt, ids(&[nx, ny]));
                if op == Op::Unordered {
                    u
                } else {
                    self.emit(b, Op::LogicalNot, rt, ids(&[u]))
                }
            }
            Op::LessOrGreater => self.emit(b, Op::FOrdNotEqual, rt, ids(&[x, y])),
            Op::IsFinite => {
                let n = self.emit(b, Op::IsNan, rt, ids(&[x]));
                let i = self.emit(b, Op::IsInf, rt, ids(&[x]));
                let u = self.emit(b, Op::LogicalOr, rt, ids(&[n, i]));
                self.emit(b, Op::LogicalNot, rt, ids(&[u]))
            }
            Op::SignBitSet | Op::IsNormal => {
                let w = self.out.scalar_width(xt).unwrap_or(32);
                let it = self.int_like(xt, w);
                let bits = self.emit(b, Op::Bitcast, it, ids(&[x]));
                if op == Op::SignBitSet {
                    let z = self.splat(it, 0, 0.0);
                    self.emit(b, Op::SLessThan, rt, ids(&[bits, z]))
                } else {
                    let mant = match w {
                        16 => 10,
                        32 => 23,
                        _ => 52,
                    };
                    let emask = (1u64 << (w - 1 - mant)) - 1;
                    let sh = self.splat(it, mant as u64, 0.0);
                    let e = self.emit(b, Op::ShiftRightLogical, it, ids(&[bits, sh]));
                    let m = self.splat(it, emask, 0.0);
                    let e = self.emit(b, Op::BitwiseAnd, it, ids(&[e, m]));
                    let z = self.splat(it, 0, 0.0);
                    let nz = self.emit(b, Op::INotEqual, rt, ids(&[e, z]));
                    let nm = self.emit(b, Op::INotEqual, rt, ids(&[e, m]));
                    self.emit(b, Op::LogicalAnd, rt, ids(&[nz, nm]))
                }
            }
            _ => return Err(format!("Op{op:?} is not supported")),
        })
    }
}
