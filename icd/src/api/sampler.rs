//! Sampler entry points.

use std::ffi::c_void;

use ferrocl_runtime::core::object::{get, handle_of, into_handle, release, retain, ClObject};
use ferrocl_runtime::core::sampler::{valid_addressing, valid_filter, MipSampling, Sampler};
use ferrocl_runtime::CLResult;
use opencl_sys::*;

use super::context::ctx_arc;
use crate::entry::{code, object};
use crate::info::{write, Info};

fn create(
    c: cl_context,
    normalized: cl_bool,
    addressing: cl_addressing_mode,
    filter: cl_filter_mode,
    mip: MipSampling,
    properties: Vec<cl_sampler_properties>,
) -> CLResult<cl_sampler> {
    let ctx = ctx_arc(c)?;
    // "CL_INVALID_VALUE if addressing_mode, filter_mode, normalized_coords
    // or a combination of these arguments are not valid."
    if !valid_addressing(addressing)
        || !valid_filter(filter)
        || (normalized != CL_TRUE && normalized != CL_FALSE)
    {
        return Err(CL_INVALID_VALUE);
    }
    // "CL_INVALID_OPERATION if images are not supported by any device
    // associated with context."
    if !ctx.devices.iter().any(|d| d.image_support()) {
        return Err(CL_INVALID_OPERATION);
    }
    let s = Sampler::new(
        ctx,
        normalized == CL_TRUE,
        addressing,
        filter,
        mip,
        properties,
    )?;
    Ok(into_handle(s))
}

pub unsafe extern "C" fn clCreateSampler(
    c: cl_context,
    normalized: cl_bool,
    addressing: cl_addressing_mode,
    filter: cl_filter_mode,
    errcode_ret: *mut cl_int,
) -> cl_sampler {
    object(errcode_ret, || {
        create(
            c,
            normalized,
            addressing,
            filter,
            MipSampling::default(),
            Vec::new(),
        )
    })
}

pub unsafe extern "C" fn clCreateSamplerWithProperties(
    c: cl_context,
    props: *const cl_sampler_properties,
    errcode_ret: *mut cl_int,
) -> cl_sampler {
    object(errcode_ret, || {
        let ctx = ctx_arc(c)?;
        // cl_khr_mipmap_image's properties, where a device reports it.
        let mipmaps = ctx.devices.iter().any(|d| d.mipmap_image());
        let mut mip = MipSampling::default();
        let (mut mip_filter, mut lod_min, mut lod_max) = (false, false, false);
        // The defaults: normalized coordinates, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST.
        let (mut norm, mut address, mut filter) = (
            None::<cl_bool>,
            None::<cl_addressing_mode>,
            None::<cl_filter_mode>,
        );
        let mut list = Vec::new();
        if !props.is_null() {
            let mut i = 0;
            loop {
                // SAFETY: a 0-terminated list of (name, value) pairs.
                let name = unsafe { *props.add(i) };
                list.push(name);
                if name == 0 {
                    break;
                }
                // SAFETY: every name is followed by its value.
                let value = unsafe { *props.add(i + 1) };
                list.push(value);
                i += 2;
                // "CL_INVALID_VALUE if the property name in
                // sampler_properties is not a supported property name, if
                // the value specified for a supported property name is not
                // valid, or if the same property name is specified more
                // than once."
                let slot_set = match name as cl_sampler_info {
                    CL_SAMPLER_NORMALIZED_COORDS => norm.replace(value as cl_bool).is_some(),
                    CL_SAMPLER_ADDRESSING_MODE => {
                        address.replace(value as cl_addressing_mode).is_some()
                    }
                    CL_SAMPLER_FILTER_MODE => filter.replace(value as cl_filter_mode).is_some(),
                    CL_SAMPLER_MIP_FILTER_MODE if mipmaps => {
                        let f = value as cl_filter_mode;
                        if !valid_filter(f) {
                            return Err(CL_INVALID_VALUE);
                        }
                        mip.filter_mode = f;
                        std::mem::replace(&mut mip_filter, true)
                    }
                    // A cl_float in the value's low 32 bits.
                    CL_SAMPLER_LOD_MIN if mipmaps => {
                        mip.lod_min = f32::from_bits(value as u32);
                        std::mem::replace(&mut lod_min, true)
                    }
                    CL_SAMPLER_LOD_MAX if mipmaps => {
                        mip.lod_max = f32::from_bits(value as u32);
                        std::mem::replace(&mut lod_max, true)
                    }
                    _ => return Err(CL_INVALID_VALUE),
                };
                if slot_set {
                    return Err(CL_INVALID_VALUE);
                }
            }
        }
        create(
            c,
            norm.unwrap_or(CL_TRUE),
            address.unwrap_or(CL_ADDRESS_CLAMP),
            filter.unwrap_or(CL_FILTER_NEAREST),
            mip,
            list,
        )
    })
}

pub unsafe extern "C" fn clRetainSampler(s: cl_sampler) -> cl_int {
    // SAFETY: handle from the application.
    code(|| unsafe { retain::<Sampler>(s) })
}

pub unsafe extern "C" fn clReleaseSampler(s: cl_sampler) -> cl_int {
    // SAFETY: handle from the application.
    code(|| unsafe { release::<Sampler>(s) })
}

/// Whether a device of the sampler's context reports cl_khr_mipmap_image.
fn mipmaps(smp: &Sampler) -> bool {
    smp.context.devices.iter().any(|d| d.mipmap_image())
}

pub unsafe extern "C" fn clGetSamplerInfo(
    s: cl_sampler,
    param: cl_sampler_info,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        let smp = unsafe { get::<Sampler>(s) }?;
        let info = match param {
            CL_SAMPLER_REFERENCE_COUNT => Ok(Info::u32(smp.base().refcount())),
            CL_SAMPLER_CONTEXT => Ok(Info::ptr(handle_of(&smp.context))),
            CL_SAMPLER_NORMALIZED_COORDS => Ok(Info::bool(smp.normalized_coords)),
            CL_SAMPLER_ADDRESSING_MODE => Ok(Info::u32(smp.addressing_mode)),
            CL_SAMPLER_FILTER_MODE => Ok(Info::u32(smp.filter_mode)),
            CL_SAMPLER_MIP_FILTER_MODE if mipmaps(smp) => Ok(Info::u32(smp.mip.filter_mode)),
            CL_SAMPLER_LOD_MIN if mipmaps(smp) => Ok(Info::raw(&[smp.mip.lod_min])),
            CL_SAMPLER_LOD_MAX if mipmaps(smp) => Ok(Info::raw(&[smp.mip.lod_max])),
            // "If the properties argument specified in
            // clCreateSamplerWithProperties [...] was not NULL, the
            // implementation must return the values specified in the
            // properties argument in the same order and without including
            // additional properties"; size 0 otherwise.
            CL_SAMPLER_PROPERTIES => Ok(Info::raw(&smp.properties)),
            _ => Err(CL_INVALID_VALUE),
        };
        // SAFETY: pointers from the application.
        unsafe { write(info, size, value, size_ret) }
    })
}
