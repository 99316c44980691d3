//! After the kernel is lowered (`finish_images`): the descriptor set and
//! bindings of the image and sampler variables — arguments at
//! (`descriptor_set`, position, or their own binding with descriptor
//! addressing), the texel-buffer bindings of 2D images that may be made
//! from buffers at `abi::IMAGE_BUFFER_BINDING_BASE` + position, literal samplers at (0, index, or their place in the
//! sampler map) — and the capabilities the image instructions need.
//!
//! Gaps: none known.

use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, Word};

use super::{ImageBindings, LowerImages};

impl LowerImages<'_, '_> {
    /// Declares the descriptor bindings once the kernel is lowered: image
    /// and sampler arguments at (`descriptor_set`, position), literal
    /// samplers at (0, index).
    pub(crate) fn finish_images(&mut self) -> ImageBindings {
        let sampler_map = self.desc.enabled && !self.caps.descriptor.sampler_map.is_empty();
        let has_args = !self.images.args.is_empty()
            || !self.images.sampler_args.is_empty()
            || self.desc_has_bindings();
        let set = if self.images.literal.is_empty() && !sampler_map {
            0
        } else {
            1
        };
        // Descriptor addressing: arguments' own bindings (clustered POD
        // arguments renumber the others).
        let binding_of = |l: &Self, i: u32| -> u32 {
            if l.desc.enabled {
                l.desc
                    .arg_binding
                    .get(i as usize)
                    .copied()
                    .flatten()
                    .unwrap_or(i)
            } else {
                i
            }
        };
        let arg_bindings: Vec<(Word, u32)> = self
            .images
            .args
            .iter()
            .filter_map(|(&i, a)| a.var.map(|v| (v, binding_of(self, i))))
            .chain(
                self.images
                    .sampler_args
                    .iter()
                    .filter_map(|(&i, v)| v.map(|v| (v, binding_of(self, i)))),
            )
            // 2D images made from buffers: their texel-buffer bindings
            // (`from_buffer`).
            .chain(self.images.args.iter().filter_map(|(&i, a)| {
                a.buffer_var
                    .map(|v| (v, crate::abi::IMAGE_BUFFER_BINDING_BASE + i))
            }))
            // Images written at a mip level: their levels' bindings (`mip`).
            .chain(self.images.args.iter().flat_map(|(&i, a)| {
                let base = crate::abi::IMAGE_LEVEL_BINDING_BASE + i * crate::abi::MIP_WRITE_LEVELS;
                a.level_vars.iter().map(move |(&l, &v)| (v, base + l))
            }))
            .collect();
        let mut desc_vars = self.finish_descriptors(set);
        let mut interface = Vec::new();
        let mut bind =
            |out: &mut crate::passes::lower::emit::Out, var: Word, set: u32, binding: u32| {
                out.decorate(
                    var,
                    vec![
                        Operand::Decoration(Decoration::DescriptorSet),
                        Operand::LiteralBit32(set),
                    ],
                );
                out.decorate(
                    var,
                    vec![
                        Operand::Decoration(Decoration::Binding),
                        Operand::LiteralBit32(binding),
                    ],
                );
                interface.push(var);
            };
        for (v, binding) in arg_bindings {
            bind(&mut self.out, v, set, binding);
        }
        for (k, &(bits, v)) in self.images.literal.iter().enumerate() {
            let binding = if sampler_map {
                let map = &self.caps.descriptor.sampler_map;
                map.iter().position(|&m| m == bits).unwrap_or(k) as u32
            } else {
                k as u32
            };
            bind(&mut self.cx.out, v, 0, binding);
        }
        interface.append(&mut desc_vars);
        ImageBindings {
            descriptor_set: has_args.then_some(set),
            literal_samplers: if sampler_map {
                self.caps.descriptor.sampler_map.clone()
            } else {
                self.images.literal.iter().map(|&(b, _)| b).collect()
            },
            interface,
            caps: self.images.caps.clone(),
        }
    }
}
