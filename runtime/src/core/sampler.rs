//! cl_sampler: addressing, filter and coordinate normalization, its
//! OpenCL C encoding (`ferrocl_compiler::abi::sampler_bits`, what kernels
//! receive as `ImplicitField::SamplerValue`) and the VkSampler each device
//! binds for it (shared per encoding, see `crate::vk::image::Samplers`).
//!
//! Layer: platform and devices (an object of a context, above
//! `super::device`), used by kernel arguments.

use std::sync::Arc;

use ferrocl_compiler::abi::sampler_bits as sb;
use opencl_sys::*;

use super::context::Context;
use super::device::Device;
use super::error::CLResult;
use super::object::{tag, Base, ClObject};

#[repr(C)]
pub struct Sampler {
    base: Base,
    pub context: Arc<Context>,
    pub normalized_coords: bool,
    pub addressing_mode: cl_addressing_mode,
    pub filter_mode: cl_filter_mode,
    /// cl_khr_mipmap_image's CL_SAMPLER_MIP_FILTER_MODE_KHR,
    /// CL_SAMPLER_LOD_MIN_KHR and CL_SAMPLER_LOD_MAX_KHR.
    pub mip: MipSampling,
    /// The property list given to clCreateSamplerWithProperties (with its
    /// terminating 0), empty otherwise (CL_SAMPLER_PROPERTIES).
    pub properties: Vec<cl_sampler_properties>,
}

impl ClObject for Sampler {
    const TAG: u32 = tag(b"SAMP");
    const INVALID: cl_int = CL_INVALID_SAMPLER;
    fn base(&self) -> &Base {
        &self.base
    }
}

/// How a sampler reads mipmapped images (cl_khr_mipmap_image).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MipSampling {
    pub filter_mode: cl_filter_mode,
    pub lod_min: f32,
    pub lod_max: f32,
}

impl Default for MipSampling {
    /// The extension's defaults: CL_FILTER_NEAREST, 0.0, MAXFLOAT.
    fn default() -> MipSampling {
        MipSampling {
            filter_mode: CL_FILTER_NEAREST,
            lod_min: 0.0,
            lod_max: f32::MAX,
        }
    }
}

/// Whether `mode` is a valid cl_addressing_mode.
pub fn valid_addressing(mode: cl_addressing_mode) -> bool {
    matches!(
        mode,
        CL_ADDRESS_NONE
            | CL_ADDRESS_CLAMP_TO_EDGE
            | CL_ADDRESS_CLAMP
            | CL_ADDRESS_REPEAT
            | CL_ADDRESS_MIRRORED_REPEAT
    )
}

/// Whether `mode` is a valid cl_filter_mode.
pub fn valid_filter(mode: cl_filter_mode) -> bool {
    matches!(mode, CL_FILTER_NEAREST | CL_FILTER_LINEAR)
}

impl Sampler {
    /// The caller checked the modes ([`valid_addressing`], [`valid_filter`]).
    pub fn new(
        context: Arc<Context>,
        normalized_coords: bool,
        addressing_mode: cl_addressing_mode,
        filter_mode: cl_filter_mode,
        mip: MipSampling,
        properties: Vec<cl_sampler_properties>,
    ) -> CLResult<Arc<Sampler>> {
        let s = Sampler {
            base: Base::new(Self::TAG),
            context,
            normalized_coords,
            addressing_mode,
            filter_mode,
            mip,
            properties,
        };
        // Create the VkSamplers now so that a failure reaches the caller.
        for d in &s.context.devices {
            s.vk_sampler(d)?;
        }
        Ok(Arc::new(s))
    }

    /// The OpenCL C `sampler_t` encoding of this sampler.
    pub fn bits(&self) -> u32 {
        let address = match self.addressing_mode {
            CL_ADDRESS_CLAMP_TO_EDGE => sb::ADDRESS_CLAMP_TO_EDGE,
            CL_ADDRESS_CLAMP => sb::ADDRESS_CLAMP,
            CL_ADDRESS_REPEAT => sb::ADDRESS_REPEAT,
            CL_ADDRESS_MIRRORED_REPEAT => sb::ADDRESS_MIRRORED_REPEAT,
            _ => sb::ADDRESS_NONE,
        };
        let filter = if self.filter_mode == CL_FILTER_LINEAR {
            sb::FILTER_LINEAR
        } else {
            sb::FILTER_NEAREST
        };
        let norm = if self.normalized_coords {
            sb::NORMALIZED_COORDS_TRUE
        } else {
            0
        };
        let mip = if self.mip.filter_mode == CL_FILTER_LINEAR {
            sb::MIP_FILTER_LINEAR
        } else {
            0
        };
        norm | address | filter | mip
    }

    /// The lod range kernels clamp to, as f32 bits
    /// (`ImplicitField::SamplerLodMin` / `SamplerLodMax`).
    pub fn lod_range(&self) -> [u32; 2] {
        [self.mip.lod_min.to_bits(), self.mip.lod_max.to_bits()]
    }

    /// The VkSampler `device` binds for this sampler.
    pub fn vk_sampler(&self, device: &Device) -> CLResult<ash::vk::Sampler> {
        // The mip filter is the shader's alone (no Vulkan sampler reads
        // mip levels).
        device.vk()?.sampler(self.bits() & !sb::MIP_FILTER_LINEAR)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_matches_opencl_c() {
        // CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR
        assert_eq!(
            sb::NORMALIZED_COORDS_TRUE | sb::ADDRESS_REPEAT | sb::FILTER_LINEAR,
            0x27
        );
        // CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST
        assert_eq!(sb::ADDRESS_CLAMP | sb::FILTER_NEAREST, 0x14);
    }
}
