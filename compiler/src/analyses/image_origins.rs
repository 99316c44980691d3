//! Where image and sampler values come from: `opaque_origins`, computed
//! once per module (for `passes::image_args::specialize_image_calls` and
//! for the lowering, which turns every image/sampler value into the
//! descriptor of its kernel argument or literal sampler).
//!
//! Vulkan has no image or sampler values to pass around: a shader loads
//! them from its descriptor variables. The lowering therefore needs, for
//! every image/sampler value of a kernel, the one kernel argument (or
//! literal sampler, `OpConstantSampler`) it stands for.
//!
//! # Algorithm
//!
//! A data-flow pass over the whole module: the origin of a value is a
//! *root* — a parameter of an entry-point function or an
//! `OpConstantSampler` — or `Mixed` when several roots reach it. Origins
//! flow from call arguments to parameters, from stores to the `Function`
//! variables that hold images/samplers at -O0 (and from those to loads),
//! and through `OpCopyObject`, `OpPhi` and `OpSelect`. Iterates to a fixed
//! point.
//!
//! Gaps: an image or sampler chosen at run time (a phi or select of two
//! roots inside one function) stays `Mixed`; the lowering reports it.

use std::collections::{HashMap, HashSet};

use rspirv::dr;
use rspirv::spirv::{Op, Word};

/// Where an image/sampler value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Origin {
    /// A parameter of an entry-point function, or an OpConstantSampler.
    Root(Word),
    /// Different roots reach the value.
    Mixed,
}

fn join(a: Option<Origin>, b: Option<Origin>) -> Option<Origin> {
    match (a, b) {
        (None, x) | (x, None) => x,
        (Some(x), Some(y)) if x == y => Some(x),
        _ => Some(Origin::Mixed),
    }
}

/// Ids of the image, sampler and sampled-image types of `module`.
pub(crate) fn opaque_types(module: &dr::Module) -> HashSet<Word> {
    module
        .types_global_values
        .iter()
        .filter(|i| {
            matches!(
                i.class.opcode,
                Op::TypeImage | Op::TypeSampler | Op::TypeSampledImage
            )
        })
        .filter_map(|i| i.result_id)
        .collect()
}

/// Whether `module` declares any image or sampler type.
pub fn has_images(module: &dr::Module) -> bool {
    !opaque_types(module).is_empty()
}

/// The origin of every image/sampler value of `module` (and of the
/// `Function` variables holding them). See the module documentation.
pub fn opaque_origins(module: &dr::Module) -> HashMap<Word, Origin> {
    let opaque = opaque_types(module);
    let mut origins: HashMap<Word, Origin> = HashMap::new();
    if opaque.is_empty() {
        return origins;
    }
    let entries: HashSet<Word> = module
        .entry_points
        .iter()
        .filter_map(|e| e.operands.get(1).and_then(|o| o.id_ref_any()))
        .collect();
    for g in &module.types_global_values {
        if g.class.opcode == Op::ConstantSampler {
            if let Some(id) = g.result_id {
                origins.insert(id, Origin::Root(id));
            }
        }
    }
    let funcs: HashMap<Word, &dr::Function> = module
        .functions
        .iter()
        .filter_map(|f| Some((f.def_id()?, f)))
        .collect();
    for f in &module.functions {
        if !f.def_id().is_some_and(|id| entries.contains(&id)) {
            continue;
        }
        for p in &f.parameters {
            if let (Some(id), Some(t)) = (p.result_id, p.result_type) {
                if opaque.contains(&t) {
                    origins.insert(id, Origin::Root(id));
                }
            }
        }
    }
    let is_opaque = |t: Option<Word>| t.is_some_and(|t| opaque.contains(&t));
    loop {
        let mut changed = false;
        let mut flow = |origins: &mut HashMap<Word, Origin>, to: Word, from: Option<Origin>| {
            let old = origins.get(&to).copied();
            let new = join(old, from);
            if new != old {
                if let Some(n) = new {
                    origins.insert(to, n);
                    changed = true;
                }
            }
        };
        for f in &module.functions {
            for inst in f.blocks.iter().flat_map(|b| &b.instructions) {
                let id_op = |k: usize| inst.operands.get(k).and_then(|o| o.id_ref_any());
                let of = |origins: &HashMap<Word, Origin>, k: usize| {
                    id_op(k).and_then(|v| origins.get(&v).copied())
                };
                match inst.class.opcode {
                    Op::FunctionCall => {
                        let Some(callee) = id_op(0).and_then(|c| funcs.get(&c)) else {
                            continue;
                        };
                        if callee.def_id().is_some_and(|c| entries.contains(&c)) {
                            continue;
                        }
                        for (k, p) in callee.parameters.iter().enumerate() {
                            if is_opaque(p.result_type) {
                                let o = of(&origins, k + 1);
                                flow(&mut origins, p.result_id.unwrap_or(0), o);
                            }
                        }
                    }
                    Op::Store => {
                        if let (Some(ptr), Some(v)) = (id_op(0), id_op(1)) {
                            let o = origins.get(&v).copied();
                            if o.is_some() {
                                flow(&mut origins, ptr, o);
                            }
                        }
                    }
                    Op::Load | Op::CopyObject if is_opaque(inst.result_type) => {
                        let o = of(&origins, 0);
                        flow(&mut origins, inst.result_id.unwrap_or(0), o);
                    }
                    Op::Phi if is_opaque(inst.result_type) => {
                        for k in (0..inst.operands.len()).step_by(2) {
                            let o = of(&origins, k);
                            flow(&mut origins, inst.result_id.unwrap_or(0), o);
                        }
                    }
                    Op::Select if is_opaque(inst.result_type) => {
                        for k in [1, 2] {
                            let o = of(&origins, k);
                            flow(&mut origins, inst.result_id.unwrap_or(0), o);
                        }
                    }
                    _ => {}
                }
            }
        }
        if !changed {
            return origins;
        }
    }
}
