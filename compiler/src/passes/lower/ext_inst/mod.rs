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
//!
//! `lower_ext_inst` dispatches by name (printf went to `printf`): shuffles
//! (`shuffle`), vector and half loads and stores and the pointer-result
//! builtins (`vload_store`), the geometric functions (`geometric`), then
//! the table (`implementation`): GLSL.std.450, a core instruction, or
//! inline code (`inline`, with the integer helpers of `int_ops`). The
//! Kernel-only float classification instructions are in `float_class`.
//! 8/16-wide vectors go through the table once per 4-wide part.
//!
//! Gaps: OpenCL.std instructions missing from the table, and double
//! transcendental ones where libclc is not linked (`no_double_here`), are
//! reported.

mod float_class;
mod geometric;
mod inline;
mod int_ops;
mod shuffle;
mod vload_store;

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{self, GlslStd450Op as GLOp, Op, OpenclStd100Op, Word};

use super::context::{Lower, Res};
use super::emit::{ids, Block};
use crate::analyses::type_table::Ty;

/// Flag of an OpenCL.std instruction number that carries a rounding mode
/// (`pipeline::strip_debug_ext_insts` moves vstore_half*_r's literal mode
/// into bits 8-9 of the number: spirt reads every operand as an id).
pub(crate) const ROUNDED_STORE: u32 = 0x1000;

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
        "mad" | "native_recip" | "half_recip" | "u_abs" | "s_abs" | "u_mad24" | "s_mad24"
        | "u_mul24" | "s_mul24" | "exp10" | "native_exp10" | "half_exp10" | "log10"
        | "native_log10" | "half_log10" | "expm1" | "log1p" | "cbrt" | "hypot" | "round"
        | "copysign" | "fdim" | "bitselect" | "select" | "popcount" | "clz" | "ctz"
        | "s_mul_hi" | "u_mul_hi" | "s_mad_hi" | "u_mad_hi" | "rotate" | "vloadn" | "vstoren"
        | "prefetch" | "sinpi" | "cospi" | "tanpi" | "asinpi" | "acospi" | "atanpi" | "atan2pi"
        | "u_abs_diff" | "s_abs_diff" | "u_add_sat" | "s_add_sat" | "u_sub_sat" | "s_sub_sat"
        | "u_hadd" | "s_hadd" | "u_rhadd" | "s_rhadd" | "u_mad_sat" | "s_mad_sat"
        | "u_upsample" | "s_upsample" | "maxmag" | "minmag" | "nan" | "pown" | "rootn"
        | "remainder" | "logb" | "ilogb" | "vload_half" | "vload_halfn" | "vloada_halfn"
        | "vstore_half" | "vstore_half_r" | "vstore_halfn" | "vstore_halfn_r" | "vstorea_halfn"
        | "vstorea_halfn_r" | "fract" | "modf" | "sincos" | "frexp" | "nextafter" => Inline,
        _ => return None,
    })
}

/// The error for a double-precision transcendental that reaches the
/// lowering: only a SPIR-V program's that `frontend::il_math` could not
/// link with libclc can (see the module doc).
pub(super) fn no_double_here(name: &str) -> String {
    format!(
        "double-precision '{name}' is not supported in programs created from SPIR-V \
         that cannot be linked with libclc's math (see the warning above)"
    )
}

/// An OpenCL.std instruction decoded: its name (`OpenclStd100Op`'s, e.g.
/// `fabs`), the rounding mode of a vstore_half*_r, and its operands (ids
/// and literals).
pub(crate) struct ClExtInst {
    pub name: String,
    pub store_rounding: Option<spirv::FPRoundingMode>,
    pub raw: Vec<u32>,
}

impl ClExtInst {
    pub fn decode(inst: &Instruction) -> Res<ClExtInst> {
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
        Ok(ClExtInst {
            name,
            store_rounding,
            raw,
        })
    }
}

impl Lower<'_> {
    /// An OpenCL.std instruction other than printf (`printf`), decoded as
    /// `e` (module docs).
    pub(crate) fn lower_ext_inst(
        &mut self,
        b: &mut Block,
        inst: &Instruction,
        e: ClExtInst,
    ) -> Res<()> {
        let ClExtInst {
            name,
            store_rounding,
            raw,
        } = e;
        let id = inst.result_id.unwrap_or(0);
        let rty_orig = inst.result_type.unwrap_or(0);
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
}
