//! Decoding of ferrocl's program binary format (`Reader`): the inverse of
//! `write`, checking every length, tag and value so that no input panics.

use super::BinaryError;
use crate::abi::{
    AccessQualifier, AddressQualifier, Addressing, ArgBuffer, ArgDescriptor, ArgKind,
    DescriptorKind, DescriptorOptions, ImageDescriptor, ImageDim, ImplicitField, KernelArg,
    PrintfArg, PrintfArgKind, PrintfCall,
};
use crate::caps::DeviceCaps;
use crate::program::Kernel;

/// The bytes and the read position.
pub(super) struct Reader<'a> {
    pub(super) data: &'a [u8],
    pub(super) pos: usize,
}

type Res<T> = Result<T, BinaryError>;

fn bad(what: &str) -> BinaryError {
    BinaryError(format!("bad {what}"))
}

impl<'a> Reader<'a> {
    pub(super) fn take(&mut self, n: usize) -> Res<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.data.len())
            .ok_or_else(|| BinaryError("truncated".to_string()))?;
        let s = &self.data[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    pub(super) fn u8(&mut self) -> Res<u8> {
        Ok(self.take(1)?[0])
    }
    pub(super) fn bool(&mut self) -> Res<bool> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(bad("flag")),
        }
    }
    pub(super) fn u16(&mut self) -> Res<u16> {
        Ok(u16::from_le_bytes(self.take(2)?.try_into().expect("2")))
    }
    pub(super) fn u32(&mut self) -> Res<u32> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4")))
    }
    pub(super) fn u64(&mut self) -> Res<u64> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8")))
    }
    pub(super) fn bytes(&mut self) -> Res<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
    pub(super) fn str(&mut self) -> Res<String> {
        String::from_utf8(self.bytes()?.to_vec()).map_err(|_| bad("string"))
    }
    /// A count of items of at least `min_size` bytes each, checked against
    /// what is left (no huge allocation from a corrupted count).
    pub(super) fn count(&mut self, min_size: usize) -> Res<usize> {
        let n = self.u32()? as usize;
        if n.saturating_mul(min_size) > self.data.len() - self.pos {
            return Err(bad("count"));
        }
        Ok(n)
    }
    pub(super) fn opt_dims(&mut self) -> Res<Option<[u32; 3]>> {
        Ok(if self.bool()? {
            Some([self.u32()?, self.u32()?, self.u32()?])
        } else {
            None
        })
    }

    pub(super) fn implicit(&mut self) -> Res<Vec<(ImplicitField, u32)>> {
        let n = self.count(6)?;
        let mut implicit = Vec::with_capacity(n);
        for _ in 0..n {
            let (tag, n) = (self.u8()?, self.u16()?);
            let dim = match u8::try_from(n) {
                Ok(d) if d <= 2 => d,
                _ if tag >= 7 => 0,
                _ => return Err(bad("dimension")),
            };
            let f = match tag {
                0 => ImplicitField::GlobalOffset(dim),
                1 => ImplicitField::GlobalSize(dim),
                2 => ImplicitField::NumGroups(dim),
                3 => ImplicitField::RegionGroupOffset(dim),
                4 => ImplicitField::WorkDim,
                5 if dim < 2 => ImplicitField::GlobalVariables(dim),
                6 if dim < 2 => ImplicitField::PrintfBuffer(dim),
                7 => ImplicitField::ImageChannelOrder(n),
                8 => ImplicitField::ImageChannelDataType(n),
                9 => ImplicitField::SamplerValue(n),
                10 => ImplicitField::NullBufferArgs(
                    u8::try_from(n).map_err(|_| bad("NULL mask word"))?,
                ),
                11 => ImplicitField::LocalArgOffset(n),
                12 => ImplicitField::ImageRowPitch(n),
                13 => ImplicitField::ImageBufferWidth(n),
                14 => ImplicitField::ImageBufferHeight(n),
                15 => ImplicitField::ImageMipLevels(n),
                16 => ImplicitField::SamplerLodMin(n),
                17 => ImplicitField::SamplerLodMax(n),
                _ => return Err(bad("implicit field")),
            };
            implicit.push((f, self.u32()?));
        }
        Ok(implicit)
    }

    pub(super) fn caps(&mut self) -> Res<DeviceCaps> {
        Ok(DeviceCaps {
            addressing: match self.u8()? {
                0 => Addressing::Physical,
                1 => Addressing::Descriptor,
                _ => return Err(bad("addressing")),
            },
            max_push_constant_size: self.u32()?,
            fp64: self.bool()?,
            fp16: self.bool()?,
            int64_atomics: self.bool()?,
            subgroup_size: self.u32()?,
            khr_subgroups: self.bool()?,
            subgroup_ops: self.u32()?,
            spirv_version: (self.u8()?, self.u8()?),
            images: self.bool()?,
            read_write_images: self.bool()?,
            depth_images: self.bool()?,
            mipmap_image: self.bool()?,
            mipmap_image_write_args: self.u32()?,
            image2d_from_buffer_args: self.u32()?,
            fused_fma64: self.bool()?,
            fused_fma32: self.bool()?,
            denorms32: self.bool()?,
            preserve_denorms: crate::caps::FloatWidths(self.u8()?),
            preserve_inf_nan: crate::caps::FloatWidths(self.u8()?),
            rmw_ordering: self.bool()?,
            vulkan_memory_model: self.bool()?,
            loop_limiter: self.bool()?,
            soft_int64_division: self.bool()?,
            wide_narrow_arithmetic: self.bool()?,
            soft_long_sign_extension: self.bool()?,
            branch_loop_exits: self.bool()?,
            split_bitcasts_to_16bit: self.bool()?,
            inline_functions: self.bool()?,
            spill_loop_live_outs: self.bool()?,
            integer_bool_phis: self.bool()?,
            branch_buffer_selects: self.bool()?,
            integer_dot_product: self.bool()?,
            device_clock: self.bool()?,
            subgroup_clock: self.bool()?,
            max_num_sub_groups: self.u32()?,
            float_atomics: self.u32()?,
            descriptor: self.descriptor_options()?,
        })
    }

    pub(super) fn kernel(&mut self) -> Res<Kernel> {
        let name = self.str()?;
        let entry_point = self.str()?;
        let n = self.count(4)?;
        let spirv = (0..n).map(|_| self.u32()).collect::<Res<Vec<u32>>>()?;
        if spirv.len() < 5 || spirv[0] != 0x0723_0203 {
            return Err(bad("SPIR-V module"));
        }
        let n = self.count(8)?;
        let args = (0..n).map(|_| self.arg()).collect::<Res<Vec<_>>>()?;
        let push_constant_size = self.u32()?;
        let arg_buffer = if self.bool()? {
            Some(ArgBuffer {
                address_offset: self.u32()?,
                size: self.u32()?,
                implicit: self.implicit()?,
                descriptor: self.opt_descriptor()?,
            })
        } else {
            None
        };
        let implicit = self.implicit()?;
        let reqd_work_group_size = self.opt_dims()?;
        let compile_num_sub_groups = self.u32()?;
        let work_group_size_hint = self.opt_dims()?;
        let vec_type_hint = if self.bool()? {
            Some(self.str()?)
        } else {
            None
        };
        Ok(Kernel {
            name,
            entry_point,
            spirv,
            args,
            push_constant_size,
            arg_buffer,
            implicit,
            reqd_work_group_size,
            compile_num_sub_groups,
            work_group_size_hint,
            vec_type_hint,
            attributes: self.str()?,
            static_local_size: self.u32()?,
            private_size: self.u32()?,
            printf: self.printf_calls()?,
            printf_strings: self.bytes()?.to_vec(),
            descriptor_set: if self.bool()? {
                Some(self.u32()?)
            } else {
                None
            },
            literal_samplers: {
                let n = self.count(4)?;
                (0..n).map(|_| self.u32()).collect::<Res<Vec<_>>>()?
            },
            addressing: match self.u8()? {
                0 => Addressing::Physical,
                1 => Addressing::Descriptor,
                _ => return Err(bad("addressing")),
            },
            global_variables_binding: if self.bool()? {
                Some(self.u32()?)
            } else {
                None
            },
            printf_binding: if self.bool()? {
                Some(self.u32()?)
            } else {
                None
            },
            loop_status: self.bool()?,
        })
    }
    pub(super) fn printf_calls(&mut self) -> Res<Vec<PrintfCall>> {
        let n = self.count(8)?;
        let mut calls = Vec::with_capacity(n);
        for _ in 0..n {
            let format = self.str()?;
            let m = self.count(3)?;
            let mut args = Vec::with_capacity(m);
            for _ in 0..m {
                let kind = match self.u8()? {
                    0 => PrintfArgKind::Int,
                    1 => PrintfArgKind::Float,
                    2 => PrintfArgKind::String,
                    3 => PrintfArgKind::Pointer,
                    _ => return Err(bad("printf argument")),
                };
                args.push(PrintfArg {
                    kind,
                    bytes: self.u8()?,
                    components: self.u8()?,
                });
            }
            calls.push(PrintfCall { format, args });
        }
        Ok(calls)
    }

    pub(super) fn arg(&mut self) -> Res<KernelArg> {
        Ok(KernelArg {
            name: self.str()?,
            type_name: self.str()?,
            address_qualifier: match self.u8()? {
                0 => AddressQualifier::Global,
                1 => AddressQualifier::Constant,
                2 => AddressQualifier::Local,
                3 => AddressQualifier::Private,
                _ => return Err(bad("address qualifier")),
            },
            access_qualifier: match self.u8()? {
                0 => AccessQualifier::ReadOnly,
                1 => AccessQualifier::WriteOnly,
                2 => AccessQualifier::ReadWrite,
                3 => AccessQualifier::None,
                _ => return Err(bad("access qualifier")),
            },
            type_qualifier: self.u64()?,
            kind: match self.u8()? {
                0 => ArgKind::Buffer,
                1 => ArgKind::LocalPointer { align: self.u32()? },
                2 => ArgKind::Pod,
                3 => ArgKind::Sampler {
                    binding: self.u32()?,
                },
                4 => ArgKind::Image {
                    dim: match self.u8()? {
                        0 => ImageDim::D1,
                        1 => ImageDim::D1Buffer,
                        2 => ImageDim::D1Array,
                        3 => ImageDim::D2,
                        4 => ImageDim::D2Array,
                        5 => ImageDim::D3,
                        _ => return Err(bad("image dimension")),
                    },
                    descriptor: match self.u8()? {
                        0 => ImageDescriptor::Sampled,
                        1 => ImageDescriptor::Storage,
                        2 => ImageDescriptor::UniformTexel,
                        3 => ImageDescriptor::StorageTexel,
                        _ => return Err(bad("image descriptor")),
                    },
                    binding: self.u32()?,
                    buffer_binding: match self.u32()? {
                        u32::MAX => None,
                        b => Some(b),
                    },
                    level_binding: match self.u32()? {
                        u32::MAX => None,
                        b => Some(b),
                    },
                },
                _ => return Err(bad("argument kind")),
            },
            offset: self.u32()?,
            size: self.u32()?,
            descriptor: self.opt_descriptor()?,
        })
    }

    pub(super) fn opt_descriptor(&mut self) -> Res<Option<ArgDescriptor>> {
        if !self.bool()? {
            return Ok(None);
        }
        Ok(Some(ArgDescriptor {
            set: self.u32()?,
            binding: self.u32()?,
            offset: self.u32()?,
            kind: match self.u8()? {
                0 => DescriptorKind::Buffer,
                1 => DescriptorKind::Pod,
                2 => DescriptorKind::PodUbo,
                _ => return Err(bad("descriptor kind")),
            },
        }))
    }

    pub(super) fn descriptor_options(&mut self) -> Res<DescriptorOptions> {
        let pod_ubo = self.bool()?;
        let cluster_pod_args = self.bool()?;
        let n = self.count(4)?;
        let sampler_map = (0..n).map(|_| self.u32()).collect::<Res<Vec<u32>>>()?;
        Ok(DescriptorOptions {
            pod_ubo,
            cluster_pod_args,
            sampler_map,
        })
    }
}
