//! Encoding of ferrocl's program binary format (`Writer`): the caps, the
//! kernels and their reflection, field by field as `super`'s layout says.

use crate::abi::{
    AccessQualifier, AddressQualifier, Addressing, ArgDescriptor, ArgKind, DescriptorKind,
    ImageDescriptor, ImageDim, ImplicitField, KernelArg, PrintfArgKind,
};
use crate::caps::DeviceCaps;
use crate::program::Kernel;

/// The bytes written so far.
pub(super) struct Writer(pub(super) Vec<u8>);

impl Writer {
    pub(super) fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    pub(super) fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub(super) fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub(super) fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub(super) fn bytes(&mut self, b: &[u8]) {
        self.u32(b.len() as u32);
        self.0.extend_from_slice(b);
    }
    pub(super) fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }
    pub(super) fn opt_dims(&mut self, v: Option<[u32; 3]>) {
        match v {
            Some(d) => {
                self.u8(1);
                d.iter().for_each(|&x| self.u32(x));
            }
            None => self.u8(0),
        }
    }

    pub(super) fn caps(&mut self, c: &DeviceCaps) {
        self.u8(match c.addressing {
            Addressing::Physical => 0,
            Addressing::Descriptor => 1,
        });
        self.u32(c.max_push_constant_size);
        self.u8(c.fp64 as u8);
        self.u8(c.fp16 as u8);
        self.u8(c.int64_atomics as u8);
        self.u32(c.subgroup_size);
        self.u8(c.khr_subgroups as u8);
        self.u32(c.subgroup_ops);
        self.u8(c.spirv_version.0);
        self.u8(c.spirv_version.1);
        self.u8(c.images as u8);
        self.u8(c.read_write_images as u8);
        self.u8(c.depth_images as u8);
        self.u8(c.mipmap_image as u8);
        self.u32(c.mipmap_image_write_args);
        self.u32(c.image2d_from_buffer_args);
        self.u8(c.fused_fma64 as u8);
        self.u8(c.fused_fma32 as u8);
        self.u8(c.denorms32 as u8);
        self.u8(c.preserve_denorms.0);
        self.u8(c.preserve_inf_nan.0);
        self.u8(c.rmw_ordering as u8);
        self.u8(c.vulkan_memory_model as u8);
        self.u8(c.loop_limiter as u8);
        self.u8(c.soft_int64_division as u8);
        self.u8(c.wide_narrow_arithmetic as u8);
        self.u8(c.soft_long_sign_extension as u8);
        self.u8(c.branch_loop_exits as u8);
        self.u8(c.split_bitcasts_to_16bit as u8);
        self.u8(c.inline_functions as u8);
        self.u8(c.spill_loop_live_outs as u8);
        self.u8(c.integer_bool_phis as u8);
        self.u8(c.branch_buffer_selects as u8);
        self.u8(c.integer_dot_product as u8);
        self.u8(c.device_clock as u8);
        self.u8(c.subgroup_clock as u8);
        self.u32(c.max_num_sub_groups);
        self.u32(c.float_atomics);
        self.u8(c.descriptor.pod_ubo as u8);
        self.u8(c.descriptor.cluster_pod_args as u8);
        self.u32(c.descriptor.sampler_map.len() as u32);
        c.descriptor.sampler_map.iter().for_each(|&v| self.u32(v));
    }

    pub(super) fn implicit(&mut self, list: &[(ImplicitField, u32)]) {
        self.u32(list.len() as u32);
        for &(f, offset) in list {
            let (tag, dim) = match f {
                ImplicitField::GlobalOffset(d) => (0, d.into()),
                ImplicitField::GlobalSize(d) => (1, d.into()),
                ImplicitField::NumGroups(d) => (2, d.into()),
                ImplicitField::RegionGroupOffset(d) => (3, d.into()),
                ImplicitField::WorkDim => (4, 0),
                ImplicitField::GlobalVariables(w) => (5, w.into()),
                ImplicitField::PrintfBuffer(w) => (6, w.into()),
                ImplicitField::ImageChannelOrder(n) => (7, n),
                ImplicitField::ImageChannelDataType(n) => (8, n),
                ImplicitField::ImageRowPitch(n) => (12, n),
                ImplicitField::ImageBufferWidth(n) => (13, n),
                ImplicitField::ImageBufferHeight(n) => (14, n),
                ImplicitField::ImageMipLevels(n) => (15, n),
                ImplicitField::SamplerLodMin(n) => (16, n),
                ImplicitField::SamplerLodMax(n) => (17, n),
                ImplicitField::SamplerValue(n) => (9, n),
                ImplicitField::NullBufferArgs(w) => (10, w.into()),
                ImplicitField::LocalArgOffset(n) => (11, n),
            };
            self.u8(tag);
            self.u16(dim);
            self.u32(offset);
        }
    }

    pub(super) fn kernel(&mut self, k: &Kernel) {
        self.str(&k.name);
        self.str(&k.entry_point);
        self.u32(k.spirv.len() as u32);
        k.spirv.iter().for_each(|&w| self.u32(w));
        self.u32(k.args.len() as u32);
        for a in &k.args {
            self.arg(a);
        }
        self.u32(k.push_constant_size);
        match &k.arg_buffer {
            Some(b) => {
                self.u8(1);
                self.u32(b.address_offset);
                self.u32(b.size);
                self.implicit(&b.implicit);
                self.opt_descriptor(b.descriptor);
            }
            None => self.u8(0),
        }
        self.implicit(&k.implicit);
        self.opt_dims(k.reqd_work_group_size);
        self.u32(k.compile_num_sub_groups);
        self.opt_dims(k.work_group_size_hint);
        match &k.vec_type_hint {
            Some(s) => {
                self.u8(1);
                self.str(s);
            }
            None => self.u8(0),
        }
        self.str(&k.attributes);
        self.u32(k.static_local_size);
        self.u32(k.private_size);
        self.u32(k.printf.len() as u32);
        for c in &k.printf {
            self.str(&c.format);
            self.u32(c.args.len() as u32);
            for a in &c.args {
                self.u8(match a.kind {
                    PrintfArgKind::Int => 0,
                    PrintfArgKind::Float => 1,
                    PrintfArgKind::String => 2,
                    PrintfArgKind::Pointer => 3,
                });
                self.u8(a.bytes);
                self.u8(a.components);
            }
        }
        self.bytes(&k.printf_strings);
        match k.descriptor_set {
            Some(set) => {
                self.u8(1);
                self.u32(set);
            }
            None => self.u8(0),
        }
        self.u32(k.literal_samplers.len() as u32);
        k.literal_samplers.iter().for_each(|&v| self.u32(v));
        self.u8(match k.addressing {
            Addressing::Physical => 0,
            Addressing::Descriptor => 1,
        });
        for binding in [k.global_variables_binding, k.printf_binding] {
            match binding {
                Some(b) => {
                    self.u8(1);
                    self.u32(b);
                }
                None => self.u8(0),
            }
        }
        self.u8(k.loop_status as u8);
    }

    pub(super) fn arg(&mut self, a: &KernelArg) {
        self.str(&a.name);
        self.str(&a.type_name);
        self.u8(match a.address_qualifier {
            AddressQualifier::Global => 0,
            AddressQualifier::Constant => 1,
            AddressQualifier::Local => 2,
            AddressQualifier::Private => 3,
        });
        self.u8(match a.access_qualifier {
            AccessQualifier::ReadOnly => 0,
            AccessQualifier::WriteOnly => 1,
            AccessQualifier::ReadWrite => 2,
            AccessQualifier::None => 3,
        });
        self.u64(a.type_qualifier);
        match a.kind {
            ArgKind::Buffer => self.u8(0),
            ArgKind::LocalPointer { align } => {
                self.u8(1);
                self.u32(align);
            }
            ArgKind::Pod => self.u8(2),
            ArgKind::Sampler { binding } => {
                self.u8(3);
                self.u32(binding);
            }
            ArgKind::Image {
                dim,
                descriptor,
                binding,
                buffer_binding,
                level_binding,
            } => {
                self.u8(4);
                self.u8(match dim {
                    ImageDim::D1 => 0,
                    ImageDim::D1Buffer => 1,
                    ImageDim::D1Array => 2,
                    ImageDim::D2 => 3,
                    ImageDim::D2Array => 4,
                    ImageDim::D3 => 5,
                });
                self.u8(match descriptor {
                    ImageDescriptor::Sampled => 0,
                    ImageDescriptor::Storage => 1,
                    ImageDescriptor::UniformTexel => 2,
                    ImageDescriptor::StorageTexel => 3,
                });
                self.u32(binding);
                self.u32(buffer_binding.map_or(u32::MAX, |b| b));
                self.u32(level_binding.map_or(u32::MAX, |b| b));
            }
        }
        self.u32(a.offset);
        self.u32(a.size);
        self.opt_descriptor(a.descriptor);
    }

    pub(super) fn opt_descriptor(&mut self, d: Option<ArgDescriptor>) {
        match d {
            Some(d) => {
                self.u8(1);
                self.u32(d.set);
                self.u32(d.binding);
                self.u32(d.offset);
                self.u8(match d.kind {
                    DescriptorKind::Buffer => 0,
                    DescriptorKind::Pod => 1,
                    DescriptorKind::PodUbo => 2,
                });
            }
            None => self.u8(0),
        }
    }
}
