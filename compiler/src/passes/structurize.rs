//! Structurized control flow for Vulkan: `structurize_cfgs`.

use std::rc::Rc;

/// Adds OpSelectionMerge/OpLoopMerge (Vulkan requires structured control
/// flow) with spirt: the module is lowered to spirt's IR,
/// `structurize_func_cfgs` rebuilds every function's CFG as structured
/// regions (phis become region outputs), and the result is lifted back to
/// SPIR-V.
///
/// Gaps: spirt gives up on irreducible control flow (loops with several
/// entries), which clang can emit for some `goto`-like code; such a module
/// fails validation and is reported as an internal compiler error. spirt
/// also re-numbers ids and drops nothing the runtime relies on (entry
/// points, decorations, SpecIds are kept).
pub fn structurize_cfgs(words: &[u32]) -> Result<Vec<u32>, String> {
    let cx = Rc::new(spirt::Context::new());
    let bytes = crate::tools::words_to_bytes(words);
    let mut module = spirt::Module::lower_from_spv_bytes(cx, bytes)
        .map_err(|e| format!("spirt could not read the lowered module: {e}"))?;
    spirt::passes::legalize::structurize_func_cfgs(&mut module);
    let emitter = module
        .lift_to_spv_module_emitter()
        .map_err(|e| format!("spirt could not write the structurized module: {e}"))?;
    Ok(emitter.words)
}
