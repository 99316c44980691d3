//! Generic pointers (OpenCL C 2.0/3.0 `__opencl_c_generic_address_space`):
//! conversions to and from named spaces, and the tag tests.
//!
//! A generic pointer is a `u64` (`rep_width`). Its top two bits are a
//! tag: `00` a global address as it is (a buffer device address, or
//! descriptor addressing's `slot << 32 | offset`), `10` a `__local` byte
//! offset (`LOCAL_TAG | offset`), `11` a private one. NULL is 0 in every
//! space (the `__local` and private arrays never put an object at offset 0
//! once a kernel converts such a pointer to generic,
//! `variables::reserve_null_offsets`), and a named NULL converts to the
//! generic NULL and back.
//!
//! Why global values cannot carry a non-zero tag: a Vulkan buffer device
//! address is a GPU virtual address of the process, and every device
//! ferrocl runs on keeps these below 2^57 (NVIDIA and AMD GPUs use 48- or
//! 49-bit virtual address spaces with the upper half unused for user
//! allocations; lavapipe's are CPU user-space pointers, below 2^47, or
//! 2^56 with 5-level paging); the runtime refuses a buffer whose address
//! range reaches bit 62 (`vk::buffer`). Descriptor addressing's slots are
//! argument positions, far below 2^30.
//!
//! Where the analysis knows the space (`analyses::address_space`), a
//! conversion is a truncation or nothing and accesses are those of the
//! named space: the tag is an OR at the conversion to generic that the
//! truncation at the access discards, so a kernel whose generic pointers
//! all have known spaces costs what its named-space version does. Where
//! it does not (`Space::Mixed`), `to_global`/`to_local`/`to_private`
//! (OpGenericCastToPtrExplicit) and `get_fence` (OpGenericPtrMemSemantics)
//! test the tag, and accesses branch on it (`passes::dispatch_generic`).
//!
//! Gaps: a `__constant` pointer is not in the generic space (OpenCL C
//! 3.0 §6.7.1; clang rejects the conversion), so its conversion to
//! generic is reported.

use rspirv::dr::Instruction;
use rspirv::spirv::{MemorySemantics, Op, Word};

use super::context::{Lower, Res};
use super::emit::{ids, Block};
use crate::analyses::address_space::{space_of_class, Space};
use crate::analyses::type_table::Ty;

/// Shift of the tag (the top two bits of a generic pointer).
const TAG_SHIFT: u64 = 62;
/// The tags, as the value of `pointer >> TAG_SHIFT`.
const GLOBAL_TAG: u64 = 0;
const LOCAL_TAG: u64 = 2;
const PRIVATE_TAG: u64 = 3;

fn tag_of(space: Space) -> Option<u64> {
    match space {
        Space::Global => Some(GLOBAL_TAG),
        Space::Local => Some(LOCAL_TAG),
        Space::Private => Some(PRIVATE_TAG),
        _ => None,
    }
}

impl Lower<'_> {
    /// OpPtrCastToGeneric: a global address stays as it is; a `__local`
    /// or private offset gets its tag, except NULL (offset 0), which stays 0.
    pub(crate) fn lower_to_generic(&mut self, b: &mut Block, inst: &Instruction) -> Res<()> {
        let src = inst.operands[0].unwrap_id_ref();
        let id = inst.result_id.unwrap_or(0);
        let v = self.v(src);
        let space = match self.facts.spaces.get(&src) {
            Some(s) => *s,
            // NULL or undefined.
            None => {
                let z = self.out.c_u64(0);
                self.alias.insert(id, z);
                return Ok(());
            }
        };
        match space {
            Space::Global => {
                self.alias.insert(id, v);
            }
            Space::Local | Space::Private => {
                let (t64, tb) = (self.out.t_u64(), self.out.t_bool());
                let wide = self.emit(b, Op::UConvert, t64, ids(&[v]));
                let tag = self.out.c_u64(tag_of(space).unwrap_or(0) << TAG_SHIFT);
                let tagged = self.emit(b, Op::BitwiseOr, t64, ids(&[wide, tag]));
                let zero32 = self.out.c_u32(0);
                let null = self.emit(b, Op::IEqual, tb, ids(&[v, zero32]));
                let zero = self.out.c_u64(0);
                b.push(Op::Select, Some(t64), Some(id), ids(&[null, zero, tagged]));
            }
            Space::Const => {
                return Err("a __constant pointer converted to a generic pointer".into())
            }
            Space::Mixed => {
                return Err(
                    "a pointer converted to generic whose own address space is not known".into(),
                )
            }
            // A pointer into a private variable's own array: every use of
            // the generic value accesses that variable
            // (`analyses::private_variables`), so it is just the offset.
            Space::Variable(_) => {
                let t64 = self.out.t_u64();
                b.push(Op::UConvert, Some(t64), Some(id), ids(&[v]));
            }
        }
        Ok(())
    }

    /// OpGenericCastToPtr (`explicit`: false; the pointer must point into
    /// the target space) and OpGenericCastToPtrExplicit (`to_global`,
    /// `to_local`, `to_private`: NULL where it points elsewhere).
    pub(crate) fn lower_from_generic(
        &mut self,
        b: &mut Block,
        inst: &Instruction,
        explicit: bool,
    ) -> Res<()> {
        let src = inst.operands[0].unwrap_id_ref();
        let id = inst.result_id.unwrap_or(0);
        let Ty::Pointer(sc, _) = self.tys.get(inst.result_type.unwrap_or(0)).clone() else {
            return Err("generic pointer cast to a non-pointer".into());
        };
        let target = space_of_class(sc)
            .ok_or_else(|| format!("generic pointer cast to storage class {sc:?}"))?;
        let to = self.lower_ty(inst.result_type.unwrap_or(0))?;
        let null = if target == Space::Global {
            self.out.c_u64(0)
        } else {
            self.out.c_u32(0)
        };
        // A private variable's own array is private memory.
        let source = self.facts.spaces.get(&src).map(|&s| match s {
            Space::Variable(_) => Space::Private,
            s => s,
        });
        let v = self.v(src);
        match source {
            // NULL or undefined; or known to point elsewhere.
            None => {
                self.alias.insert(id, null);
            }
            Some(s) if s != target && s != Space::Mixed => {
                self.alias.insert(id, null);
            }
            Some(s) => {
                let named = if target == Space::Global {
                    v
                } else {
                    self.emit(b, Op::UConvert, to, ids(&[v]))
                };
                if s == Space::Mixed && explicit {
                    let tb = self.out.t_bool();
                    let tag = self.generic_tag(b, v);
                    let want = self.out.c_u32(tag_of(target).unwrap_or(0) as u32);
                    let ok = self.emit(b, Op::IEqual, tb, ids(&[tag, want]));
                    b.push(Op::Select, Some(to), Some(id), ids(&[ok, named, null]));
                    if target == Space::Global {
                        self.desc_derive(v, id);
                    }
                } else {
                    self.alias.insert(id, named);
                }
            }
        }
        Ok(())
    }

    /// OpGenericPtrMemSemantics (`get_fence`): the memory-semantics bits of
    /// the space the pointer points into (CrossWorkgroupMemory,
    /// WorkgroupMemory, or none for private memory).
    pub(crate) fn lower_generic_semantics(&mut self, b: &mut Block, inst: &Instruction) -> Res<()> {
        let src = inst.operands[0].unwrap_id_ref();
        let id = inst.result_id.unwrap_or(0);
        let to = self.lower_ty(inst.result_type.unwrap_or(0))?;
        let bits = |s: Space| match s {
            Space::Global => MemorySemantics::CROSS_WORKGROUP_MEMORY.bits(),
            Space::Local => MemorySemantics::WORKGROUP_MEMORY.bits(),
            _ => 0,
        };
        match self.facts.spaces.get(&src).copied() {
            // NULL: its tag is the global one.
            None => {
                let c = self.out.c_u32(bits(Space::Global));
                self.alias.insert(id, c);
            }
            Some(Space::Mixed) => {
                let v = self.v(src);
                let tb = self.out.t_bool();
                let tag = self.generic_tag(b, v);
                let local = self.out.c_u32(LOCAL_TAG as u32);
                let private = self.out.c_u32(PRIVATE_TAG as u32);
                let is_local = self.emit(b, Op::IEqual, tb, ids(&[tag, local]));
                let is_private = self.emit(b, Op::IEqual, tb, ids(&[tag, private]));
                let (g, l, p) = (
                    self.out.c_u32(bits(Space::Global)),
                    self.out.c_u32(bits(Space::Local)),
                    self.out.c_u32(bits(Space::Private)),
                );
                let gl = self.emit(b, Op::Select, to, ids(&[is_local, l, g]));
                b.push(Op::Select, Some(to), Some(id), ids(&[is_private, p, gl]));
            }
            Some(s) => {
                let c = self.out.c_u32(bits(s));
                self.alias.insert(id, c);
            }
        }
        Ok(())
    }

    /// The tag of generic pointer value `v` (output id), as a u32.
    fn generic_tag(&mut self, b: &mut Block, v: Word) -> Word {
        let (t64, t32) = (self.out.t_u64(), self.out.t_u32());
        let sh = self.out.c_u64(TAG_SHIFT);
        let hi = self.emit(b, Op::ShiftRightLogical, t64, ids(&[v, sh]));
        self.emit(b, Op::UConvert, t32, ids(&[hi]))
    }
}
