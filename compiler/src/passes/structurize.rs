//! Structurized control flow for Vulkan: `structurize_cfgs`.

use std::rc::Rc;

use rspirv::binary::Assemble;

mod trivial_phis;

/// Adds OpSelectionMerge/OpLoopMerge (Vulkan requires structured control
/// flow) with spirt: the module is lowered to spirt's IR,
/// `structurize_func_cfgs` rebuilds every function's CFG as structured
/// regions (phis become region outputs), and the result is lifted back to
/// SPIR-V.
///
/// Recursive types (a struct with a pointer to itself) are first made
/// acyclic for spirt ([`break_type_cycles`]), and trivial phis are
/// removed (`trivial_phis`: spirt gave a merge block's phi another
/// phi's value when a loop carried them).
///
/// Gaps: spirt gives up on irreducible control flow (loops with several
/// entries), which clang can emit for some `goto`-like code; such a module
/// fails validation and is reported as an internal compiler error. spirt
/// also re-numbers ids and drops nothing the runtime relies on (entry
/// points, decorations, SpecIds are kept).
pub fn structurize_cfgs(words: &[u32]) -> Result<Vec<u32>, String> {
    let cx = Rc::new(spirt::Context::new());
    let acyclic = break_type_cycles(words);
    let words = acyclic.as_deref().unwrap_or(words);
    // Parsed and reassembled only where there is a trivial phi (a module
    // rspirv cannot read goes to spirt as it is).
    let cleaned = trivial_phis::has_trivial_phi(words)
        .then(|| rspirv::dr::load_words(words).ok())
        .flatten()
        .map(|mut module| {
            trivial_phis::remove_trivial_phis(&mut module);
            module.assemble()
        });
    let bytes = crate::tools::words_to_bytes(cleaned.as_deref().unwrap_or(words));
    let mut module = spirt::Module::lower_from_spv_bytes(cx, bytes)
        .map_err(|e| format!("spirt could not read the lowered module: {e}"))?;
    spirt::passes::legalize::structurize_func_cfgs(&mut module);
    let emitter = module
        .lift_to_spv_module_emitter()
        .map_err(|e| format!("spirt could not write the structurized module: {e}"))?;
    Ok(emitter.words)
}

/// Makes recursive types readable by spirt, which interns types and so
/// cannot read a type that refers to itself: a struct with a pointer to
/// its own type (`struct node { ...; global struct node *next; }`, a
/// linked list's node), which SPIR-V spells with OpTypeForwardPointer.
/// spirt's reader takes the forward pointer as a type of its own that its
/// writer cannot give back ("OpTypeForwardPointer: result ID mismatch").
///
/// Each forward-declared pointer type `%P` (storage class `SC`) keeps its
/// definition, but a struct member of type `%P` becomes `OpTypePointer SC
/// %uint`, a pointer of the same storage class, size and alignment whose
/// pointee is not the struct, and the OpTypeForwardPointer goes. The
/// accesses keep their own types: an access chain to the member still
/// yields a pointer to `%P`, and the loads and stores through it move
/// `%P` values. That is exact for everything after this pass, which
/// treats pointers as integers and takes member offsets from the struct's
/// layout (`analyses::type_table`: the same 8-byte pointer member); the
/// mismatch between a member's declared type and its accesses' types is
/// never seen by spirv-val, which checks the lowered module only.
///
/// Returns `None` (nothing to do, or a module it cannot rewrite: no
/// 32-bit integer type defined before the first such struct, while one is
/// defined later) and the module then goes to spirt as it is.
fn break_type_cycles(words: &[u32]) -> Option<Vec<u32>> {
    const OP_TYPE_INT: u32 = 21;
    const OP_TYPE_STRUCT: u32 = 30;
    const OP_TYPE_POINTER: u32 = 32;
    const OP_TYPE_FORWARD_POINTER: u32 = 39;
    let insts: Vec<&[u32]> = crate::tools::instructions(words)
        .map_while(Result::ok)
        .map(|(_, i)| i)
        .collect();
    let op = |i: &[u32]| i[0] & 0xffff;
    // Forward pointer id → its storage class.
    let forward: std::collections::HashMap<u32, u32> = insts
        .iter()
        .filter(|i| op(i) == OP_TYPE_FORWARD_POINTER && i.len() == 3)
        .map(|i| (i[1], i[2]))
        .collect();
    if forward.is_empty() {
        return None;
    }
    let first_struct = insts
        .iter()
        .position(|i| op(i) == OP_TYPE_STRUCT && i[2..].iter().any(|m| forward.contains_key(m)))?;
    let uint_at = insts
        .iter()
        .position(|i| op(i) == OP_TYPE_INT && i.len() == 4 && i[2] == 32 && i[3] == 0);
    let mut bound = words[3];
    let mut fresh = || {
        bound += 1;
        bound - 1
    };
    // The new types go right before the first struct that needs them.
    let mut new_types: Vec<u32> = Vec::new();
    let uint = match uint_at {
        Some(at) if at < first_struct => insts[at][1],
        Some(_) => return None,
        None => {
            let id = fresh();
            new_types.extend([(4 << 16) | OP_TYPE_INT, id, 32, 0]);
            id
        }
    };
    // One stand-in pointer type per storage class.
    let mut stand_in: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
    for &sc in forward.values() {
        stand_in.entry(sc).or_insert_with(|| {
            let id = fresh();
            new_types.extend([(4 << 16) | OP_TYPE_POINTER, id, sc, uint]);
            id
        });
    }
    let mut out = words[..5].to_vec();
    for (n, inst) in insts.iter().enumerate() {
        if n == first_struct {
            out.extend_from_slice(&new_types);
        }
        match op(inst) {
            OP_TYPE_FORWARD_POINTER => {}
            OP_TYPE_STRUCT => {
                out.extend_from_slice(&inst[..2]);
                out.extend(
                    inst[2..]
                        .iter()
                        .map(|m| forward.get(m).map_or(*m, |sc| stand_in[sc])),
                );
            }
            _ => out.extend_from_slice(inst),
        }
    }
    out[3] = bound;
    Some(out)
}
