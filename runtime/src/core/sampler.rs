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
        properties: Vec<cl_sampler_properties>,
    ) -> CLResult<Arc<Sampler>> {
        let s = Sampler {
            base: Base::new(Self::TAG),
            context,
            normalized_coords,
            addressing_mode,
            filter_mode,
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
        norm | address | filter
    }

    /// The VkSampler `device` binds for this sampler.
    pub fn vk_sampler(&self, device: &Device) -> CLResult<ash::vk::Sampler> {
        device.vk()?.sampler(self.bits())
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
