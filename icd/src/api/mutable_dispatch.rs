//! cl_khr_command_buffer_mutable_dispatch: the kernel-command properties,
//! clUpdateMutableCommandsKHR and clGetMutableCommandInfoKHR. Updates
//! plan new launches and re-record only the changed commands
//! (`core::command_buffer::CommandBuffer::update`).

use std::ffi::c_void;

use ferrocl_runtime::core::command_buffer::{
    CommandBuffer, DispatchUpdate, MutableCommand, MUTABLE_DISPATCH_CAPABILITIES,
};
use ferrocl_runtime::core::object::{get, get_arc, handle_of};
use ferrocl_runtime::CLResult;
use opencl_sys::*;

use super::command_buffer::cmdbuf_arc;
use super::kernel::{arg_value, exec_info, svm_arg_value, ExecInfo};
use crate::entry::code;
use crate::info::{write, Info};

/// CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR as cl_ext.h defines it
/// (0x12B7); opencl-sys 0.6.5 has 0x1287.
pub const CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR: cl_command_buffer_properties_khr = 0x12B7;

/// clCommandNDRangeKernelKHR's properties: the list as given (empty for
/// NULL), the updatable fields ("If CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR
/// is not specified then it defaults to the value returned by the
/// CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR device query", for a
/// mutable command buffer), and whether the command or the command
/// buffer asserts no additional work-groups. "CL_INVALID_VALUE if values
/// specified in properties are not valid", also a repeated name.
///
/// # Safety
/// `p` must be NULL or a 0-terminated property list.
pub(crate) unsafe fn kernel_command_properties(
    cmdbuf: &CommandBuffer,
    p: *const cl_command_properties_khr,
) -> CLResult<(
    Vec<cl_command_properties_khr>,
    cl_mutable_dispatch_fields_khr,
    bool,
)> {
    let mut list = Vec::new();
    let mut updatable = None;
    let mut asserts = None;
    if !p.is_null() {
        let mut i = 0;
        loop {
            // SAFETY: 0-terminated per the caller.
            let name = unsafe { *p.add(i) };
            list.push(name);
            if name == 0 {
                break;
            }
            // SAFETY: a value follows each name.
            let value = unsafe { *p.add(i + 1) };
            list.push(value);
            i += 2;
            match name {
                CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR if updatable.is_none() => {
                    let known = MUTABLE_DISPATCH_CAPABILITIES;
                    if value & !known != 0 {
                        return Err(CL_INVALID_VALUE);
                    }
                    updatable = Some(value);
                }
                CL_MUTABLE_DISPATCH_ASSERTS_KHR if asserts.is_none() => {
                    if value & !CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR != 0 {
                        return Err(CL_INVALID_VALUE);
                    }
                    asserts = Some(value);
                }
                _ => return Err(CL_INVALID_VALUE),
            }
        }
    }
    let default = if cmdbuf.mutable() {
        MUTABLE_DISPATCH_CAPABILITIES
    } else {
        0
    };
    let buffer_asserts = cmdbuf
        .properties
        .chunks(2)
        .find(|c| c[0] == CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR)
        .map_or(0, |c| c[1]);
    let no_more_groups = (asserts.unwrap_or(0) | buffer_asserts)
        & CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR
        != 0;
    Ok((list, updatable.unwrap_or(default), no_more_groups))
}

/// `work_dim` entries of `p`, the rest `fill`.
///
/// # Safety
/// `p` must point at `work_dim` entries.
unsafe fn dims(p: *const usize, work_dim: u32, fill: usize) -> [usize; 3] {
    let mut v = [fill; 3];
    for (d, slot) in v.iter_mut().enumerate().take(work_dim as usize) {
        // SAFETY: caller contract.
        *slot = unsafe { *p.add(d) };
    }
    v
}

/// One cl_mutable_dispatch_config_khr, checked.
///
/// # Safety
/// `c`'s lists must hold their counts of entries.
unsafe fn dispatch_update(
    cmdbuf: &CommandBuffer,
    c: &cl_mutable_dispatch_config_khr,
) -> CLResult<DispatchUpdate> {
    // "CL_INVALID_MUTABLE_COMMAND_KHR if command is not a valid mutable
    // command object, or created from command_buffer."
    // SAFETY: handle from the application.
    let command = unsafe { get_arc::<MutableCommand>(c.command as *const c_void) }?;
    if !command.belongs_to(cmdbuf) {
        return Err(CL_INVALID_MUTABLE_COMMAND_KHR);
    }
    let range = command.range();
    let fields = command.updatable;
    // "CL_INVALID_OPERATION if the work_dim is different from the work_dim
    // set on command recording."
    if c.work_dim != 0 && c.work_dim != range.work_dim {
        return Err(CL_INVALID_OPERATION);
    }
    // "CL_INVALID_OPERATION if the CL_MUTABLE_DISPATCH_<FIELD>_KHR
    // property was not set on command recording and <field> is not NULL"
    // (arguments: "num_args or num_svm_args is non-zero"; exec info:
    // "num_exec_infos is non-zero").
    let denied = |field, given: bool| given && fields & field == 0;
    if denied(
        CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR,
        !c.global_work_offset.is_null(),
    ) || denied(
        CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR,
        !c.global_work_size.is_null(),
    ) || denied(
        CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR,
        !c.local_work_size.is_null(),
    ) || denied(
        CL_MUTABLE_DISPATCH_ARGUMENTS_KHR,
        c.num_args != 0 || c.num_svm_args != 0,
    ) || denied(CL_MUTABLE_DISPATCH_EXEC_INFO_KHR, c.num_exec_infos != 0)
    {
        return Err(CL_INVALID_OPERATION);
    }
    // "CL_INVALID_VALUE if arg_list is NULL and num_args > 0, or arg_list
    // is not NULL and num_args is 0", and the same for arg_svm_list and
    // exec_info_list.
    if c.arg_list.is_null() != (c.num_args == 0)
        || c.arg_svm_list.is_null() != (c.num_svm_args == 0)
        || c.exec_info_list.is_null() != (c.num_exec_infos == 0)
    {
        return Err(CL_INVALID_VALUE);
    }
    let mut args = Vec::with_capacity((c.num_args + c.num_svm_args) as usize);
    for i in 0..c.num_args as usize {
        // SAFETY: num_args entries per the application.
        let a = unsafe { &*c.arg_list.add(i) };
        // clSetKernelArg's errors.
        // SAFETY: arg_value points at arg_size bytes per the application.
        let v = unsafe { arg_value(&command.kernel, a.arg_index, a.arg_size, a.arg_value) }?;
        args.push((a.arg_index as usize, v));
    }
    for i in 0..c.num_svm_args as usize {
        // SAFETY: num_svm_args entries per the application.
        let a = unsafe { &*c.arg_svm_list.add(i) };
        // clSetKernelArgSVMPointer's errors; arg_value is the pointer.
        let v = svm_arg_value(&command.kernel, a.arg_index, a.arg_value)?;
        args.push((a.arg_index as usize, v));
    }
    // clSetKernelExecInfo's errors; each list replaces the recorded one.
    let mut indirect = Vec::new();
    for i in 0..c.num_exec_infos as usize {
        // SAFETY: num_exec_infos entries per the application.
        let e = unsafe { &*c.exec_info_list.add(i) };
        // SAFETY: param_value points at param_value_size bytes.
        match unsafe {
            exec_info(
                &command.kernel,
                e.param_name,
                e.param_value_size,
                e.param_value,
            )
        }? {
            ExecInfo::Indirect(u) => indirect.push(u),
            ExecInfo::NoFineGrainSystem => {}
        }
    }
    let wd = range.work_dim;
    // SAFETY: work_dim entries each per the application.
    let (offset, global, local) = unsafe {
        (
            (!c.global_work_offset.is_null()).then(|| dims(c.global_work_offset, wd, 0)),
            (!c.global_work_size.is_null()).then(|| dims(c.global_work_size, wd, 1)),
            (!c.local_work_size.is_null()).then(|| dims(c.local_work_size, wd, 1)),
        )
    };
    // clEnqueueNDRangeKernel's size rules (32-bit ids).
    let g = global.unwrap_or(range.global);
    let o = offset.unwrap_or(range.offset);
    if g[..wd as usize].iter().any(|&x| x > u32::MAX as usize) {
        return Err(CL_INVALID_GLOBAL_WORK_SIZE);
    }
    if (0..wd as usize).any(|d| o[d].checked_add(g[d]).is_none_or(|s| s > u32::MAX as usize)) {
        return Err(CL_INVALID_GLOBAL_OFFSET);
    }
    Ok(DispatchUpdate {
        command,
        args,
        indirect,
        offset,
        global,
        local,
    })
}

pub unsafe extern "C" fn clUpdateMutableCommandsKHR(
    cb: cl_command_buffer_khr,
    num_configs: cl_uint,
    config_types: *const cl_command_buffer_update_type_khr,
    configs: *mut *const c_void,
) -> cl_int {
    code(|| {
        // "CL_INVALID_COMMAND_BUFFER_KHR if command_buffer is not a valid
        // command-buffer."
        let cmdbuf = cmdbuf_arc(cb)?;
        // "CL_INVALID_OPERATION if command_buffer was not created with the
        // CL_COMMAND_BUFFER_MUTABLE_KHR flag."
        if !cmdbuf.mutable() {
            return Err(CL_INVALID_OPERATION);
        }
        // "CL_INVALID_OPERATION if command_buffer has not been finalized."
        if cmdbuf.state() == ferrocl_runtime::core::command_buffer::State::Recording {
            return Err(CL_INVALID_OPERATION);
        }
        // "CL_INVALID_VALUE if num_configs is 0, or config_types or configs
        // is NULL."
        if num_configs == 0 || config_types.is_null() || configs.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let mut updates = Vec::with_capacity(num_configs as usize);
        for i in 0..num_configs as usize {
            // SAFETY: num_configs entries each per the application.
            let (ty, cfg) = unsafe { (*config_types.add(i), *configs.add(i)) };
            // "CL_INVALID_VALUE if [a] type is not
            // CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR", or its
            // configuration is missing.
            if ty != CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR || cfg.is_null() {
                return Err(CL_INVALID_VALUE);
            }
            // SAFETY: a cl_mutable_dispatch_config_khr per its type.
            let c = unsafe { &*(cfg as *const cl_mutable_dispatch_config_khr) };
            // SAFETY: its lists per the application.
            updates.push(unsafe { dispatch_update(&cmdbuf, c) }?);
        }
        cmdbuf.update(updates)
    })
}

pub unsafe extern "C" fn clGetMutableCommandInfoKHR(
    command: cl_mutable_command_khr,
    param: cl_mutable_command_info_khr,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    code(|| {
        // "CL_INVALID_MUTABLE_COMMAND_KHR if command is not a valid
        // mutable command object."
        // SAFETY: handle from the application.
        let c = unsafe { get::<MutableCommand>(command as *const c_void) }?;
        let range = c.range();
        let wd = range.work_dim as usize;
        let info = match param {
            CL_MUTABLE_COMMAND_COMMAND_QUEUE_KHR => Ok(Info::ptr(handle_of(&c.queue))),
            CL_MUTABLE_COMMAND_COMMAND_BUFFER_KHR => Ok(Info::usize(c.owner_handle())),
            CL_MUTABLE_COMMAND_COMMAND_TYPE_KHR => Ok(Info::u32(CL_COMMAND_NDRANGE_KERNEL)),
            CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR => Ok(Info::raw(&c.properties)),
            CL_MUTABLE_DISPATCH_KERNEL_KHR => Ok(Info::ptr(handle_of(&c.kernel))),
            CL_MUTABLE_DISPATCH_DIMENSIONS_KHR => Ok(Info::u32(range.work_dim)),
            CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR => Ok(Info::raw(&range.offset[..wd])),
            CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR => Ok(Info::raw(&range.global[..wd])),
            // A NULL local size reads as zeros.
            CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR => {
                Ok(Info::raw(&range.local.unwrap_or([0; 3])[..wd]))
            }
            // "CL_INVALID_VALUE if param_name is not one of the supported values".
            _ => Err(CL_INVALID_VALUE),
        };
        // SAFETY: pointers from the application.
        unsafe { write(info, size, value, size_ret) }
    })
}
