//! Descriptor sets for image and sampler kernel arguments, and for the
//! buffer and POD arguments of descriptor-addressed kernels (`abi`):
//! per-device pools that grow on demand. Kernels recycle their sets (see
//! `pipeline::KernelPipelines`), so a steady stream of launches allocates
//! nothing; sets go back to their pool when the kernel goes away.
//!
//! Layer: Vulkan execution (`crate::vk`), below the object model.

use ash::vk;
use parking_lot::Mutex;

use super::device::Device;
use super::map_vk_err;
use crate::core::error::CLResult;

/// The descriptor types kernel arguments use.
pub const TYPES: [vk::DescriptorType; 7] = [
    vk::DescriptorType::SAMPLER,
    vk::DescriptorType::SAMPLED_IMAGE,
    vk::DescriptorType::STORAGE_IMAGE,
    vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
    vk::DescriptorType::STORAGE_TEXEL_BUFFER,
    vk::DescriptorType::STORAGE_BUFFER,
    vk::DescriptorType::UNIFORM_BUFFER,
];

const SETS_PER_POOL: u32 = 256;
const DESCRIPTORS_PER_TYPE: u32 = 1024;

/// A set and the pool it came from.
#[derive(Clone, Copy, Debug)]
pub struct DescriptorSet {
    pub pool: vk::DescriptorPool,
    pub raw: vk::DescriptorSet,
}

#[derive(Default)]
pub struct DescriptorPools {
    /// Every pool of the device (host access to a pool is externally
    /// synchronized: all allocations and frees hold this lock).
    pools: Mutex<Vec<vk::DescriptorPool>>,
}

impl DescriptorPools {
    pub fn destroy(&self, device: &ash::Device) {
        for p in self.pools.lock().drain(..) {
            // SAFETY: called when the device is being destroyed.
            unsafe { device.destroy_descriptor_pool(p, None) };
        }
    }
}

impl Device {
    /// A set of `layout`, which holds at most `largest` descriptors of any
    /// one type.
    pub fn allocate_descriptor_set(
        &self,
        layout: vk::DescriptorSetLayout,
        largest: u32,
    ) -> CLResult<DescriptorSet> {
        let mut pools = self.descriptor_pools.pools.lock();
        let layouts = [layout];
        for &pool in pools.iter().rev() {
            let info = vk::DescriptorSetAllocateInfo::default()
                .descriptor_pool(pool)
                .set_layouts(&layouts);
            // SAFETY: the pool is ours and locked; the layout is alive.
            match unsafe { self.raw.allocate_descriptor_sets(&info) } {
                Ok(s) => return Ok(DescriptorSet { pool, raw: s[0] }),
                Err(vk::Result::ERROR_OUT_OF_POOL_MEMORY | vk::Result::ERROR_FRAGMENTED_POOL) => {}
                Err(e) => return Err(map_vk_err(e)),
            }
        }
        let per_type = DESCRIPTORS_PER_TYPE.max(largest.saturating_mul(4));
        let sizes = TYPES.map(|ty| vk::DescriptorPoolSize {
            ty,
            descriptor_count: per_type,
        });
        let pi = vk::DescriptorPoolCreateInfo::default()
            .flags(vk::DescriptorPoolCreateFlags::FREE_DESCRIPTOR_SET)
            .max_sets(SETS_PER_POOL)
            .pool_sizes(&sizes);
        // SAFETY: valid device and create info.
        let pool = unsafe { self.raw.create_descriptor_pool(&pi, None) }.map_err(map_vk_err)?;
        pools.push(pool);
        let info = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(pool)
            .set_layouts(&layouts);
        // SAFETY: as above, a fresh pool large enough for the layout.
        let s = unsafe { self.raw.allocate_descriptor_sets(&info) }.map_err(map_vk_err)?;
        Ok(DescriptorSet { pool, raw: s[0] })
    }

    /// Returns sets to their pools (no pending command may use them).
    pub fn free_descriptor_sets(&self, sets: &[DescriptorSet]) {
        let _pools = self.descriptor_pools.pools.lock();
        for s in sets {
            // SAFETY: the set came from this pool (created with
            // FREE_DESCRIPTOR_SET) and is unused; the pools are locked.
            let _ = unsafe { self.raw.free_descriptor_sets(s.pool, &[s.raw]) };
        }
    }
}
