//! The debug switch `FERROCL_DUMP=<dir>`: every pass of the pipeline
//! writes its output into `<dir>`, one file per pass, named by the pass's
//! sequence number and its `verb_object` name ([`Pass`]).
//!
//! Files: `NN-<pass>.ll` (textual LLVM IR, the front end's first passes),
//! `NN-<pass>.spv` (a SPIR-V module) and, for the per-kernel passes,
//! `NN-<kernel>-<pass>.spv` (the kernel's name cut to 64 characters).
//! `NN` is fixed per pass (the table below), so files sort in pipeline
//! order and a file of one build compares with the same file of another.
//!
//! Rule: a pass that runs writes its output, whether or not it changed
//! the module (a pass with nothing to do writes its input again). A pass
//! the build does not run writes nothing, so a build leaves gaps in the
//! numbers: the front end's passes depend on the input (OpenCL C, IL, or
//! clLinkProgram's objects), `split_image_choices` and
//! `specialize_image_calls` run only where `DeviceCaps::images` is set,
//! `guard_loop_limit` only where `DeviceCaps::loop_limiter` is (and the
//! other per-device passes only where their `DeviceCaps` flag is). Builds
//! with dumps bypass the compile
//! cache (`cache`).
//!
//! | NN | pass | builds |
//! |---|---|---|
//! | 00 | `compile_to_bitcode` (.ll: clang's IR; clCompileProgram's is unoptimized, `frontend::compile_to_object`) | source, clCompileProgram |
//! | 01 | `link_objects` (.ll: the linked objects, what the kernels reach, optimized) | clLinkProgram |
//! | 02 | `link_math` (.ll: libclc's math linked) | source, clLinkProgram, IL calling libclc's math |
//! | 03 | `translate_bitcode` (llvm-spirv) | source, clLinkProgram |
//! | 04 | `make_il_reducible` | IL |
//! | 05 | `link_il_math` | IL |
//! | 06 | `strip_debug_ext_insts` | all |
//! | 07 | `dedupe_phi_parents` | all |
//! | 08 | `expand_decoration_groups` | all |
//! | 09 | `drop_dangling_decorations` | all |
//! | 10 | `legalize_int_widths` | all |
//! | 11 | `normalize_builtin_vars` | all |
//! | 12 | `place_private_constants` | all |
//! | 13 | `prepare_global_variables` | all |
//! | 14 | `expand_async_copies` | all |
//! | 15 | `split_image_choices` | `DeviceCaps::images` |
//! | 16 | `structurize_cfgs` | all |
//! | 17 | `copy_byval_params` | all |
//! | 18 | `specialize_address_spaces` | all |
//! | 19 | `dispatch_generic_accesses` | all |
//! | 20 | `specialize_image_calls` | `DeviceCaps::images` |
//! | 21 | `<kernel>-lower_kernel` | per kernel |
//! | 22 | `<kernel>-srem_via_sdiv` | per kernel |
//! | 23 | `<kernel>-sdiv_via_udiv` | per kernel |
//! | 24 | `<kernel>-widen_narrow_arithmetic` | per kernel, `DeviceCaps::wide_narrow_arithmetic` |
//! | 25 | `<kernel>-fold_select_shifts` | per kernel |
//! | 26 | `<kernel>-guard_int64_division` | per kernel |
//! | 27 | `<kernel>-expand_long_sign_extensions` | per kernel, `DeviceCaps::soft_long_sign_extension` |
//! | 28 | `<kernel>-guard_loop_limit` | per kernel, `DeviceCaps::loop_limiter` |
//! | 29 | `<kernel>-branch_loop_exits` | per kernel, `DeviceCaps::branch_loop_exits` |
//! | 30 | `<kernel>-split_bitcasts_to_16bit` | per kernel, `DeviceCaps::split_bitcasts_to_16bit` |
//! | 31 | `<kernel>-scale_large_divisors` | per kernel |
//! | 32 | `<kernel>-spill_loop_live_outs` | per kernel, `DeviceCaps::spill_loop_live_outs` |
//! | 33 | `<kernel>-widen_extended_multiplies` | per kernel |
//! | 34 | `<kernel>-widen_bool_phis` | per kernel, `DeviceCaps::integer_bool_phis` |
//! | 35 | `<kernel>-funnel_byte_swaps` | per kernel |
//! | 36 | `<kernel>-branch_buffer_selects` | per kernel, `DeviceCaps::branch_buffer_selects` |
//!
//! The last file of a kernel is the module that spirv-val checks and the
//! runtime gets.

use std::path::PathBuf;

use rspirv::binary::Assemble;

use crate::tools::words_to_bytes;

/// The passes whose output `FERROCL_DUMP` writes, in pipeline order; the
/// discriminant is the file's sequence number (module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    CompileToBitcode = 0,
    LinkObjects = 1,
    LinkMath = 2,
    TranslateBitcode = 3,
    MakeIlReducible = 4,
    LinkIlMath = 5,
    StripDebugExtInsts = 6,
    DedupePhiParents = 7,
    ExpandDecorationGroups = 8,
    DropDanglingDecorations = 9,
    LegalizeIntWidths = 10,
    NormalizeBuiltinVars = 11,
    PlacePrivateConstants = 12,
    PrepareGlobalVariables = 13,
    ExpandAsyncCopies = 14,
    SplitImageChoices = 15,
    StructurizeCfgs = 16,
    CopyByvalParams = 17,
    SpecializeAddressSpaces = 18,
    DispatchGenericAccesses = 19,
    SpecializeImageCalls = 20,
    LowerKernel = 21,
    SremViaSdiv = 22,
    SdivViaUdiv = 23,
    WidenNarrowArithmetic = 24,
    FoldSelectShifts = 25,
    GuardInt64Division = 26,
    ExpandLongSignExtensions = 27,
    GuardLoopLimit = 28,
    BranchLoopExits = 29,
    SplitBitcastsTo16bit = 30,
    ScaleLargeDivisors = 31,
    SpillLoopLiveOuts = 32,
    WidenExtendedMultiplies = 33,
    WidenBoolPhis = 34,
    FunnelByteSwaps = 35,
    BranchBufferSelects = 36,
}

impl Pass {
    /// The pass's `verb_object` name: the function that implements it.
    pub fn name(self) -> &'static str {
        match self {
            Pass::CompileToBitcode => "compile_to_bitcode",
            Pass::LinkObjects => "link_objects",
            Pass::LinkMath => "link_math",
            Pass::TranslateBitcode => "translate_bitcode",
            Pass::MakeIlReducible => "make_il_reducible",
            Pass::LinkIlMath => "link_il_math",
            Pass::StripDebugExtInsts => "strip_debug_ext_insts",
            Pass::DedupePhiParents => "dedupe_phi_parents",
            Pass::ExpandDecorationGroups => "expand_decoration_groups",
            Pass::DropDanglingDecorations => "drop_dangling_decorations",
            Pass::LegalizeIntWidths => "legalize_int_widths",
            Pass::NormalizeBuiltinVars => "normalize_builtin_vars",
            Pass::PlacePrivateConstants => "place_private_constants",
            Pass::PrepareGlobalVariables => "prepare_global_variables",
            Pass::ExpandAsyncCopies => "expand_async_copies",
            Pass::SplitImageChoices => "split_image_choices",
            Pass::StructurizeCfgs => "structurize_cfgs",
            Pass::CopyByvalParams => "copy_byval_params",
            Pass::SpecializeAddressSpaces => "specialize_address_spaces",
            Pass::DispatchGenericAccesses => "dispatch_generic_accesses",
            Pass::SpecializeImageCalls => "specialize_image_calls",
            Pass::LowerKernel => "lower_kernel",
            Pass::SremViaSdiv => "srem_via_sdiv",
            Pass::SdivViaUdiv => "sdiv_via_udiv",
            Pass::WidenNarrowArithmetic => "widen_narrow_arithmetic",
            Pass::FoldSelectShifts => "fold_select_shifts",
            Pass::GuardInt64Division => "guard_int64_division",
            Pass::ExpandLongSignExtensions => "expand_long_sign_extensions",
            Pass::GuardLoopLimit => "guard_loop_limit",
            Pass::BranchLoopExits => "branch_loop_exits",
            Pass::SplitBitcastsTo16bit => "split_bitcasts_to_16bit",
            Pass::ScaleLargeDivisors => "scale_large_divisors",
            Pass::SpillLoopLiveOuts => "spill_loop_live_outs",
            Pass::WidenExtendedMultiplies => "widen_extended_multiplies",
            Pass::WidenBoolPhis => "widen_bool_phis",
            Pass::FunnelByteSwaps => "funnel_byte_swaps",
            Pass::BranchBufferSelects => "branch_buffer_selects",
        }
    }

    /// The file the pass's output goes to: `NN-<pass>.<ext>`, or
    /// `NN-<kernel>-<pass>.spv` for a per-kernel pass.
    pub fn file_name(self, kernel: Option<&str>) -> String {
        let ext = match self {
            Pass::CompileToBitcode | Pass::LinkObjects | Pass::LinkMath => "ll",
            _ => "spv",
        };
        let n = self as u32;
        match kernel {
            Some(k) => {
                let short: String = k.chars().take(64).collect();
                format!("{n:02}-{short}-{}.{ext}", self.name())
            }
            None => format!("{n:02}-{}.{ext}", self.name()),
        }
    }
}

/// The dump directory, where `FERROCL_DUMP` names one.
fn dir() -> Option<PathBuf> {
    std::env::var_os("FERROCL_DUMP").map(PathBuf::from)
}

/// Whether `FERROCL_DUMP` asks for dumps.
pub fn enabled() -> bool {
    dir().is_some()
}

/// Writes `bytes` as `pass`'s output (of `kernel`'s module for a
/// per-kernel pass), best effort.
fn write(pass: Pass, kernel: Option<&str>, bytes: &[u8]) {
    if let Some(dir) = dir() {
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(dir.join(pass.file_name(kernel)), bytes);
    }
}

/// `pass`'s output, textual LLVM IR.
pub fn ir(pass: Pass, text: &str) {
    write(pass, None, text.as_bytes());
}

/// `pass`'s output, a SPIR-V module as bytes.
pub fn spirv(pass: Pass, bytes: &[u8]) {
    write(pass, None, bytes);
}

/// `pass`'s output, a SPIR-V module as words (of `kernel`'s module for a
/// per-kernel pass).
pub fn words(pass: Pass, kernel: Option<&str>, words: &[u32]) {
    if enabled() {
        write(pass, kernel, &words_to_bytes(words));
    }
}

/// `pass`'s output, an rspirv module (assembled only when dumping).
pub fn module(pass: Pass, kernel: Option<&str>, module: &rspirv::dr::Module) {
    if enabled() {
        write(pass, kernel, &words_to_bytes(&module.assemble()));
    }
}

#[cfg(test)]
mod tests {
    use super::Pass;

    #[test]
    fn file_names() {
        assert_eq!(
            Pass::CompileToBitcode.file_name(None),
            "00-compile_to_bitcode.ll"
        );
        assert_eq!(
            Pass::SpecializeAddressSpaces.file_name(None),
            "18-specialize_address_spaces.spv"
        );
        assert_eq!(
            Pass::GuardLoopLimit.file_name(Some("k")),
            "28-k-guard_loop_limit.spv"
        );
    }
}
