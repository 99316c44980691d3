//! OpenCL.std memory builtins: vloadn/vstoren (element-aligned vector
//! accesses), vload_half/vstore_half and their vector/aligned forms (halves
//! as 16-bit integers, so no Float16 capability is needed; stores rounded
//! as the mode asks in integer arithmetic, `narrow`), and the builtins
//! with a pointer result operand (fract, modf, sincos, frexp), whose second
//! result is stored through the pointer.
//!
//! Gaps: none known; malformed offsets or pointers are reported.

use rspirv::dr::Operand;
use rspirv::spirv::{self, GlslStd450Op as GLOp, Op, Word};

use super::no_double_here;
use crate::analyses::address_space::Space;
use crate::analyses::type_table::{align_at, Ty};
use crate::passes::lower::context::{Lower, Res};
use crate::passes::lower::emit::{ids, Block};

impl Lower<'_> {
    /// vloadn(offset, p, n) / vstoren(data, offset, p): element-aligned
    /// vector accesses at `p + offset × n × sizeof(element)`.
    pub(crate) fn lower_vload_store(
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
        // One vector access aligned to the element (4-wide parts for 8/16
        // wide vectors), not one access per element.
        if let Some(d) = data {
            let d = self.v(d);
            self.store_value(b, space, addr, vty, d, es)?;
        } else {
            let v = self.load_value(b, space, addr, vty, es)?;
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
    pub(crate) fn lower_vload_store_half(
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
    pub(crate) fn lower_pointer_out(
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
}
