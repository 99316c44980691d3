//! cl_khr_kernel_clock (and SPV_KHR_shader_clock in IL): OpReadClockKHR,
//! from the input instruction or a call of `clock_read_*`
//! (`analyses::builtin_imports`).
//!
//! Vulkan's VK_KHR_shader_clock has a Device clock (shaderDeviceClock) and a
//! Subgroup clock (shaderSubgroupClock); a read at a scope the device lacks
//! is a build error (the front end does not declare those functions, and
//! the runtime does not report their scopes). Vulkan has no work-group
//! clock: `clock_read_work_group` is never declared, and Workgroup scope in
//! IL is an error. The `hilo` forms are the uvec2 result type (low word
//! first, as OpenCL's uint2).
//!
//! Gaps: none known.

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Capability, Op, Scope, Word};

use super::context::{Lower, Res};
use super::emit::Block;

impl Lower<'_> {
    /// An input OpReadClockKHR (its scope a constant).
    pub(crate) fn lower_read_clock(&mut self, b: &mut Block, inst: &Instruction) -> Res<()> {
        let scope_id = inst
            .operands
            .first()
            .and_then(|o| o.id_ref_any())
            .unwrap_or(0);
        let scope = self
            .ix
            .globals
            .get(&scope_id)
            .filter(|g| g.class.opcode == Op::Constant)
            .and_then(|g| match g.operands.first() {
                Some(Operand::LiteralBit32(v)) => Some(*v),
                _ => None,
            })
            .ok_or("OpReadClockKHR with a scope that is not a constant")?;
        let scope = match scope {
            1 => Scope::Device,
            2 => Scope::Workgroup,
            3 => Scope::Subgroup,
            _ => return Err(format!("OpReadClockKHR at scope {scope}")),
        };
        let rt = self.lower_ty(inst.result_type.unwrap_or(0))?;
        let r = self.read_clock(b, scope, rt)?;
        self.alias.insert(inst.result_id.unwrap_or(0), r);
        Ok(())
    }

    /// OpReadClockKHR at `scope` with result type `rt` (u64 or uvec2).
    pub(crate) fn read_clock(&mut self, b: &mut Block, scope: Scope, rt: Word) -> Res<Word> {
        let (device, sub_group) = self.caps.kernel_clock_scopes();
        let supported = match scope {
            Scope::Device => device,
            Scope::Subgroup => sub_group,
            _ => false,
        };
        if !supported {
            return Err(format!(
                "the device has no {scope:?}-scope kernel clock (cl_khr_kernel_clock)"
            ));
        }
        self.extras
            .require(&[Capability::ShaderClockKHR], "SPV_KHR_shader_clock");
        let s = self.out.c_u32(scope as u32);
        Ok(self.emit(b, Op::ReadClockKHR, rt, vec![Operand::IdRef(s)]))
    }
}
