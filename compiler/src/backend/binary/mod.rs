//! ferrocl's program binary format (CL_PROGRAM_BINARIES /
//! clCreateProgramWithBinary).
//!
//! Little-endian throughout:
//!
//! ```text
//! "FERROCL\0"                      magic, 8 bytes
//! u32 format version               FORMAT_VERSION
//! str fingerprint                  compiler version + external tools
//! caps                             the DeviceCaps it was compiled for
//!                                  (with its DescriptorOptions)
//! u32 kind                         1 compiled object, 2 library, 3 executable
//! str options                      the build / compile / link options
//! kind 1, 2: bytes                 LLVM bitcode
//! kind 3:    str log, u32 n, n × kernel (SPIR-V words + reflection),
//!            global variables (u64 size, u64 constant size, bytes init,
//!            u32 n, n × u32 relocation)
//! u64 checksum                     FNV-1a 64 of every byte before it
//! ```
//!
//! `str` and `bytes` are a u32 length then the bytes; `Option<T>` a u8 (0/1)
//! then `T`. A binary is accepted only when magic, version, fingerprint and
//! caps match exactly and the checksum holds, so a stale or corrupted
//! binary is refused (CL_INVALID_BINARY) rather than handed to the driver.

use crate::abi::{
    AccessQualifier, AddressQualifier, Addressing, ArgBuffer, ArgDescriptor, ArgKind,
    DescriptorKind, DescriptorOptions, GlobalVariables, ImageDescriptor, ImageDim, ImplicitField,
    KernelArg, PrintfArg, PrintfArgKind, PrintfCall,
};
use crate::caps::DeviceCaps;
use crate::program::{Kernel, Program};

const MAGIC: &[u8; 8] = b"FERROCL\0";
/// Bumped whenever the layout or the kernel ABI changes.
pub const FORMAT_VERSION: u32 = 14;

/// The compiler and tools a binary was made with.
fn fingerprint() -> String {
    format!(
        "ferrocl-compiler {}; clang-15; llvm-spirv-15",
        env!("CARGO_PKG_VERSION")
    )
}

/// What a binary holds.
#[derive(Clone, Debug)]
pub enum BinaryContent {
    /// clCompileProgram's output: bitcode.
    CompiledObject(Vec<u8>),
    /// clLinkProgram -create-library's output: bitcode.
    Library(Vec<u8>),
    Executable(Program),
}

/// A decoded binary.
#[derive(Clone, Debug)]
pub struct Binary {
    /// The options the program was built / compiled / linked with.
    pub options: String,
    pub content: BinaryContent,
}

/// Why a binary was refused.
#[derive(Clone, Debug, thiserror::Error)]
#[error("invalid ferrocl binary: {0}")]
pub struct BinaryError(pub String);

/// Serializes `binary` for a device with `caps`.
pub fn encode_binary(binary: &Binary, caps: &DeviceCaps) -> Vec<u8> {
    let mut w = Writer(Vec::new());
    w.0.extend_from_slice(MAGIC);
    w.u32(FORMAT_VERSION);
    w.str(&fingerprint());
    w.caps(caps);
    match &binary.content {
        BinaryContent::CompiledObject(bc) => {
            w.u32(1);
            w.str(&binary.options);
            w.bytes(bc);
        }
        BinaryContent::Library(bc) => {
            w.u32(2);
            w.str(&binary.options);
            w.bytes(bc);
        }
        BinaryContent::Executable(p) => {
            w.u32(3);
            w.str(&binary.options);
            w.str(&p.log);
            w.u32(p.kernels.len() as u32);
            for k in &p.kernels {
                w.kernel(k);
            }
            let g = &p.global_variables;
            w.u64(g.size);
            w.u64(g.constant_size);
            w.bytes(&g.init);
            w.u32(g.relocations.len() as u32);
            for &r in &g.relocations {
                w.u32(r);
            }
        }
    }
    let sum = fnv1a(&w.0);
    w.u64(sum);
    w.0
}

/// Parses a binary made by `encode_binary` for a device with `caps`.
/// Never panics, whatever `bytes` holds.
pub fn decode_binary(bytes: &[u8], caps: &DeviceCaps) -> Result<Binary, BinaryError> {
    let err = |m: &str| BinaryError(m.to_string());
    if bytes.len() < MAGIC.len() + 4 + 8 || &bytes[..MAGIC.len()] != MAGIC {
        return Err(err("not a ferrocl binary"));
    }
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    if fnv1a(body) != u64::from_le_bytes(sum.try_into().expect("8 bytes")) {
        return Err(err("checksum mismatch (corrupted)"));
    }
    let mut r = Reader {
        data: body,
        pos: MAGIC.len(),
    };
    let version = r.u32()?;
    if version != FORMAT_VERSION {
        return Err(BinaryError(format!(
            "format version {version}, expected {FORMAT_VERSION}"
        )));
    }
    if r.str()? != fingerprint() {
        return Err(err("made by another compiler version"));
    }
    if r.caps()? != *caps {
        return Err(err("compiled for another device"));
    }
    let kind = r.u32()?;
    let options = r.str()?;
    let content = match kind {
        1 => BinaryContent::CompiledObject(r.bytes()?.to_vec()),
        2 => BinaryContent::Library(r.bytes()?.to_vec()),
        3 => {
            let log = r.str()?;
            let n = r.u32()?;
            let mut kernels = Vec::new();
            for _ in 0..n {
                kernels.push(r.kernel()?);
            }
            let size = r.u64()?;
            let constant_size = r.u64()?;
            let init = r.bytes()?.to_vec();
            if init.len() as u64 != size || constant_size > size {
                return Err(err("global variable data"));
            }
            let n = r.count(4)?;
            let mut relocations = Vec::with_capacity(n);
            for _ in 0..n {
                let at = r.u32()?;
                if at as u64 + 8 > size {
                    return Err(err("global variable relocation"));
                }
                relocations.push(at);
            }
            BinaryContent::Executable(Program {
                log,
                kernels,
                global_variables: GlobalVariables {
                    size,
                    constant_size,
                    init,
                    relocations,
                },
            })
        }
        _ => return Err(BinaryError(format!("unknown binary kind {kind}"))),
    };
    if r.pos != body.len() {
        return Err(err("trailing bytes"));
    }
    Ok(Binary { options, content })
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn bytes(&mut self, b: &[u8]) {
        self.u32(b.len() as u32);
        self.0.extend_from_slice(b);
    }
    fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }
    fn opt_dims(&mut self, v: Option<[u32; 3]>) {
        match v {
            Some(d) => {
                self.u8(1);
                d.iter().for_each(|&x| self.u32(x));
            }
            None => self.u8(0),
        }
    }

    fn caps(&mut self, c: &DeviceCaps) {
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
        self.u8(c.fused_fma64 as u8);
        self.u8(c.fused_fma32 as u8);
        self.u8(c.denorms32 as u8);
        self.u8(c.preserve_denorms.0);
        self.u8(c.preserve_inf_nan.0);
        self.u8(c.rmw_ordering as u8);
        self.u8(c.vulkan_memory_model as u8);
        self.u8(c.loop_limiter as u8);
        self.u8(c.descriptor.pod_ubo as u8);
        self.u8(c.descriptor.cluster_pod_args as u8);
        self.u32(c.descriptor.sampler_map.len() as u32);
        c.descriptor.sampler_map.iter().for_each(|&v| self.u32(v));
    }

    fn implicit(&mut self, list: &[(ImplicitField, u32)]) {
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
                ImplicitField::SamplerValue(n) => (9, n),
                ImplicitField::NullBufferArgs(w) => (10, w.into()),
            };
            self.u8(tag);
            self.u16(dim);
            self.u32(offset);
        }
    }

    fn kernel(&mut self, k: &Kernel) {
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

    fn arg(&mut self, a: &KernelArg) {
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
            ArgKind::LocalPointer { spec_id } => {
                self.u8(1);
                self.u32(spec_id);
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
            }
        }
        self.u32(a.offset);
        self.u32(a.size);
        self.opt_descriptor(a.descriptor);
    }

    fn opt_descriptor(&mut self, d: Option<ArgDescriptor>) {
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

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

type Res<T> = Result<T, BinaryError>;

fn bad(what: &str) -> BinaryError {
    BinaryError(format!("bad {what}"))
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Res<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.data.len())
            .ok_or_else(|| BinaryError("truncated".to_string()))?;
        let s = &self.data[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn u8(&mut self) -> Res<u8> {
        Ok(self.take(1)?[0])
    }
    fn bool(&mut self) -> Res<bool> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(bad("flag")),
        }
    }
    fn u16(&mut self) -> Res<u16> {
        Ok(u16::from_le_bytes(self.take(2)?.try_into().expect("2")))
    }
    fn u32(&mut self) -> Res<u32> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4")))
    }
    fn u64(&mut self) -> Res<u64> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8")))
    }
    fn bytes(&mut self) -> Res<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
    fn str(&mut self) -> Res<String> {
        String::from_utf8(self.bytes()?.to_vec()).map_err(|_| bad("string"))
    }
    /// A count of items of at least `min_size` bytes each, checked against
    /// what is left (no huge allocation from a corrupted count).
    fn count(&mut self, min_size: usize) -> Res<usize> {
        let n = self.u32()? as usize;
        if n.saturating_mul(min_size) > self.data.len() - self.pos {
            return Err(bad("count"));
        }
        Ok(n)
    }
    fn opt_dims(&mut self) -> Res<Option<[u32; 3]>> {
        Ok(if self.bool()? {
            Some([self.u32()?, self.u32()?, self.u32()?])
        } else {
            None
        })
    }

    fn implicit(&mut self) -> Res<Vec<(ImplicitField, u32)>> {
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
                _ => return Err(bad("implicit field")),
            };
            implicit.push((f, self.u32()?));
        }
        Ok(implicit)
    }

    fn caps(&mut self) -> Res<DeviceCaps> {
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
            fused_fma64: self.bool()?,
            fused_fma32: self.bool()?,
            denorms32: self.bool()?,
            preserve_denorms: crate::caps::FloatWidths(self.u8()?),
            preserve_inf_nan: crate::caps::FloatWidths(self.u8()?),
            rmw_ordering: self.bool()?,
            vulkan_memory_model: self.bool()?,
            loop_limiter: self.bool()?,
            descriptor: self.descriptor_options()?,
        })
    }

    fn kernel(&mut self) -> Res<Kernel> {
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
    fn printf_calls(&mut self) -> Res<Vec<PrintfCall>> {
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

    fn arg(&mut self) -> Res<KernelArg> {
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
                1 => ArgKind::LocalPointer {
                    spec_id: self.u32()?,
                },
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
                },
                _ => return Err(bad("argument kind")),
            },
            offset: self.u32()?,
            size: self.u32()?,
            descriptor: self.opt_descriptor()?,
        })
    }

    fn opt_descriptor(&mut self) -> Res<Option<ArgDescriptor>> {
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

    fn descriptor_options(&mut self) -> Res<DescriptorOptions> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn caps() -> DeviceCaps {
        DeviceCaps {
            addressing: Addressing::Physical,
            max_push_constant_size: 128,
            fp64: true,
            fp16: false,
            int64_atomics: true,
            subgroup_size: 8,
            khr_subgroups: true,
            subgroup_ops: 0x5b,
            spirv_version: (1, 5),
            images: false,
            read_write_images: false,
            fused_fma64: true,
            fused_fma32: true,
            denorms32: false,
            preserve_denorms: Default::default(),
            preserve_inf_nan: Default::default(),
            rmw_ordering: false,
            vulkan_memory_model: false,
            loop_limiter: false,
            descriptor: Default::default(),
        }
    }

    fn kernel() -> Kernel {
        Kernel {
            name: "k".into(),
            entry_point: "k".into(),
            spirv: vec![0x0723_0203, 0x0001_0500, 0, 10, 0],
            args: vec![
                KernelArg {
                    name: "a".into(),
                    type_name: "float*".into(),
                    address_qualifier: AddressQualifier::Global,
                    access_qualifier: AccessQualifier::None,
                    type_qualifier: 3,
                    kind: ArgKind::Buffer,
                    offset: 0,
                    size: 8,
                    descriptor: None,
                },
                KernelArg {
                    name: "l".into(),
                    type_name: "int*".into(),
                    address_qualifier: AddressQualifier::Local,
                    access_qualifier: AccessQualifier::None,
                    type_qualifier: 0,
                    kind: ArgKind::LocalPointer { spec_id: 6 },
                    offset: 0,
                    size: 0,
                    descriptor: None,
                },
                KernelArg {
                    name: "img".into(),
                    type_name: "image2d_array_t".into(),
                    address_qualifier: AddressQualifier::Global,
                    access_qualifier: AccessQualifier::WriteOnly,
                    type_qualifier: 0,
                    kind: ArgKind::Image {
                        dim: ImageDim::D2Array,
                        descriptor: ImageDescriptor::Storage,
                        binding: 2,
                    },
                    offset: 0,
                    size: 0,
                    descriptor: None,
                },
                KernelArg {
                    name: "s".into(),
                    type_name: "sampler_t".into(),
                    address_qualifier: AddressQualifier::Private,
                    access_qualifier: AccessQualifier::None,
                    type_qualifier: 0,
                    kind: ArgKind::Sampler { binding: 3 },
                    offset: 0,
                    size: 0,
                    descriptor: None,
                },
            ],
            push_constant_size: 24,
            arg_buffer: Some(ArgBuffer {
                address_offset: 16,
                size: 300,
                implicit: vec![(ImplicitField::ImageChannelOrder(2), 296)],
                descriptor: None,
            }),
            implicit: vec![
                (ImplicitField::GlobalOffset(1), 8),
                (ImplicitField::WorkDim, 12),
                (ImplicitField::GlobalVariables(1), 16),
                (ImplicitField::ImageChannelOrder(2), 20),
                (ImplicitField::SamplerValue(300), 24),
            ],
            reqd_work_group_size: Some([4, 2, 1]),
            work_group_size_hint: None,
            vec_type_hint: Some("float4".into()),
            attributes: "reqd_work_group_size(4,2,1) vec_type_hint(float4)".into(),
            static_local_size: 64,
            private_size: 16,
            printf: vec![PrintfCall {
                format: "%d %s\n".into(),
                args: vec![
                    PrintfArg {
                        kind: PrintfArgKind::Int,
                        bytes: 2,
                        components: 4,
                    },
                    PrintfArg {
                        kind: PrintfArgKind::String,
                        bytes: 4,
                        components: 1,
                    },
                ],
            }],
            printf_strings: b"hi\0".to_vec(),
            descriptor_set: Some(1),
            literal_samplers: vec![0x13],
            addressing: Addressing::Physical,
            global_variables_binding: None,
            printf_binding: None,
            loop_status: false,
        }
    }

    fn executable() -> Binary {
        Binary {
            options: "-cl-std=CL2.0".into(),
            content: BinaryContent::Executable(Program {
                log: "warning".into(),
                kernels: vec![kernel()],
                global_variables: GlobalVariables {
                    size: 12,
                    constant_size: 4,
                    init: vec![4, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0],
                    relocations: vec![0],
                },
            }),
        }
    }

    /// A descriptor-addressed kernel and caps with descriptor options
    /// survive encoding, and other descriptor options refuse the binary.
    #[test]
    fn round_trip_descriptor() {
        let mut c = caps();
        c.addressing = Addressing::Descriptor;
        c.descriptor = DescriptorOptions {
            pod_ubo: true,
            cluster_pod_args: true,
            sampler_map: vec![0x12, 0x23],
        };
        let mut k = kernel();
        k.addressing = Addressing::Descriptor;
        k.global_variables_binding = Some(7);
        k.printf_binding = Some(9);
        k.loop_status = true;
        c.loop_limiter = true;
        k.implicit.push((ImplicitField::NullBufferArgs(3), 28));
        k.args[0].descriptor = Some(ArgDescriptor {
            set: 1,
            binding: 0,
            offset: 0,
            kind: DescriptorKind::Buffer,
        });
        k.args.push(KernelArg {
            name: "f".into(),
            type_name: "float".into(),
            address_qualifier: AddressQualifier::Private,
            access_qualifier: AccessQualifier::None,
            type_qualifier: 0,
            kind: ArgKind::Pod,
            offset: 4,
            size: 4,
            descriptor: Some(ArgDescriptor {
                set: 1,
                binding: 4,
                offset: 4,
                kind: DescriptorKind::PodUbo,
            }),
        });
        let mut bin = executable();
        let BinaryContent::Executable(p) = &mut bin.content else {
            unreachable!()
        };
        p.kernels = vec![k.clone()];
        let bytes = encode_binary(&bin, &c);
        let b = decode_binary(&bytes, &c).unwrap();
        let BinaryContent::Executable(p) = b.content else {
            panic!("not an executable")
        };
        let d = &p.kernels[0];
        assert_eq!(d.args, k.args);
        assert_eq!(d.implicit, k.implicit);
        assert_eq!(d.addressing, Addressing::Descriptor);
        assert_eq!(d.global_variables_binding, Some(7));
        assert_eq!(d.printf_binding, Some(9));
        assert!(d.loop_status);
        // Without the loop limiter: refused.
        let mut other = c.clone();
        other.loop_limiter = false;
        assert!(decode_binary(&bytes, &other).is_err());
        // Other descriptor options: refused.
        let mut other = c.clone();
        other.descriptor.sampler_map.pop();
        assert!(decode_binary(&bytes, &other).is_err());
        // Every truncation and every flipped byte is refused, never a panic.
        for n in 0..bytes.len() {
            assert!(decode_binary(&bytes[..n], &c).is_err());
        }
        for i in (0..bytes.len()).step_by(7) {
            let mut x = bytes.clone();
            x[i] ^= 0x5a;
            assert!(decode_binary(&x, &c).is_err());
        }
    }

    #[test]
    fn round_trip() {
        let bytes = encode_binary(&executable(), &caps());
        let b = decode_binary(&bytes, &caps()).unwrap();
        assert_eq!(b.options, "-cl-std=CL2.0");
        let BinaryContent::Executable(p) = b.content else {
            panic!("not an executable")
        };
        assert_eq!(p.log, "warning");
        let (k, e) = (&p.kernels[0], kernel());
        assert_eq!(k.spirv, e.spirv);
        assert_eq!(k.args, e.args);
        assert_eq!(k.arg_buffer, e.arg_buffer);
        assert_eq!(k.implicit, e.implicit);
        assert_eq!(k.reqd_work_group_size, e.reqd_work_group_size);
        assert_eq!(k.vec_type_hint, e.vec_type_hint);
        assert_eq!(k.attributes, e.attributes);
        assert_eq!((k.static_local_size, k.private_size), (64, 16));
        assert_eq!(k.printf, e.printf);
        assert_eq!(k.printf_strings, e.printf_strings);
        assert_eq!(k.descriptor_set, e.descriptor_set);
        assert_eq!(k.literal_samplers, e.literal_samplers);
        assert!(!k.loop_status);
        assert_eq!(
            p.global_variables,
            GlobalVariables {
                size: 12,
                constant_size: 4,
                init: vec![4, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0],
                relocations: vec![0],
            }
        );

        let lib = Binary {
            options: String::new(),
            content: BinaryContent::Library(vec![1, 2, 3]),
        };
        let b = decode_binary(&encode_binary(&lib, &caps()), &caps()).unwrap();
        assert!(matches!(b.content, BinaryContent::Library(v) if v == [1, 2, 3]));
    }

    #[test]
    fn refuses_bad_input() {
        let bytes = encode_binary(&executable(), &caps());
        // Every truncation and every single flipped byte is refused.
        for n in 0..bytes.len() {
            assert!(decode_binary(&bytes[..n], &caps()).is_err(), "prefix {n}");
            let mut b = bytes.clone();
            b[n] ^= 0x41;
            assert!(decode_binary(&b, &caps()).is_err(), "flip at {n}");
        }
        let mut other = caps();
        other.fp64 = false;
        assert!(decode_binary(&bytes, &other).is_err());
        assert!(decode_binary(b"garbage", &caps()).is_err());
    }
}
