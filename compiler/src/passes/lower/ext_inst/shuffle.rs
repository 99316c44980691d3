//! `shuffle(x, mask)` and `shuffle2(x, y, mask)` (OpenCL.std 182/183):
//! result lane `j` is lane `mask[j] mod k` of the concatenated inputs
//! (`k` = the number of input lanes, a power of two for every vector size
//! the builtins accept, so the modulo is the spec's "only the low bits of
//! each mask element are considered"). Each lane is a chain of selects over
//! the input lanes, which works alike for 2- to 16-wide vectors (8/16-wide
//! ones are arrays of 4-wide parts, see `wide`) and any element type.
//!
//! Gaps: none known.

use rspirv::spirv::Op;

use crate::analyses::type_table::Ty;
use crate::passes::lower::context::{Lower, Res};
use crate::passes::lower::emit::{ids, Block};

impl Lower<'_> {
    pub(crate) fn lower_shuffle(
        &mut self,
        b: &mut Block,
        id: u32,
        rty: u32,
        raw: &[u32],
    ) -> Res<()> {
        let (&mask, inputs) = raw.split_last().ok_or("shuffle: no operands")?;
        let xt = self.ty_of(inputs[0]);
        let Ty::Vector(e, n) = self.tys.get(xt).clone() else {
            return Err("shuffle: the input is not a vector".into());
        };
        let mt = self.ty_of(mask);
        let Ty::Vector(me, m) = self.tys.get(mt).clone() else {
            return Err("shuffle: the mask is not a vector".into());
        };
        let Ty::Int(mw) = *self.tys.get(me) else {
            return Err("shuffle: the mask is not an integer vector".into());
        };
        let et = self.lower_ty(e)?;
        let met = self.lower_ty(me)?;
        let u32t = self.out.t_u32();
        let boolt = self.out.t_bool();
        let mut lanes = Vec::new();
        for &x in inputs {
            let v = self.v(x);
            for i in 0..n {
                lanes.push(self.vector_elem(b, v, xt, et, i));
            }
        }
        let k = lanes.len() as u32;
        let low_bits = self.out.c_u32(k.next_power_of_two() - 1);
        let mv = self.v(mask);
        let mut out = Vec::with_capacity(m as usize);
        for j in 0..m {
            let mj = self.vector_elem(b, mv, mt, met, j);
            let mj = if mw == 32 {
                mj
            } else {
                self.emit(b, Op::UConvert, u32t, ids(&[mj]))
            };
            let idx = self.op2(b, Op::BitwiseAnd, u32t, mj, low_bits);
            let mut r = lanes[0];
            for (l, &lane) in lanes.iter().enumerate().skip(1) {
                let c = self.out.c_u32(l as u32);
                let hit = self.op2(b, Op::IEqual, boolt, idx, c);
                r = self.emit(b, Op::Select, et, ids(&[hit, lane, r]));
            }
            out.push(r);
        }
        let v = self.make_vector(b, rty, &out)?;
        self.alias.insert(id, v);
        Ok(())
    }
}
