//! `guard_loop_limit`: on drivers with gallivm's loop limiter (lavapipe,
//! `DeviceCaps::loop_limiter`), a kernel reports at its end whether the
//! limiter may have cut one of its loops, so that the runtime fails the
//! launch instead of returning what the shortened loop computed (and skips
//! the launches after it, runtime/src/core/queue.rs `Poison`).
//!
//! # The limiter (Mesa 22.3, src/gallium/auxiliary/gallivm)
//!
//! llvmpipe runs a compute shader one SIMD batch of invocations at a time
//! (8 lanes with 256-bit vectors, lavapipe's sub-group), all lanes in
//! lock-step under execution masks. `lp_exec_mask_function_init`
//! (lp_bld_ir_common.c) gives the shader function one `looplimiter` i32
//! alloca, stored with `LP_MAX_TGSI_LOOP_ITERATIONS` (65535) where the
//! shader body starts, i.e. once per batch. `lp_exec_endloop`, which
//! closes every NIR loop (lp_bld_nir_soa.c `endloop`), decrements it and
//! goes round again only while some lane is active *and* the counter is
//! still positive; otherwise the loop ends with its active lanes carrying
//! on after it as if they had left it. So:
//!
//! * the budget is 65535 passes per batch, shared by every loop of the
//!   shader and never reset: sequential and nested loops add up, and the
//!   batch counts every pass that any of its lanes makes (lanes on both
//!   sides of a branch run one side after the other);
//! * a loop inside a branch no lane of the batch takes still costs one
//!   pass each time it is reached (ifs are masks, not jumps);
//! * calls do not help: lavapipe inlines every function before gallivm,
//!   and the NIR path only ever makes the one function context;
//! * once spent, every loop reached afterwards runs one pass only.
//!
//! Measured through ferrocl on lavapipe 22.3.6 (8-wide batches): a
//! 70,000-iteration loop stops at 65535; two sequential 40,000-iteration
//! loops give 40000 and 25535, also when each is in its own non-inlined
//! (DontInline) function; two divergent 40,000-iteration loops in an
//! if/else give 40000 and 25534; an outer loop of 40,000 around an untaken
//! inner loop stops at 32768; 300×300 nested passes stop after 65318 inner
//! ones. Nothing in the SPIR-V resets the counter or iterates without a NIR
//! loop, so the limit itself cannot be lifted (unrolling would only raise
//! the work per pass: not done here).
//!
//! # Algorithm
//!
//! A kernel with loops binds a `u32` status word: a storage buffer at
//! (`LOOP_STATUS_SET`, `LOOP_STATUS_BINDING`) (abi, `Kernel::loop_status`),
//! one per queue, which the runtime zeroes and reads after each launch
//! (runtime/src/core/queue.rs `Poison`; it also skips every later launch
//! of the queue while the word is set, by conditional rendering, so that
//! no kernel computes on what the cut loop left: pyopencl's scans then
//! wrote out of bounds and crashed the process).
//!
//! Once the budget is spent it stays spent, so one probe at the end of the
//! kernel tells whether it was: a loop that must take several passes.
//! Before each `OpReturn` of the entry point (the lowering's wrapper, which
//! calls the kernel and returns), in a kernel that has any loop:
//!
//! ```text
//!   n = status[0] | PROBE_PASSES     // 4 or 5, opaque to the driver
//!   i = 0
//!   loop { i += 1; if (i >= n) break; }        (DontUnroll)
//!   if (i != n) status[0] = 1        // the probe itself was cut
//! ```
//!
//! The bound comes from memory so that no compiler can count the probe's
//! passes and unroll it, and `i != n` is a separate comparison from the
//! exit test. The word only ever holds 0 or 1.
//!
//! Why at least 3 passes: Mesa's NIR rotates the loop so that a pass tests
//! the current `i` and then computes the next one (`i` starts at 1, the
//! increment follows the exit test), so a probe cut after its first pass
//! leaves `i` = 2, exactly what a completed two-pass probe leaves; with
//! `n` ≥ 3 a cut probe leaves `i` < `n` in either form (measured: a
//! two-pass probe never reported).
//!
//! A batch whose loops spent the budget gets one probe pass and reports.
//! No false negatives: the counter never goes back up, and every lane of a
//! batch reaches the wrapper's return after all of the kernel's loops.
//! False positives: a batch whose loops took 65533 to 65535 passes in all
//! without being cut (measured: a 65532-pass loop passes, 65533 reports).
//! Cost per batch: one load, four passes of an empty loop, a compare; the
//! probe's passes come out of the same budget. Kernels without loops are
//! unchanged.
//!
//! # Gaps
//!
//! Detection only: a kernel that needs more than 65532 passes per batch
//! still cannot run on lavapipe; its launch fails (CL_OUT_OF_RESOURCES,
//! runtime/src/core/kernel.rs). What the cut launch itself did after the
//! cut (until its end) is not undone: it may have written wrong values or,
//! through a wrong index, out of bounds (later launches are skipped only
//! where the device has VK_EXT_conditional_rendering, as lavapipe does;
//! elsewhere they run and fail when they complete). The status word is
//! read and written with plain (non-atomic) accesses: every writer stores
//! the same value, and on lavapipe they are CPU loads and stores.

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Decoration, LoopControl, Op, SelectionControl, StorageClass, Word};

use super::module_edit::{block as labelled_block, fresh_id, global};
use crate::abi::{LOOP_STATUS_BINDING, LOOP_STATUS_SET};

/// The passes the probe takes (module doc): at least 3, and a power of
/// two so that `status | PROBE_PASSES` is 4 or 5.
const PROBE_PASSES: u32 = 4;

/// Adds the status binding and the probe (module doc) to the lowered
/// kernel `module` when it has a loop; returns whether it did (the kernel
/// then binds the status word: `Kernel::loop_status`).
pub fn guard_loop_limit(module: &mut Module) -> bool {
    let has_loop = module.functions.iter().any(|f| {
        f.blocks.iter().any(|b| {
            b.instructions
                .iter()
                .any(|i| i.class.opcode == Op::LoopMerge)
        })
    });
    let Some(entry) = module
        .entry_points
        .first()
        .and_then(|ep| ep.operands.get(1))
        .and_then(|o| o.id_ref_any())
    else {
        return false;
    };
    let Some(fi) = module
        .functions
        .iter()
        .position(|f| f.def.as_ref().and_then(|d| d.result_id) == Some(entry))
    else {
        return false;
    };
    if !has_loop {
        return false;
    }

    let u32t = global(
        module,
        Op::TypeInt,
        None,
        vec![Operand::LiteralBit32(32), Operand::LiteralBit32(0)],
    );
    let boolt = global(module, Op::TypeBool, None, vec![]);
    let c = |module: &mut Module, v: u32| {
        global(
            module,
            Op::Constant,
            Some(u32t),
            vec![Operand::LiteralBit32(v)],
        )
    };
    let (c0, c1, cpasses) = (c(module, 0), c(module, 1), c(module, PROBE_PASSES));
    // The status buffer: struct { uint words[]; }, its own types so that
    // their decorations cannot clash with the lowering's.
    let words = fresh_id(module);
    module.types_global_values.push(Instruction::new(
        Op::TypeRuntimeArray,
        None,
        Some(words),
        vec![Operand::IdRef(u32t)],
    ));
    let block = fresh_id(module);
    module.types_global_values.push(Instruction::new(
        Op::TypeStruct,
        None,
        Some(block),
        vec![Operand::IdRef(words)],
    ));
    let sb = StorageClass::StorageBuffer;
    let block_ptr = global(
        module,
        Op::TypePointer,
        None,
        vec![Operand::StorageClass(sb), Operand::IdRef(block)],
    );
    let word_ptr = global(
        module,
        Op::TypePointer,
        None,
        vec![Operand::StorageClass(sb), Operand::IdRef(u32t)],
    );
    let status = fresh_id(module);
    module.types_global_values.push(Instruction::new(
        Op::Variable,
        Some(block_ptr),
        Some(status),
        vec![Operand::StorageClass(sb)],
    ));
    let decorate = |target: Word, d: Decoration, extra: Option<u32>| {
        let mut ops = vec![Operand::IdRef(target), Operand::Decoration(d)];
        ops.extend(extra.map(Operand::LiteralBit32));
        Instruction::new(Op::Decorate, None, None, ops)
    };
    module.annotations.extend([
        decorate(words, Decoration::ArrayStride, Some(4)),
        decorate(block, Decoration::Block, None),
        Instruction::new(
            Op::MemberDecorate,
            None,
            None,
            vec![
                Operand::IdRef(block),
                Operand::LiteralBit32(0),
                Operand::Decoration(Decoration::Offset),
                Operand::LiteralBit32(0),
            ],
        ),
        decorate(status, Decoration::DescriptorSet, Some(LOOP_STATUS_SET)),
        decorate(status, Decoration::Binding, Some(LOOP_STATUS_BINDING)),
    ]);
    let version = module.header.as_ref().map_or((1, 0), |h| h.version());
    if version >= (1, 4) {
        // SPIR-V 1.4: every global variable the entry point uses is in its
        // interface.
        module.entry_points[0].operands.push(Operand::IdRef(status));
    }
    if version < (1, 3) {
        module.extensions.push(Instruction::new(
            Op::Extension,
            None,
            None,
            vec![Operand::LiteralString(
                "SPV_KHR_storage_buffer_storage_class".into(),
            )],
        ));
    }

    let returns: Vec<usize> = module.functions[fi]
        .blocks
        .iter()
        .enumerate()
        .filter(|(_, b)| b.instructions.last().map(|i| i.class.opcode) == Some(Op::Return))
        .map(|(i, _)| i)
        .rev()
        .collect();
    for bi in returns {
        let mut id = || fresh_id(module);
        let [header, body, cont, merge, report, end] = [(); 6].map(|()| id());
        let [ptr, word, n, i, next, done, cut] = [(); 7].map(|()| id());
        let f = &mut module.functions[fi];
        let b = &mut f.blocks[bi];
        let from = b.label.as_ref().and_then(|l| l.result_id).unwrap_or(0);
        b.instructions.pop();
        b.instructions.extend([
            op(
                Op::AccessChain,
                Some(word_ptr),
                Some(ptr),
                &[status, c0, c0],
            ),
            op(Op::Load, Some(u32t), Some(word), &[ptr]),
            op(Op::BitwiseOr, Some(u32t), Some(n), &[word, cpasses]),
            op(Op::Branch, None, None, &[header]),
        ]);
        let new_blocks = [
            (
                header,
                vec![
                    op(Op::Phi, Some(u32t), Some(i), &[c0, from, next, cont]),
                    Instruction::new(
                        Op::LoopMerge,
                        None,
                        None,
                        vec![
                            Operand::IdRef(merge),
                            Operand::IdRef(cont),
                            Operand::LoopControl(LoopControl::DONT_UNROLL),
                        ],
                    ),
                    op(Op::Branch, None, None, &[body]),
                ],
            ),
            (
                body,
                vec![
                    op(Op::IAdd, Some(u32t), Some(next), &[i, c1]),
                    op(Op::UGreaterThanEqual, Some(boolt), Some(done), &[next, n]),
                    op(Op::BranchConditional, None, None, &[done, merge, cont]),
                ],
            ),
            (cont, vec![op(Op::Branch, None, None, &[header])]),
            (
                merge,
                vec![
                    op(Op::INotEqual, Some(boolt), Some(cut), &[next, n]),
                    selection_merge(end),
                    op(Op::BranchConditional, None, None, &[cut, report, end]),
                ],
            ),
            (
                report,
                vec![
                    op(Op::Store, None, None, &[ptr, c1]),
                    op(Op::Branch, None, None, &[end]),
                ],
            ),
            (end, vec![op(Op::Return, None, None, &[])]),
        ];
        let at = bi + 1;
        f.blocks.splice(
            at..at,
            new_blocks
                .into_iter()
                .map(|(label, instructions)| labelled_block(label, instructions)),
        );
    }
    true
}

/// An instruction whose operands are all ids.
fn op(op: Op, ty: Option<Word>, id: Option<Word>, ids: &[Word]) -> Instruction {
    Instruction::new(op, ty, id, ids.iter().map(|&w| Operand::IdRef(w)).collect())
}

fn selection_merge(merge: Word) -> Instruction {
    Instruction::new(
        Op::SelectionMerge,
        None,
        None,
        vec![
            Operand::IdRef(merge),
            Operand::SelectionControl(SelectionControl::NONE),
        ],
    )
}
