//! SPIR-V's SubgroupDispatch capability (SPIR-V 1.1, required of an
//! OpenCL 3.0 device with sub-groups and SPIR-V 1.1+ by the OpenCL SPIR-V
//! environment): its execution modes on a kernel (`dispatch_modes`).
//!
//! * `SubgroupSize N` (`dispatch_modes`): the kernel must run with
//!   sub-groups of N work-items. ferrocl's sub-groups have the one size
//!   `DeviceCaps::subgroup_size` (the runtime pins it per device, see
//!   `SubgroupMode`), so N is accepted when it is that size and the build
//!   fails with a log naming both sizes otherwise.
//! * `SubgroupsPerWorkgroup N` (and `SubgroupsPerWorkgroupId`, which
//!   `frontend::execution_mode_ids` made a literal one): the kernel is
//!   dispatched with N sub-groups per work-group. Nothing in
//!   the Vulkan module: the count becomes `Kernel::compile_num_sub_groups`
//!   (CL_KERNEL_COMPILE_NUM_SUB_GROUPS), which the runtime enforces on the
//!   local size (`launch::GroupRules::sub_groups`). The build fails when N
//!   is 0, exceeds CL_DEVICE_MAX_NUM_SUB_GROUPS, or contradicts the
//!   kernel's `LocalSize`.
//! * `OpGetKernelMaxNumSubgroups` and `OpGetKernelLocalSizeForSubgroupCount`
//!   never get here: `frontend::subgroup_queries` replaced them by their
//!   values before the pipeline (an instruction left over is reported by
//!   `function::op_needs_kernel`).
//!
//! Gaps: a SubgroupSize other than the device's one size, even where
//! VK_EXT_subgroup_size_control offers it (the runtime's sub-group
//! queries and layout assume one size per device).

use rspirv::dr::Operand;
use rspirv::spirv::{ExecutionMode, Word};

use super::context::{Lower, Res};

/// The SubgroupDispatch-related execution modes of one function.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct DispatchModes {
    /// `LocalSize` (reqd_work_group_size).
    pub local_size: Option<[u32; 3]>,
    /// `SubgroupsPerWorkgroup(Id)`: sub-groups per work-group.
    pub sub_groups: Option<u32>,
}

impl Lower<'_> {
    /// The execution modes of `func` that fix its work-group's shape,
    /// checked against the device (module docs).
    pub(super) fn dispatch_modes(&self, func: Word) -> Res<DispatchModes> {
        let s = self.caps.subgroup_size;
        let mut m = DispatchModes::default();
        for em in &self.ix.src.execution_modes {
            if em.operands.first() != Some(&Operand::IdRef(func)) {
                continue;
            }
            let lits: Vec<u32> = em.operands[2..]
                .iter()
                .filter_map(|o| match o {
                    Operand::LiteralBit32(v) => Some(*v),
                    _ => None,
                })
                .collect();
            let Some(Operand::ExecutionMode(mode)) = em.operands.get(1) else {
                continue;
            };
            match mode {
                ExecutionMode::LocalSize if lits.len() == 3 => {
                    m.local_size = Some([lits[0], lits[1], lits[2]])
                }
                ExecutionMode::SubgroupSize => {
                    let n = *lits.first().ok_or("SubgroupSize without its size")?;
                    if s == 0 {
                        return Err(format!(
                            "execution mode SubgroupSize {n}: the device has no sub-groups"
                        ));
                    }
                    if n != s {
                        return Err(format!(
                            "execution mode SubgroupSize {n}: the device's sub-groups have {s} \
                             work-items, and no other size"
                        ));
                    }
                }
                ExecutionMode::SubgroupsPerWorkgroup => {
                    m.sub_groups = Some(*lits.first().ok_or("SubgroupsPerWorkgroup without N")?)
                }
                _ => {}
            }
        }
        if let Some(n) = m.sub_groups {
            let max = self.caps.max_num_sub_groups;
            if s == 0 {
                return Err(format!(
                    "execution mode SubgroupsPerWorkgroup {n}: the device has no sub-groups"
                ));
            }
            if n == 0 || n > max {
                return Err(format!(
                    "execution mode SubgroupsPerWorkgroup {n}: the device's work-groups have \
                     1 to {max} sub-groups"
                ));
            }
            if let Some(r) = m.local_size {
                let items = r[0] * r[1] * r[2];
                if items.div_ceil(s) != n {
                    return Err(format!(
                        "execution modes SubgroupsPerWorkgroup {n} and LocalSize {} {} {} \
                         disagree: {items} work-items make {} sub-groups of {s}",
                        r[0],
                        r[1],
                        r[2],
                        items.div_ceil(s)
                    ));
                }
            }
        }
        Ok(m)
    }
}
