//! OpenCL work-item builtins (`get_global_id` & co., loaded by llvm-spirv
//! from Input variables) computed from Vulkan builtins, specialization
//! constants and implicit push-constant fields, per `crate::abi`:
//!
//! * `get_local_id(d)` = LocalInvocationId.d (computed from
//!   LocalInvocationIndex where the kernel uses sub-groups, see `subgroup`)
//! * `get_group_id(d)` = WorkgroupId.d + RegionGroupOffset[d]
//! * `get_local_size(d)` = the WorkgroupSize spec constant (SpecId 0,1,2;
//!   default 1, or `reqd_work_group_size`, which a partial trailing group
//!   of a non-uniform launch is smaller than)
//! * `get_enqueued_local_size(d)` = SpecId 3,4,5 (or `reqd_work_group_size`)
//! * `get_global_id(d)` = group_id × enqueued_local_size + local_id +
//!   GlobalOffset[d]
//! * `get_global_size`, `get_num_groups`, `get_global_offset`,
//!   `get_work_dim`: implicit fields
//! * `get_global_linear_id` = linearized (global_id − offset) over
//!   GlobalSize; `get_local_linear_id` = LocalInvocationIndex.
//! * the sub-group queries (`get_sub_group_size` & co.): see `subgroup`.
//!
//! Everything is computed in 32 bits (the ABI's fields are u32) and widened
//! to the size_t the input expects. A dynamic dimension ≥ 3 yields 0 for
//! ids and 1 for sizes, as OpenCL requires.
//!
//! Gaps: none known here; builtin variables without an implementation are
//! reported by `variables::classify_globals`.

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{BuiltIn, Decoration, Op, StorageClass, Word};

use super::context::{ClBuiltin, Lower, MaskKind, Res};
use super::emit::{ids, Block};
use crate::abi::ImplicitField;
use crate::analyses::type_table::Ty;

impl Lower<'_> {
    /// Loads push-constant word `index` (a constant id).
    pub(crate) fn pc_word(&mut self, b: &mut Block, index: Word) -> Word {
        self.pc.used = true;
        let u32t = self.out.t_u32();
        let pt = self.out.t_ptr(StorageClass::PushConstant, u32t);
        let c0 = self.out.c_u32(0);
        let p = self.emit(b, Op::AccessChain, pt, ids(&[self.pc.var, c0, index]));
        self.emit(b, Op::Load, u32t, ids(&[p]))
    }

    /// The u32 value of an implicit field; its push-constant word index is
    /// a constant defined once the layout is known (`finish_globals`).
    pub(crate) fn implicit_field(&mut self, b: &mut Block, f: ImplicitField) -> Word {
        let meta = matches!(
            f,
            ImplicitField::ImageChannelOrder(_)
                | ImplicitField::ImageChannelDataType(_)
                | ImplicitField::ImageRowPitch(_)
                | ImplicitField::ImageBufferWidth(_)
                | ImplicitField::ImageBufferHeight(_)
                | ImplicitField::SamplerValue(_)
                | ImplicitField::ImageMipLevels(_)
                | ImplicitField::SamplerLodMin(_)
                | ImplicitField::SamplerLodMax(_)
        );
        if meta && self.pc.spill_meta {
            return self.spilled_field(b, f);
        }
        let c = match self.pc.implicit.iter().find(|(g, _)| *g == f) {
            Some((_, c)) => *c,
            None => {
                let c = self.out.id();
                self.pc.implicit.push((f, c));
                c
            }
        };
        self.pc_word(b, c)
    }

    fn vk_input(&mut self, bi: BuiltIn) -> Word {
        if let Some(&v) = self.work.vk_inputs.get(&bi) {
            return v;
        }
        let u32t = self.out.t_u32();
        let scalar = matches!(
            bi,
            BuiltIn::LocalInvocationIndex
                | BuiltIn::SubgroupSize
                | BuiltIn::NumSubgroups
                | BuiltIn::SubgroupId
                | BuiltIn::SubgroupLocalInvocationId
        );
        if scalar && bi != BuiltIn::LocalInvocationIndex {
            self.use_group_cap(rspirv::spirv::Capability::GroupNonUniform);
        }
        let t = if scalar {
            u32t
        } else {
            self.out.t_vec(u32t, 3)
        };
        let pt = self.out.t_ptr(StorageClass::Input, t);
        let v = self.out.id();
        self.out.globals.push(Instruction::new(
            Op::Variable,
            Some(pt),
            Some(v),
            vec![Operand::StorageClass(StorageClass::Input)],
        ));
        self.out.decorate(
            v,
            vec![
                Operand::Decoration(Decoration::BuiltIn),
                Operand::BuiltIn(bi),
            ],
        );
        self.work.vk_inputs.insert(bi, v);
        v
    }

    fn vk_component(&mut self, b: &mut Block, bi: BuiltIn, d: u32) -> Word {
        let var = self.vk_input(bi);
        let u32t = self.out.t_u32();
        let v3 = self.out.t_vec(u32t, 3);
        let v = self.emit(b, Op::Load, v3, ids(&[var]));
        self.emit(
            b,
            Op::CompositeExtract,
            u32t,
            vec![Operand::IdRef(v), Operand::LiteralBit32(d)],
        )
    }

    pub(crate) fn spec_u32(&mut self, spec_id: u32, default: u32) -> Word {
        let u32t = self.out.t_u32();
        let id = self.out.id();
        self.out.globals.push(Instruction::new(
            Op::SpecConstant,
            Some(u32t),
            Some(id),
            vec![Operand::LiteralBit32(default)],
        ));
        self.out.decorate(
            id,
            vec![
                Operand::Decoration(Decoration::SpecId),
                Operand::LiteralBit32(spec_id),
            ],
        );
        id
    }

    /// The local-size spec constants (SpecId 0, 1, 2; default 1, or the
    /// `reqd_work_group_size`).
    fn local_spec_constants(&mut self) -> [Word; 3] {
        if let Some(s) = self.work.local_specs {
            return s;
        }
        let d = self.work.reqd_size.unwrap_or([1; 3]);
        let s = [
            self.spec_u32(0, d[0]),
            self.spec_u32(1, d[1]),
            self.spec_u32(2, d[2]),
        ];
        self.work.local_specs = Some(s);
        s
    }

    /// The WorkgroupSize spec-constant composite: Vulkan takes the
    /// dispatch's local size from it. (SpecId 0, 1, 2), or, for a kernel
    /// that uses sub-groups (`flatten`), (SpecId 0 × SpecId 1 × SpecId 2,
    /// 1, 1).
    pub(crate) fn wg_size_composite(&mut self) -> Word {
        if let Some(w) = self.work.wg_size {
            return w;
        }
        let mut xs = self.local_spec_constants();
        let u32t = self.out.t_u32();
        if self.work.flatten {
            let mut n = xs[0];
            for &f in &xs[1..] {
                let id = self.out.id();
                self.out.globals.push(Instruction::new(
                    Op::SpecConstantOp,
                    Some(u32t),
                    Some(id),
                    vec![
                        Operand::LiteralSpecConstantOpInteger(Op::IMul),
                        Operand::IdRef(n),
                        Operand::IdRef(f),
                    ],
                ));
                n = id;
            }
            let one = self.out.c_u32(1);
            xs = [n, one, one];
        }
        let v3 = self.out.t_vec(u32t, 3);
        let id = self.out.id();
        self.out.globals.push(Instruction::new(
            Op::SpecConstantComposite,
            Some(v3),
            Some(id),
            ids(&xs),
        ));
        self.out.decorate(
            id,
            vec![
                Operand::Decoration(Decoration::BuiltIn),
                Operand::BuiltIn(BuiltIn::WorkgroupSize),
            ],
        );
        self.work.wg_size = Some(id);
        id
    }

    /// `get_local_size(d)`: this dispatch's work-group size, smaller than
    /// `reqd_work_group_size` in a partial trailing group.
    fn local_size(&mut self, _b: &mut Block, d: u32) -> Word {
        self.wg_size_composite();
        self.local_spec_constants()[d as usize]
    }

    /// `get_local_id(d)`: LocalInvocationId.d, or, in a flattened
    /// work-group, LocalInvocationIndex split over the local sizes.
    fn local_id(&mut self, b: &mut Block, d: u32) -> Word {
        if !self.work.flatten {
            return self.vk_component(b, BuiltIn::LocalInvocationId, d);
        }
        let u32t = self.out.t_u32();
        let idx = self.vk_scalar(b, BuiltIn::LocalInvocationIndex);
        let lx = self.local_size(b, 0);
        match d {
            0 => self.emit(b, Op::UMod, u32t, ids(&[idx, lx])),
            1 => {
                let ly = self.local_size(b, 1);
                let q = self.emit(b, Op::UDiv, u32t, ids(&[idx, lx]));
                self.emit(b, Op::UMod, u32t, ids(&[q, ly]))
            }
            _ => {
                let ly = self.local_size(b, 1);
                let plane = self.emit(b, Op::IMul, u32t, ids(&[lx, ly]));
                self.emit(b, Op::UDiv, u32t, ids(&[idx, plane]))
            }
        }
    }

    fn enqueued_size(&mut self, d: u32) -> Word {
        if let Some(r) = self.work.reqd_size {
            return self.out.c_u32(r[d as usize]);
        }
        if self.work.enqueued_size.is_none() {
            self.work.enqueued_size = Some([
                self.spec_u32(3, 1),
                self.spec_u32(4, 1),
                self.spec_u32(5, 1),
            ]);
        }
        self.work.enqueued_size.unwrap_or_default()[d as usize]
    }

    fn group_id(&mut self, b: &mut Block, d: u32) -> Word {
        let u32t = self.out.t_u32();
        let g = self.vk_component(b, BuiltIn::WorkgroupId, d);
        let o = self.implicit_field(b, ImplicitField::RegionGroupOffset(d as u8));
        self.emit(b, Op::IAdd, u32t, ids(&[g, o]))
    }

    /// A scalar u32 Vulkan builtin (SubgroupSize & co.).
    fn vk_scalar(&mut self, b: &mut Block, bi: BuiltIn) -> Word {
        let var = self.vk_input(bi);
        let u32t = self.out.t_u32();
        self.emit(b, Op::Load, u32t, ids(&[var]))
    }

    /// min(a, b) of two u32.
    fn umin(&mut self, b: &mut Block, x: Word, y: Word) -> Word {
        let u32t = self.out.t_u32();
        let bt = self.out.t_bool();
        let lt = self.emit(b, Op::ULessThan, bt, ids(&[x, y]));
        self.emit(b, Op::Select, u32t, ids(&[lt, x, y]))
    }

    /// Local linear size: the product of the three local sizes, or of the
    /// three enqueued local sizes.
    fn linear_size(&mut self, b: &mut Block, enqueued: bool) -> Word {
        let u32t = self.out.t_u32();
        let mut s = [0; 3];
        for (d, x) in s.iter_mut().enumerate() {
            *x = if enqueued {
                self.enqueued_size(d as u32)
            } else {
                self.local_size(b, d as u32)
            };
        }
        let t = self.emit(b, Op::IMul, u32t, ids(&[s[0], s[1]]));
        self.emit(b, Op::IMul, u32t, ids(&[t, s[2]]))
    }

    /// The sub-group queries (layout in `subgroup`'s module docs).
    fn subgroup_query(&mut self, b: &mut Block, cb: ClBuiltin) -> Word {
        let u32t = self.out.t_u32();
        match cb {
            ClBuiltin::SubgroupId => self.vk_scalar(b, BuiltIn::SubgroupId),
            ClBuiltin::SubgroupLocalId => self.vk_scalar(b, BuiltIn::SubgroupLocalInvocationId),
            // ⌈local linear size / S⌉, not Vulkan's NumSubgroups: lavapipe
            // (Mesa 22.3) rounds that one down when the work-group size is
            // not a multiple of S.
            ClBuiltin::NumSubgroups => {
                let l = self.linear_size(b, false);
                self.ceil_div_subgroup(b, l)
            }
            ClBuiltin::SubgroupMaxSize => {
                let s = self.vk_scalar(b, BuiltIn::SubgroupSize);
                let e = self.linear_size(b, true);
                self.umin(b, s, e)
            }
            ClBuiltin::SubgroupSize => {
                let s = self.vk_scalar(b, BuiltIn::SubgroupSize);
                let id = self.vk_scalar(b, BuiltIn::SubgroupId);
                let l = self.linear_size(b, false);
                let first = self.emit(b, Op::IMul, u32t, ids(&[id, s]));
                let rest = self.emit(b, Op::ISub, u32t, ids(&[l, first]));
                self.umin(b, s, rest)
            }
            _ => {
                // NumEnqueuedSubgroups: ⌈enqueued linear size / S⌉.
                let e = self.linear_size(b, true);
                self.ceil_div_subgroup(b, e)
            }
        }
    }

    /// ⌈n / S⌉, S = Vulkan's SubgroupSize.
    fn ceil_div_subgroup(&mut self, b: &mut Block, n: Word) -> Word {
        let u32t = self.out.t_u32();
        let s = self.vk_scalar(b, BuiltIn::SubgroupSize);
        let one = self.out.c_u32(1);
        let sm1 = self.emit(b, Op::ISub, u32t, ids(&[s, one]));
        let t = self.emit(b, Op::IAdd, u32t, ids(&[n, sm1]));
        self.emit(b, Op::UDiv, u32t, ids(&[t, s]))
    }

    /// group_id × enqueued_local_size + local_id (global id minus offset).
    fn global_id_no_offset(&mut self, b: &mut Block, d: u32) -> Word {
        let u32t = self.out.t_u32();
        let g = self.group_id(b, d);
        let e = self.enqueued_size(d);
        let m = self.emit(b, Op::IMul, u32t, ids(&[g, e]));
        let l = self.local_id(b, d);
        self.emit(b, Op::IAdd, u32t, ids(&[m, l]))
    }

    /// The u32 value of component `d` of a builtin.
    pub(crate) fn builtin_u32(&mut self, b: &mut Block, cb: ClBuiltin, d: u32) -> Word {
        let u32t = self.out.t_u32();
        match cb {
            ClBuiltin::GlobalId => {
                let x = self.global_id_no_offset(b, d);
                let o = self.implicit_field(b, ImplicitField::GlobalOffset(d as u8));
                self.emit(b, Op::IAdd, u32t, ids(&[x, o]))
            }
            ClBuiltin::LocalId => self.local_id(b, d),
            ClBuiltin::GroupId => self.group_id(b, d),
            ClBuiltin::GlobalSize => self.implicit_field(b, ImplicitField::GlobalSize(d as u8)),
            ClBuiltin::LocalSize => self.local_size(b, d),
            ClBuiltin::EnqueuedLocalSize => self.enqueued_size(d),
            ClBuiltin::NumGroups => self.implicit_field(b, ImplicitField::NumGroups(d as u8)),
            ClBuiltin::GlobalOffset => self.implicit_field(b, ImplicitField::GlobalOffset(d as u8)),
            ClBuiltin::WorkDim => self.implicit_field(b, ImplicitField::WorkDim),
            ClBuiltin::GlobalLinearId => {
                let x = self.global_id_no_offset(b, 0);
                let y = self.global_id_no_offset(b, 1);
                let z = self.global_id_no_offset(b, 2);
                let sx = self.implicit_field(b, ImplicitField::GlobalSize(0));
                let sy = self.implicit_field(b, ImplicitField::GlobalSize(1));
                let t = self.emit(b, Op::IMul, u32t, ids(&[z, sy]));
                let t = self.emit(b, Op::IAdd, u32t, ids(&[t, y]));
                let t = self.emit(b, Op::IMul, u32t, ids(&[t, sx]));
                self.emit(b, Op::IAdd, u32t, ids(&[t, x]))
            }
            ClBuiltin::LocalLinearId => {
                let var = self.vk_input(BuiltIn::LocalInvocationIndex);
                self.emit(b, Op::Load, u32t, ids(&[var]))
            }
            ClBuiltin::SubgroupSize
            | ClBuiltin::SubgroupMaxSize
            | ClBuiltin::NumSubgroups
            | ClBuiltin::NumEnqueuedSubgroups
            | ClBuiltin::SubgroupId
            | ClBuiltin::SubgroupLocalId => self.subgroup_query(b, cb),
            ClBuiltin::SubgroupMask(k) => self.subgroup_mask(b, k, d),
        }
    }

    /// Component `d` (bits 32d … 32d+31) of `get_sub_group_<k>_mask()`:
    /// with `l` = get_sub_group_local_id and `n` = get_sub_group_size, the
    /// bits of the lanes `[lo, hi)`: eq `[l, l+1)`, ge `[l, n)`, gt
    /// `[l+1, n)`, le `[0, l+1)`, lt `[0, l)`. Computed rather than read
    /// from Vulkan's Subgroup*Mask, whose ge/gt run to Vulkan's SubgroupSize
    /// − 1 even in a partial sub-group.
    fn subgroup_mask(&mut self, b: &mut Block, k: MaskKind, d: u32) -> Word {
        let u32t = self.out.t_u32();
        let l = self.subgroup_query(b, ClBuiltin::SubgroupLocalId);
        let one = self.out.c_u32(1);
        let zero = self.out.c_u32(0);
        let (lo, hi) = match k {
            MaskKind::Eq => (l, self.emit(b, Op::IAdd, u32t, ids(&[l, one]))),
            MaskKind::Ge => (l, self.subgroup_query(b, ClBuiltin::SubgroupSize)),
            MaskKind::Gt => {
                let lo = self.emit(b, Op::IAdd, u32t, ids(&[l, one]));
                (lo, self.subgroup_query(b, ClBuiltin::SubgroupSize))
            }
            MaskKind::Le => (zero, self.emit(b, Op::IAdd, u32t, ids(&[l, one]))),
            MaskKind::Lt => (zero, l),
        };
        let lo = self.bits_below_in_word(b, lo, d);
        let hi = self.bits_below_in_word(b, hi, d);
        let not_lo = self.emit(b, Op::Not, u32t, ids(&[lo]));
        self.emit(b, Op::BitwiseAnd, u32t, ids(&[hi, not_lo]))
    }

    /// The bits of word `d` of a 128-bit mask below bit `n`:
    /// `m` = clamp(n − 32d, 0, 32), all ones at 32, else (1 << m) − 1.
    fn bits_below_in_word(&mut self, b: &mut Block, n: Word, d: u32) -> Word {
        let u32t = self.out.t_u32();
        let bt = self.out.t_bool();
        let base = self.out.c_u32(32 * d);
        let c32 = self.out.c_u32(32);
        let c31 = self.out.c_u32(31);
        let one = self.out.c_u32(1);
        let ones = self.out.c_u32(u32::MAX);
        let ge = self.emit(b, Op::UGreaterThanEqual, bt, ids(&[n, base]));
        let m = self.emit(b, Op::ISub, u32t, ids(&[n, base]));
        let m = self.umin(b, m, c32);
        let zero = self.out.c_u32(0);
        let m = self.emit(b, Op::Select, u32t, ids(&[ge, m, zero]));
        let sh = self.emit(b, Op::BitwiseAnd, u32t, ids(&[m, c31]));
        let p = self.emit(b, Op::ShiftLeftLogical, u32t, ids(&[one, sh]));
        let low = self.emit(b, Op::ISub, u32t, ids(&[p, one]));
        let full = self.emit(b, Op::UGreaterThanEqual, bt, ids(&[m, c32]));
        self.emit(b, Op::Select, u32t, ids(&[full, ones, low]))
    }

    /// A u32 widened (or not) to the scalar output type `nt`.
    fn widen(&mut self, b: &mut Block, v: Word, nt: Word) -> Word {
        if nt == self.out.t_u32() {
            v
        } else {
            self.emit(b, Op::UConvert, nt, ids(&[v]))
        }
    }

    /// What a builtin returns for a dimension ≥ 3: 1 for sizes, 0 otherwise.
    fn out_of_range_value(cb: ClBuiltin) -> u32 {
        match cb {
            ClBuiltin::GlobalSize
            | ClBuiltin::LocalSize
            | ClBuiltin::EnqueuedLocalSize
            | ClBuiltin::NumGroups => 1,
            _ => 0,
        }
    }

    /// Component `d` of a vector builtin, of input scalar type `ty`.
    pub(crate) fn builtin_component(
        &mut self,
        b: &mut Block,
        cb: ClBuiltin,
        d: u32,
        ty: Word,
    ) -> Res<Word> {
        let nt = self.lower_ty(ty)?;
        if d >= 3 {
            // OpenCL: ids and offsets are 0 and sizes 1 for dimensions ≥ 3.
            let v = u64::from(Self::out_of_range_value(cb));
            return Ok(self.out.c_int(self.out.int_width(nt).unwrap_or(64), v));
        }
        let v = self.builtin_u32(b, cb, d);
        Ok(self.widen(b, v, nt))
    }

    /// The whole value of a builtin load of input type `ty`.
    pub(crate) fn builtin_value(&mut self, b: &mut Block, cb: ClBuiltin, ty: Word) -> Res<Word> {
        let nt = self.lower_ty(ty)?;
        match self.tys.get(ty).clone() {
            Ty::Vector(e, n) => {
                let ent = self.lower_ty(e)?;
                let mut parts = Vec::new();
                for d in 0..n {
                    let v = self.builtin_u32(b, cb, d);
                    parts.push(self.widen(b, v, ent));
                }
                Ok(self.emit(b, Op::CompositeConstruct, nt, ids(&parts)))
            }
            _ => {
                let v = self.builtin_u32(b, cb, 0);
                Ok(self.widen(b, v, nt))
            }
        }
    }

    /// `get_xxx(dim)` with a dynamic `dim`: out-of-range dimensions give 0
    /// for ids and offsets, 1 for sizes.
    pub(crate) fn builtin_dynamic_extract(
        &mut self,
        b: &mut Block,
        cb: ClBuiltin,
        vector: Word,
        idx: Word,
        idx_orig: Word,
        ty: Word,
    ) -> Res<Word> {
        let nt = self.lower_ty(ty)?;
        let x = self.emit(b, Op::VectorExtractDynamic, nt, ids(&[vector, idx]));
        let iw = match self.tys.get(self.ty_of(idx_orig)) {
            Ty::Int(w) => *w,
            _ => 32,
        };
        let three = self.out.c_int(iw, 3);
        let bt = self.out.t_bool();
        let ok = self.emit(b, Op::ULessThan, bt, ids(&[idx, three]));
        let w = self.out.int_width(nt).unwrap_or(64);
        let default = u64::from(Self::out_of_range_value(cb));
        let dflt = self.out.c_int(w, default);
        Ok(self.emit(b, Op::Select, nt, ids(&[ok, x, dflt])))
    }
}
