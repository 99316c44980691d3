//! clspv-style descriptor maps and sampler maps (`ferrocl-cc
//! -descriptormap=`, `-samplermap=`), for descriptor-addressed programs
//! (`abi`, `Addressing::Descriptor`).
//!
//! A sampler map file lists literal samplers as `CLK_*` flag expressions
//! joined by `|`, separated by commas (newlines are whitespace), e.g.
//!
//! ```text
//! CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST,
//! CLK_NORMALIZED_COORDS_TRUE  | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR
//! ```
//!
//! Entry `i` is the sampler at descriptor set 0, binding `i`.
//!
//! The descriptor map has one line per sampler map entry,
//! `sampler,<value>,samplerExpr,"<flags sorted, joined by |>",descriptorSet,0,binding,<i>`,
//! then, per kernel, one line per argument:
//! `kernel,<k>,arg,<name>,argOrdinal,<i>,descriptorSet,<s>,binding,<b>,offset,<o>,argKind,<kind>`
//! (kind `buffer`, `pod`, `pod_ubo`, `ro_image`, `wo_image`, `rw_image`,
//! `sampler`), in binding order (then offset), and for a `__local` pointer
//! argument `kernel,<k>,arg,<name>,argOrdinal,<i>,argKind,local,alignment,<a>,offsetPushConstant,<o>,regionSizeSpecId,<id>`.
//! This last line is ferrocl's, not clspv's (clspv sizes each `__local`
//! argument by a specialization constant of its own): the argument's
//! part of the kernel's one Workgroup array starts at a multiple of `<a>`
//! bytes, the runtime writes where it starts (a u32 byte offset) at
//! push-constant byte `<o>`, and specialization constant `<id>` is the
//! size in bytes of all `__local` arguments' parts together
//! (`abi`, "`__local` memory").

use std::fmt::Write as _;

use crate::abi::sampler_bits as sb;
use crate::abi::{AccessQualifier, ArgKind, DescriptorKind, ImplicitField, LOCAL_ARGS_SPEC_ID};
use crate::program::Program;

/// One entry of a sampler map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SamplerMapEntry {
    /// The `sampler_bits` value.
    pub value: u32,
    /// The flags, sorted and joined by `|` (the descriptor map's
    /// `samplerExpr`).
    pub expr: String,
}

fn flag_value(name: &str) -> Option<u32> {
    Some(match name {
        "CLK_NORMALIZED_COORDS_FALSE" => 0,
        "CLK_NORMALIZED_COORDS_TRUE" => sb::NORMALIZED_COORDS_TRUE,
        "CLK_ADDRESS_NONE" => sb::ADDRESS_NONE,
        "CLK_ADDRESS_CLAMP_TO_EDGE" => sb::ADDRESS_CLAMP_TO_EDGE,
        "CLK_ADDRESS_CLAMP" => sb::ADDRESS_CLAMP,
        "CLK_ADDRESS_REPEAT" => sb::ADDRESS_REPEAT,
        "CLK_ADDRESS_MIRRORED_REPEAT" => sb::ADDRESS_MIRRORED_REPEAT,
        "CLK_FILTER_NEAREST" => sb::FILTER_NEAREST,
        "CLK_FILTER_LINEAR" => sb::FILTER_LINEAR,
        _ => return None,
    })
}

/// Parses a sampler map file (module doc). Errors name the bad entry.
pub fn parse_sampler_map(text: &str) -> Result<Vec<SamplerMapEntry>, String> {
    let mut entries = Vec::new();
    for (i, entry) in text.split(',').enumerate() {
        let entry = entry.trim();
        if entry.is_empty() {
            continue;
        }
        let mut names: Vec<&str> = entry.split('|').map(str::trim).collect();
        let mut value = 0;
        let (mut norm, mut addr, mut filter) = (false, false, false);
        for n in &names {
            let v = flag_value(n)
                .ok_or_else(|| format!("sampler map entry {}: unknown flag '{n}'", i + 1))?;
            let kind = if n.starts_with("CLK_NORMALIZED") {
                &mut norm
            } else if n.starts_with("CLK_ADDRESS") {
                &mut addr
            } else {
                &mut filter
            };
            if std::mem::replace(kind, true) {
                return Err(format!(
                    "sampler map entry {}: '{entry}' gives a mode twice",
                    i + 1
                ));
            }
            value |= v;
        }
        if !filter {
            return Err(format!(
                "sampler map entry {}: '{entry}' has no CLK_FILTER_* flag",
                i + 1
            ));
        }
        names.sort_unstable();
        entries.push(SamplerMapEntry {
            value,
            expr: names.join("|"),
        });
    }
    Ok(entries)
}

/// The descriptor map of a descriptor-addressed `program` (module doc);
/// `sampler_map` is the parsed sampler map the program was built with.
pub fn descriptor_map(program: &Program, sampler_map: &[SamplerMapEntry]) -> String {
    let mut s = String::new();
    for (i, e) in sampler_map.iter().enumerate() {
        writeln!(
            s,
            "sampler,{},samplerExpr,\"{}\",descriptorSet,0,binding,{i}",
            e.value, e.expr
        )
        .expect("write to String");
    }
    for k in &program.kernels {
        let set = k.descriptor_set.unwrap_or(0);
        let mut bound: Vec<(u32, u32, String)> = Vec::new();
        let mut local = Vec::new();
        for (i, a) in k.args.iter().enumerate() {
            let head = format!("kernel,{},arg,{},argOrdinal,{i}", k.name, a.name);
            let (binding, offset, kind) = match (a.kind, a.descriptor) {
                (_, Some(d)) => (
                    d.binding,
                    d.offset,
                    match d.kind {
                        DescriptorKind::Buffer => "buffer",
                        DescriptorKind::Pod => "pod",
                        DescriptorKind::PodUbo => "pod_ubo",
                    },
                ),
                (ArgKind::Image { binding, .. }, None) => (
                    binding,
                    0,
                    match a.access_qualifier {
                        AccessQualifier::ReadOnly => "ro_image",
                        AccessQualifier::ReadWrite => "rw_image",
                        _ => "wo_image",
                    },
                ),
                (ArgKind::Sampler { binding }, None) => (binding, 0, "sampler"),
                (ArgKind::LocalPointer { align }, None) => {
                    let field = ImplicitField::LocalArgOffset(i as u16);
                    let Some(&(_, offset)) = k.implicit.iter().find(|(f, _)| *f == field) else {
                        continue;
                    };
                    local.push(format!(
                        "{head},argKind,local,alignment,{align},offsetPushConstant,{offset},\
                         regionSizeSpecId,{LOCAL_ARGS_SPEC_ID}"
                    ));
                    continue;
                }
                // Physical addressing: nothing bound.
                _ => continue,
            };
            bound.push((
                binding,
                offset,
                format!(
                    "{head},descriptorSet,{set},binding,{binding},offset,{offset},argKind,{kind}"
                ),
            ));
        }
        bound.sort_by_key(|(b, o, _)| (*b, *o));
        for (_, _, line) in bound {
            s.push_str(&line);
            s.push('\n');
        }
        for line in local {
            s.push_str(&line);
            s.push('\n');
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_seed_sampler_map() {
        let m = parse_sampler_map(
            "CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST,\n\
             CLK_NORMALIZED_COORDS_TRUE  | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR\n",
        )
        .unwrap();
        assert_eq!(
            m,
            vec![
                SamplerMapEntry {
                    value: 18,
                    expr:
                        "CLK_ADDRESS_CLAMP_TO_EDGE|CLK_FILTER_NEAREST|CLK_NORMALIZED_COORDS_FALSE"
                            .into()
                },
                SamplerMapEntry {
                    value: 35,
                    expr: "CLK_ADDRESS_CLAMP_TO_EDGE|CLK_FILTER_LINEAR|CLK_NORMALIZED_COORDS_TRUE"
                        .into()
                },
            ]
        );
    }

    #[test]
    fn refuses_bad_sampler_maps() {
        let e = parse_sampler_map("CLK_FILTER_NEAREST | CLK_ADDRESS_WRONG").unwrap_err();
        assert!(e.contains("unknown flag 'CLK_ADDRESS_WRONG'"), "{e}");
        let e = parse_sampler_map("CLK_FILTER_NEAREST|CLK_FILTER_LINEAR").unwrap_err();
        assert!(e.contains("gives a mode twice"), "{e}");
        let e = parse_sampler_map("CLK_FILTER_NEAREST, CLK_ADDRESS_CLAMP").unwrap_err();
        assert!(e.contains("entry 2") && e.contains("no CLK_FILTER"), "{e}");
    }
}
