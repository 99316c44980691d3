//! The build pipeline: the public `build_source` / `build_il` (through the
//! on-disk cache, `cache`), then front end (for IL, only
//! `frontend::il_math` where it calls libclc's math), the module-level
//! passes, and per kernel lower → validate → reflect (`build_module`).

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use rspirv::binary::Assemble;
use rspirv::spirv::Op;

use crate::abi::Addressing;
use crate::backend::{reflect, validate};
use crate::cache;
use crate::caps::DeviceCaps;
use crate::dump::{self, Pass};
use crate::error::BuildError;
use crate::frontend::{self, ArgMetadata, SOURCE_NAME};
use crate::passes::drop_dangling_decorations::drop_dangling_decorations;
use crate::passes::legalize_int_widths::legalize_int_widths;
use crate::passes::normalize_builtin_vars::normalize_builtin_vars;
use crate::passes::place_private_constants::place_private_constants;
use crate::passes::split_image_choices::split_image_choices;
use crate::passes::{
    async_copy, branch_buffer_selects, branch_loop_exits, copy_byval_params, dispatch_generic,
    expand_long_sign_extensions, fold_select_shifts, funnel_byte_swaps, global_vars,
    guard_int64_division, image_args, loop_limit, lower, scale_large_divisors, sdiv_via_udiv,
    specialize, spill_loop_live_outs, split_bitcasts_to_16bit, srem_via_sdiv, structurize,
    widen_bool_phis, widen_extended_multiplies, widen_narrow_arithmetic,
};
use crate::program::Program;
use crate::timing;
use crate::tools::{self, ScratchDir};

/// Builds an OpenCL C program (clCreateProgramWithSource + clBuildProgram):
/// every kernel of `source` becomes its own Vulkan module.
///
/// `options` are the application's build options (`-D`, `-I`, `-cl-std=`,
/// `-cl-fast-relaxed-math`, ...); ferrocl's target options
/// (`-ferrocl-addressing=`, `-pod-ubo`, `-cluster-pod-kernel-args`)
/// override `caps` ([`target_caps`](crate::target_caps)). Thread-safe;
/// never panics.
pub fn build_source(source: &str, options: &str, caps: &DeviceCaps) -> Result<Program, BuildError> {
    let start = std::time::Instant::now();
    let caps = &frontend::target_caps(options, caps)?;
    let r = cached(cache::Input::Source(source), options, caps, || {
        on_compiler_stack(|| guard(|| source_program(source, options, caps)))
    });
    report_build(start, "build_source", &r);
    r
}

/// Builds a program from OpenCL (Kernel-flavour) SPIR-V
/// (clCreateProgramWithIL + clBuildProgram). Thread-safe; never panics.
pub fn build_il(spirv: &[u8], options: &str, caps: &DeviceCaps) -> Result<Program, BuildError> {
    let start = std::time::Instant::now();
    let caps = &frontend::target_caps(options, caps)?;
    let r = cached(cache::Input::Il(spirv), options, caps, || {
        on_compiler_stack(|| guard(|| il_program(spirv, options, caps)))
            .map_err(|e| blame_invalid_il(spirv, e))
    });
    report_build(start, "build_il", &r);
    r
}

/// `FERROCL_TIME_PASSES`: a whole build's time.
pub(crate) fn report_build(start: std::time::Instant, what: &str, r: &Result<Program, BuildError>) {
    match r {
        Ok(p) => timing::report(start, format_args!("{what} ({} kernels)", p.kernels.len())),
        Err(_) => timing::report(start, format_args!("{what} (failed)")),
    }
}

/// `build` through the on-disk cache (`cache`): a hit skips the whole
/// pipeline; a successful miss is stored.
fn cached(
    input: cache::Input,
    options: &str,
    caps: &DeviceCaps,
    build: impl FnOnce() -> Result<Program, BuildError>,
) -> Result<Program, BuildError> {
    let entry = cache::Entry::new(&input, options, caps);
    if let Some(p) = entry.as_ref().and_then(|e| e.load(caps)) {
        return Ok(p);
    }
    let p = build()?;
    if let Some(e) = &entry {
        e.store(&p, options, caps);
    }
    Ok(p)
}

/// The stack of the thread a whole build runs on ([`on_compiler_stack`]).
const COMPILER_STACK_SIZE: usize = 256 << 20;

/// Runs `f` on a thread of its own with a [`COMPILER_STACK_SIZE`] stack
/// and waits for it. The builds run on the application's thread otherwise,
/// whose stack may be small (2 MiB for a Rust thread, less in some
/// applications), and the control-flow structurizer (spirt) recurses
/// about once per nested region: a kernel of 256 straight-line `if`
/// blocks overflowed a 2 MiB stack, which kills the process. The stack is
/// reserved address space, touched only as deep as the build goes. If the
/// thread cannot be made, `f` runs here.
pub(crate) fn on_compiler_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    let f = std::sync::Mutex::new(Some(f));
    let spawned = std::thread::scope(|s| {
        let t = std::thread::Builder::new()
            .name("ferrocl-build".into())
            .stack_size(COMPILER_STACK_SIZE)
            .spawn_scoped(s, || (f.lock().unwrap().take().expect("runs once"))());
        t.ok().map(|t| t.join())
    });
    match spawned {
        Some(Ok(r)) => r,
        // The closure catches its own panics ([`guard`]); one escaping it
        // goes on up as if it had happened here.
        Some(Err(p)) => std::panic::resume_unwind(p),
        None => (f.into_inner().unwrap().expect("not run"))(),
    }
}

/// Runs `f`, turning a panic into an "internal compiler error".
pub fn guard<T>(f: impl FnOnce() -> Result<T, BuildError>) -> Result<T, BuildError> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "panic".to_string());
            Err(BuildError::internal(msg))
        }
    }
}

/// `build_source` without the cache and the panic guard.
fn source_program(source: &str, options: &str, caps: &DeviceCaps) -> Result<Program, BuildError> {
    let opts = frontend::parse_build_options(options, caps)?;
    check_caps(caps)?;
    let scratch = ScratchDir::new()?;
    let fe = frontend::compile_opencl_c(source, &opts, &scratch)?;
    let mut program = build_module(
        &fe.spirv,
        Some(&fe.arg_metadata),
        fe.log,
        caps,
        &scratch,
        Some(SOURCE_NAME),
    )?;
    // SPIR-V's VecTypeHint cannot say `ulong2`: the source's metadata can.
    for k in &mut program.kernels {
        if !fe.unsigned_vec_hints.contains(&k.name) {
            continue;
        }
        if let Some(hint) = k.vec_type_hint.take() {
            let unsigned = format!("u{hint}");
            k.attributes = k.attributes.replace(
                &format!("vec_type_hint({hint})"),
                &format!("vec_type_hint({unsigned})"),
            );
            k.vec_type_hint = Some(unsigned);
        }
    }
    Ok(program)
}

/// An internal compiler error on a module spirv-val rejects is the
/// module's fault: the log then leads with spirv-val's message (naming the
/// construct) and keeps where the compiler stopped as a note.
fn blame_invalid_il(spirv: &[u8], e: BuildError) -> BuildError {
    const ICE: &str = "internal compiler error: ";
    let Some(at) = e.log.find(ICE) else {
        return e;
    };
    let what = &e.log[at + ICE.len()..];
    let Ok(scratch) = ScratchDir::new() else {
        return e;
    };
    match frontend::il_structure::diagnose_invalid_il(spirv, &scratch) {
        Some(msg) => BuildError::failure(format!(
            "error: the module is not valid SPIR-V: {msg}\nnote: the compiler stopped at: {what}"
        )),
        None => e,
    }
}

/// `build_il` without the cache and the panic guard.
fn il_program(spirv: &[u8], options: &str, caps: &DeviceCaps) -> Result<Program, BuildError> {
    // Options that make sense for IL are the same set; -D/-I have no
    // effect, the math flags select libclc's functions as for source.
    let opts = frontend::parse_build_options(options, caps)?;
    check_caps(caps)?;
    // Extensions and instruction sets the device does not take
    // (cl_khr_spirv_queries: what the device reports it takes).
    let mut resolved = None;
    if let Some(words) = tools::bytes_to_words(spirv) {
        // Global definitions that older producers put after their uses,
        // in order (`il_global_order`).
        let ordered = frontend::il_structure::check_il_stream(&words)
            .ok()
            .and_then(|()| frontend::il_global_order::order_global_definitions(&words));
        if let Some(w) = &ordered {
            resolved = Some(tools::words_to_bytes(w));
        }
        let words = ordered.unwrap_or(words);
        frontend::il_structure::check_il_structure(&words)
            .map_err(|e| BuildError::failure(format!("error: malformed SPIR-V module: {e}")))?;
        frontend::il_support::check_il_intake(&words, caps)
            .map_err(|e| BuildError::failure(format!("error: {e}")))?;
        // SPIR-V 1.2's OpExecutionModeId as literal modes, then the
        // SubgroupDispatch queries, which depend on them, as values.
        let fail = |e: String| BuildError::failure(format!("error: {e}"));
        let modes =
            frontend::execution_mode_ids::resolve_execution_mode_ids(&words).map_err(fail)?;
        let words = modes.as_deref().unwrap_or(&words);
        let queries = frontend::subgroup_queries::resolve_kernel_subgroup_queries(words, caps)
            .map_err(fail)?;
        if let Some(w) = queries.as_deref().or(modes.as_deref()) {
            // rspirv reads the rewritten module (OpExecutionModeId made
            // literal), which the first check may have had to let go.
            frontend::il_structure::check_il_structure(w)
                .map_err(|e| BuildError::failure(format!("error: malformed SPIR-V module: {e}")))?;
            resolved = Some(tools::words_to_bytes(w));
        }
    }
    let spirv = resolved.as_deref().unwrap_or(spirv);
    let kept_modes = tools::bytes_to_words(spirv)
        .map(|w| frontend::execution_mode_ids::kept_dispatch_modes(&w))
        .unwrap_or_default();
    let scratch = ScratchDir::new()?;
    // Irreducible control flow: made reducible through LLVM IR.
    let reducible = frontend::make_il_reducible(spirv, &scratch)?;
    let spirv = reducible.as_deref().unwrap_or(spirv);
    dump::spirv(Pass::MakeIlReducible, spirv);
    // The OpenCL.std math the source path takes from libclc, and the
    // inlining of the module's functions where the device asks for it:
    // through a round trip to LLVM IR (`frontend::il_math`); modules that
    // need neither keep their bytes.
    let inline = opts.inline_functions && !opts.opt_disable;
    let linked = match tools::bytes_to_words(spirv) {
        Some(words) => frontend::il_math::link_il_math(&words, &opts.math, inline, &scratch),
        None => Ok(None),
    };
    let (linked, log) = match linked {
        Ok(linked) => (linked, opts.warnings),
        Err(note) => (None, opts.warnings + &note),
    };
    let with_modes = |spirv: &[u8]| -> Vec<u8> {
        // What the round trips through LLVM IR dropped (`execution_mode_ids`).
        match tools::bytes_to_words(spirv) {
            Some(w) if !kept_modes.is_empty() => tools::words_to_bytes(
                &frontend::execution_mode_ids::restore_dispatch_modes(&w, &kept_modes),
            ),
            _ => spirv.to_vec(),
        }
    };
    let Some(linked) = linked else {
        dump::spirv(Pass::LinkIlMath, spirv);
        return build_module(&with_modes(spirv), None, log, caps, &scratch, None);
    };
    dump::spirv(Pass::LinkIlMath, &linked.spirv);
    let built = build_module(
        &with_modes(&linked.spirv),
        None,
        log.clone(),
        caps,
        &scratch,
        None,
    );
    match built {
        // The round trip was for the inlining alone, and LLVM IR lost a
        // construct the module had (llvm-spirv-15 reads OpAtomicFAddEXT back
        // as a call it cannot write again): the module as it came, its
        // functions left calls.
        Err(e) if !linked.math => {
            let first = e.log.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            let note = format!(
                "warning: the module's functions stay calls (after a round trip \
                 through LLVM IR to inline them: {first})\n"
            );
            build_module(&with_modes(spirv), None, log + &note, caps, &scratch, None)
        }
        built => built,
    }
}

pub(crate) fn check_caps(caps: &DeviceCaps) -> Result<(), BuildError> {
    if caps.addressing == Addressing::Physical
        && (caps.descriptor.pod_ubo
            || caps.descriptor.cluster_pod_args
            || !caps.descriptor.sampler_map.is_empty())
    {
        return Err(BuildError::options(
            "-pod-ubo, -cluster-pod-kernel-args and -samplermap need descriptor addressing",
        ));
    }
    Ok(())
}

/// Lowers every kernel of the Kernel-flavour module `spirv`.
pub(crate) fn build_module(
    spirv: &[u8],
    metadata: Option<&HashMap<String, Vec<ArgMetadata>>>,
    log: String,
    caps: &DeviceCaps,
    scratch: &ScratchDir,
    source_name: Option<&str>,
) -> Result<Program, BuildError> {
    let words = tools::bytes_to_words(spirv)
        .ok_or_else(|| BuildError::failure("the IL is not a SPIR-V module"))?;
    let words = timing::pass(Pass::StripDebugExtInsts, None, || {
        strip_debug_ext_insts(&words)
    });
    dump::words(Pass::StripDebugExtInsts, None, &words);
    let words = timing::pass(Pass::DedupePhiParents, None, || dedupe_phi_parents(&words));
    dump::words(Pass::DedupePhiParents, None, &words);
    let words = timing::pass(Pass::ExpandDecorationGroups, None, || {
        expand_decoration_groups(&words)
    });
    dump::words(Pass::ExpandDecorationGroups, None, &words);
    let words = run_word_pass(
        words,
        &log,
        Pass::DropDanglingDecorations,
        drop_dangling_decorations,
    )?;
    let words = run_word_pass(words, &log, Pass::LegalizeIntWidths, legalize_int_widths)?;
    let words = run_word_pass(
        words,
        &log,
        Pass::NormalizeBuiltinVars,
        normalize_builtin_vars,
    )?;
    let words = run_word_pass(
        words,
        &log,
        Pass::PlacePrivateConstants,
        place_private_constants,
    )?;
    let (words, global_variables) = timing::pass(Pass::PrepareGlobalVariables, None, || {
        global_vars::prepare_global_variables(&words)
    })
    .map_err(|e| BuildError::failure(format!("{log}error: {e}")))?;
    dump::words(Pass::PrepareGlobalVariables, None, &words);
    let words = timing::pass(Pass::ExpandAsyncCopies, None, || {
        async_copy::expand_async_copies(&words)
    })
    .map_err(BuildError::internal)?;
    dump::words(Pass::ExpandAsyncCopies, None, &words);
    let words = if caps.images {
        run_word_pass(words, &log, Pass::SplitImageChoices, split_image_choices)?
    } else {
        words
    };
    // Structurize first: the lowering keeps the control flow as it is, and
    // spirt cannot read what the lowering adds (OpSpecConstantOp).
    let words = timing::pass(Pass::StructurizeCfgs, None, || {
        structurize::structurize_cfgs(&words)
    })
    .map_err(BuildError::internal)?;
    dump::words(Pass::StructurizeCfgs, None, &words);
    let mut module = timing::time(|| "load_words".into(), || rspirv::dr::load_words(&words))
        .map_err(|e| BuildError::failure(format!("cannot parse the SPIR-V module: {e}")))?;
    timing::pass(Pass::CopyByvalParams, None, || {
        copy_byval_params::copy_byval_params(&mut module)
    });
    dump::module(Pass::CopyByvalParams, None, &module);
    timing::pass(Pass::SpecializeAddressSpaces, None, || {
        specialize::specialize_address_spaces(&mut module)
    });
    dump::module(Pass::SpecializeAddressSpaces, None, &module);
    timing::pass(Pass::DispatchGenericAccesses, None, || {
        dispatch_generic::dispatch_generic_accesses(&mut module)
    });
    dump::module(Pass::DispatchGenericAccesses, None, &module);
    if caps.images {
        timing::pass(Pass::SpecializeImageCalls, None, || {
            image_args::specialize_image_calls(&mut module)
        });
        dump::module(Pass::SpecializeImageCalls, None, &module);
    }
    if !module.capabilities.iter().any(|c| {
        c.operands.first()
            == Some(&rspirv::dr::Operand::Capability(
                rspirv::spirv::Capability::Kernel,
            ))
    }) {
        return Err(BuildError::failure(
            "the SPIR-V module is not an OpenCL (Kernel) module",
        ));
    }
    let (global_offsets, image_origins) = timing::time(
        || "global_offsets, opaque_origins".into(),
        || {
            (
                global_vars::global_offsets(&module),
                crate::analyses::image_origins::opaque_origins(&module),
            )
        },
    );
    let ix = timing::time(
        || "index_module".into(),
        || crate::analyses::module_index::ModuleIndex::new(&module),
    );
    let entries: Vec<usize> = (module.entry_points.iter().enumerate())
        .filter(|(_, ep)| ep.class.opcode == Op::EntryPoint)
        .map(|(i, _)| i)
        .collect();
    let kernel = |i: usize| {
        guard(|| {
            let name = module.entry_points[i].operands[2].unwrap_literal_string();
            let k = KernelBuild {
                ix: &ix,
                caps,
                global_offsets: &global_offsets,
                image_origins: &image_origins,
                metadata,
                scratch,
                source_name,
                log: &log,
            };
            k.build(i, name)
        })
    };
    let kernels = in_parallel(&entries, kernel)
        .into_iter()
        .collect::<Result<_, _>>()?;
    Ok(Program {
        log,
        kernels,
        global_variables,
    })
}

/// What every kernel of a module is built from (`build_module`).
struct KernelBuild<'a> {
    ix: &'a crate::analyses::module_index::ModuleIndex<'a>,
    caps: &'a DeviceCaps,
    global_offsets: &'a HashMap<u32, u64>,
    image_origins: &'a HashMap<u32, crate::analyses::image_origins::Origin>,
    metadata: Option<&'a HashMap<String, Vec<ArgMetadata>>>,
    scratch: &'a ScratchDir,
    source_name: Option<&'a str>,
    log: &'a str,
}

impl KernelBuild<'_> {
    /// Kernel `name`, the module's entry point `i`: lowered, the per-kernel
    /// passes, validated (spirv-val) and reflected.
    fn build(&self, i: usize, name: &str) -> Result<crate::program::Kernel, BuildError> {
        let (caps, log) = (self.caps, self.log);
        let kernel = Some(name);
        let mut lowered = timing::pass(Pass::LowerKernel, kernel, || {
            lower::lower_kernel(self.ix, i, caps, self.global_offsets, self.image_origins)
        })
        .map_err(|e| {
            let loc = match (self.source_name, e.line) {
                (Some(f), Some(l)) => format!("{f}:{l}: "),
                (None, Some(l)) => format!("line {l}: "),
                _ => String::new(),
            };
            BuildError::failure(format!("{log}{loc}error: kernel '{name}': {}", e.message))
        })?;
        dump::module(Pass::LowerKernel, kernel, &lowered.module);
        timing::pass(Pass::SremViaSdiv, kernel, || {
            srem_via_sdiv::srem_via_sdiv(&mut lowered.module)
        });
        dump::module(Pass::SremViaSdiv, kernel, &lowered.module);
        timing::pass(Pass::SdivViaUdiv, kernel, || {
            sdiv_via_udiv::sdiv_via_udiv(&mut lowered.module)
        });
        dump::module(Pass::SdivViaUdiv, kernel, &lowered.module);
        if caps.wide_narrow_arithmetic {
            timing::pass(Pass::WidenNarrowArithmetic, kernel, || {
                widen_narrow_arithmetic::widen_narrow_arithmetic(&mut lowered.module)
            });
            dump::module(Pass::WidenNarrowArithmetic, kernel, &lowered.module);
        }
        timing::pass(Pass::FoldSelectShifts, kernel, || {
            fold_select_shifts::fold_select_shifts(&mut lowered.module)
        });
        dump::module(Pass::FoldSelectShifts, kernel, &lowered.module);
        timing::pass(Pass::GuardInt64Division, kernel, || {
            guard_int64_division::guard_int64_division(
                &mut lowered.module,
                caps.soft_int64_division,
            )
        });
        dump::module(Pass::GuardInt64Division, kernel, &lowered.module);
        if caps.soft_long_sign_extension {
            timing::pass(Pass::ExpandLongSignExtensions, kernel, || {
                expand_long_sign_extensions::expand_long_sign_extensions(&mut lowered.module)
            });
            dump::module(Pass::ExpandLongSignExtensions, kernel, &lowered.module);
        }
        let mut loop_status = false;
        if caps.loop_limiter {
            loop_status = timing::pass(Pass::GuardLoopLimit, kernel, || {
                loop_limit::guard_loop_limit(&mut lowered.module)
            });
            dump::module(Pass::GuardLoopLimit, kernel, &lowered.module);
        }
        if caps.branch_loop_exits {
            timing::pass(Pass::BranchLoopExits, kernel, || {
                branch_loop_exits::branch_loop_exits(&mut lowered.module)
            });
            dump::module(Pass::BranchLoopExits, kernel, &lowered.module);
        }
        if caps.split_bitcasts_to_16bit {
            timing::pass(Pass::SplitBitcastsTo16bit, kernel, || {
                split_bitcasts_to_16bit::split_bitcasts_to_16bit(&mut lowered.module)
            });
            dump::module(Pass::SplitBitcastsTo16bit, kernel, &lowered.module);
        }
        timing::pass(Pass::ScaleLargeDivisors, kernel, || {
            scale_large_divisors::scale_large_divisors(&mut lowered.module)
        });
        dump::module(Pass::ScaleLargeDivisors, kernel, &lowered.module);
        if caps.spill_loop_live_outs {
            timing::pass(Pass::SpillLoopLiveOuts, kernel, || {
                spill_loop_live_outs::spill_loop_live_outs(&mut lowered.module)
            });
            dump::module(Pass::SpillLoopLiveOuts, kernel, &lowered.module);
        }
        timing::pass(Pass::WidenExtendedMultiplies, kernel, || {
            widen_extended_multiplies::widen_extended_multiplies(&mut lowered.module)
        });
        dump::module(Pass::WidenExtendedMultiplies, kernel, &lowered.module);
        if caps.integer_bool_phis {
            timing::pass(Pass::WidenBoolPhis, kernel, || {
                widen_bool_phis::widen_bool_phis(&mut lowered.module)
            });
            dump::module(Pass::WidenBoolPhis, kernel, &lowered.module);
        }
        timing::pass(Pass::FunnelByteSwaps, kernel, || {
            funnel_byte_swaps::funnel_byte_swaps(&mut lowered.module)
        });
        dump::module(Pass::FunnelByteSwaps, kernel, &lowered.module);
        if caps.branch_buffer_selects {
            timing::pass(Pass::BranchBufferSelects, kernel, || {
                branch_buffer_selects::branch_buffer_selects(&mut lowered.module)
            })
            .map_err(|e| BuildError::failure(format!("{log}error: kernel '{name}': {e}")))?;
            dump::module(Pass::BranchBufferSelects, kernel, &lowered.module);
        }
        let words = timing::time(|| format!("assemble {name}"), || lowered.module.assemble());
        timing::time(
            || format!("validate_module {name}"),
            || validate::validate_module(&words, name, i, self.scratch),
        )?;
        let md = self
            .metadata
            .and_then(|m| m.get(name))
            .map(|v| v.as_slice());
        let mut kernel = timing::time(
            || format!("reflect_kernel {name}"),
            || reflect::reflect_kernel(name, &lowered, words, md),
        );
        kernel.loop_status = loop_status;
        Ok(kernel)
    }
}

/// The stack of `in_parallel`'s threads: a main thread's (8 MiB).
const STACK_SIZE: usize = 8 << 20;

/// `f` of every item, in order, computed on up to as many threads as the
/// machine has cores (kernels are independent: lowered, then validated by
/// a spirv-val process each, which is most of a kernel's time).
fn in_parallel<T: Send>(items: &[usize], f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len());
    if threads <= 1 {
        return items.iter().map(|&i| f(i)).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut done: Vec<(usize, T)> = std::thread::scope(|s| {
        let work = || {
            let mut out = Vec::new();
            loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&i) = items.get(k) else { break };
                out.push((k, f(i)));
            }
            out
        };
        // The calling thread works too; the others get a main thread's
        // stack (the lowering recurses over expressions).
        let workers: Vec<_> = (1..threads)
            .filter_map(|_| {
                std::thread::Builder::new()
                    .stack_size(STACK_SIZE)
                    .spawn_scoped(s, work)
                    .ok()
            })
            .collect();
        let mut done = work();
        for w in workers {
            done.extend(w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
        }
        done
    });
    done.sort_by_key(|(k, _)| *k);
    done.into_iter().map(|(_, t)| t).collect()
}

/// A pass on a module's words: `Ok(None)` where it has nothing to do.
type WordPass = fn(&[u32]) -> Result<Option<Vec<u32>>, String>;

/// Runs `pass` (dumped as `name`) on words, where `None` means it has
/// nothing to do; its error fails the build with the front end's log
/// first.
fn run_word_pass(
    words: Vec<u32>,
    log: &str,
    name: Pass,
    pass: WordPass,
) -> Result<Vec<u32>, BuildError> {
    let out = match timing::pass(name, None, || pass(&words)) {
        Ok(Some(out)) => out,
        Ok(None) => words,
        Err(e) => return Err(BuildError::failure(format!("{log}error: {e}"))),
    };
    dump::words(name, None, &out);
    Ok(out)
}

/// Replaces decoration groups (OpDecorationGroup, OpGroupDecorate,
/// OpGroupMemberDecorate: deprecated, but in SPIR-V that applications give
/// clCreateProgramWithIL, and spirt cannot read them) by the OpDecorate /
/// OpMemberDecorate instructions they stand for.
fn expand_decoration_groups(words: &[u32]) -> Vec<u32> {
    const DECORATE: u32 = 71;
    const MEMBER_DECORATE: u32 = 72;
    const DECORATION_GROUP: u32 = 73;
    const GROUP_DECORATE: u32 = 74;
    const GROUP_MEMBER_DECORATE: u32 = 75;
    const NAME: u32 = 5;
    let insts = |words: &[u32]| -> Vec<(usize, usize)> {
        tools::instructions(words)
            .map_while(Result::ok)
            .map(|(i, inst)| (i, inst.len()))
            .collect()
    };
    if words.len() < 5 {
        return words.to_vec();
    }
    let all = insts(words);
    // Each group's decorations (the operands after the target).
    let mut groups: HashMap<u32, Vec<Vec<u32>>> = HashMap::new();
    for &(i, n) in &all {
        if words[i] & 0xffff == DECORATION_GROUP && n >= 2 {
            groups.insert(words[i + 1], Vec::new());
        }
    }
    if groups.is_empty() {
        return words.to_vec();
    }
    for &(i, n) in &all {
        if words[i] & 0xffff == DECORATE && n >= 3 {
            if let Some(g) = groups.get_mut(&words[i + 1]) {
                g.push(words[i + 2..i + n].to_vec());
            }
        }
    }
    let mut out = words[..5].to_vec();
    let mut end = 5;
    for &(i, n) in &all {
        end = i + n;
        let inst = &words[i..i + n];
        let op = inst[0] & 0xffff;
        let targets_group = n >= 2 && groups.contains_key(&inst[1]);
        match op {
            DECORATION_GROUP => {}
            DECORATE | NAME if targets_group => {}
            GROUP_DECORATE if n >= 2 => {
                for &target in &inst[2..] {
                    for d in groups.get(&inst[1]).into_iter().flatten() {
                        out.push(((2 + d.len() as u32) << 16) | DECORATE);
                        out.push(target);
                        out.extend_from_slice(d);
                    }
                }
            }
            GROUP_MEMBER_DECORATE if n >= 2 => {
                for pair in inst[2..].chunks(2) {
                    let [target, member] = pair else { continue };
                    for d in groups.get(&inst[1]).into_iter().flatten() {
                        out.push(((3 + d.len() as u32) << 16) | MEMBER_DECORATE);
                        out.extend_from_slice(&[*target, *member]);
                        out.extend_from_slice(d);
                    }
                }
            }
            _ => out.extend_from_slice(inst),
        }
    }
    out.extend_from_slice(&words[end..]);
    out
}

/// Removes the OpExtInst instructions of non-semantic / debug-info sets
/// (OpenCL.DebugInfo.100 & co.: rspirv cannot load them at module scope,
/// and Vulkan does not want them). OpLine stays: the lowering names
/// source lines with it.
///
/// Also drops OpLoopMerge/OpSelectionMerge: llvm-spirv writes them for
/// loop hints (`opencl_unroll_hint`, `#pragma unroll`) wherever the hint
/// sat, which spirt rejects, and the structurizer makes its own.
///
/// Also drops the literal `n` operand of OpenCL.std vloadn, vload_halfn
/// and vloada_halfn (spirt reads every OpExtInst operand as an id; `n` is
/// the result's component count anyway).
pub(crate) fn strip_debug_ext_insts(words: &[u32]) -> Vec<u32> {
    const EXT_INST_IMPORT: u32 = 11;
    const EXT_INST: u32 = 12;
    const LOOP_MERGE: u32 = 246;
    const SELECTION_MERGE: u32 = 247;
    let mut debug_sets = std::collections::HashSet::new();
    tools::rewrite_instructions(words, |inst, out| {
        let (op, count) = (inst[0] & 0xffff, inst.len());
        // (An import without a name is left to the parser to refuse.)
        if op == EXT_INST_IMPORT && count >= 3 {
            let name: Vec<u8> = inst[2..]
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .take_while(|&b| b != 0)
                .collect();
            if name != b"OpenCL.std" {
                debug_sets.insert(inst[1]);
                return;
            }
        }
        if op == EXT_INST && count >= 4 && debug_sets.contains(&inst[3]) {
            return;
        }
        if op == LOOP_MERGE || op == SELECTION_MERGE {
            return;
        }
        // OpenCL.std vloadn = 171, vload_halfn = 174, vloada_halfn = 179
        // (literal n: dropped), vstore_half_r = 176, vstore_halfn_r = 178,
        // vstorea_halfn_r = 181 (literal rounding mode: moved into the
        // instruction number, `lower::ext_inst::ROUNDED_STORE`).
        let literal_last = match inst.get(4) {
            Some(171 | 174 | 179) => count == 8,
            Some(176 | 178 | 181) => count == 9,
            _ => false,
        };
        if op == EXT_INST && literal_last && !debug_sets.contains(&inst[3]) {
            out.push(((count as u32 - 1) << 16) | EXT_INST);
            out.extend_from_slice(&inst[1..4]);
            let number = if count == 9 {
                crate::passes::lower::ROUNDED_STORE | (inst[count - 1] & 3) << 8 | inst[4]
            } else {
                inst[4]
            };
            out.push(number);
            out.extend_from_slice(&inst[5..count - 1]);
            return;
        }
        out.extend_from_slice(inst);
    })
}

/// Keeps one (value, parent) pair per parent block in each OpPhi.
/// llvm-spirv-15 copies LLVM's phi operands as they are, and LLVM repeats
/// a predecessor once per switch case that branches straight to the phi's
/// block (`case 1: case 3: r = 1; break;`, every case of a switch whose
/// cases only pick constants); SPIR-V wants each parent once, and spirt
/// refuses the module otherwise. (LLVM requires the repeated pairs to carry
/// the same value.)
fn dedupe_phi_parents(words: &[u32]) -> Vec<u32> {
    const PHI: u32 = 245;
    tools::rewrite_instructions(words, |inst, out| {
        // OpPhi: result type, result id, then (value, parent) pairs.
        if inst[0] & 0xffff != PHI || inst.len() < 5 {
            out.extend_from_slice(inst);
            return;
        }
        let mut parents = std::collections::HashSet::new();
        let pairs: Vec<&[u32]> = inst[3..]
            .chunks(2)
            .filter(|pair| pair.len() < 2 || parents.insert(pair[1]))
            .collect();
        let len: usize = 3 + pairs.iter().map(|p| p.len()).sum::<usize>();
        out.push(((len as u32) << 16) | PHI);
        out.extend_from_slice(&inst[1..3]);
        for p in pairs {
            out.extend_from_slice(p);
        }
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn phi_keeps_one_pair_per_parent() {
        const PHI: u32 = 245;
        let header = [0x0723_0203, 0x0001_0000, 0, 100, 0];
        let mut words = header.to_vec();
        // %5 = OpPhi %1 %7 %8 %9 %10 %9 %10 %9 %10
        words.extend_from_slice(&[(11 << 16) | PHI, 1, 5, 7, 8, 9, 10, 9, 10, 9, 10]);
        // OpReturn
        words.push((1 << 16) | 253);
        let mut want = header.to_vec();
        want.extend_from_slice(&[(7 << 16) | PHI, 1, 5, 7, 8, 9, 10]);
        want.push((1 << 16) | 253);
        assert_eq!(super::dedupe_phi_parents(&words), want);
    }
}
