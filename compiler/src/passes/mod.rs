//! The passes on SPIR-V between the front end and the back end (DESIGN
//! §4): the module-level passes on the Kernel module, structurization,
//! specialization, the per-kernel lowering to Vulkan and its follow-ups;
//! `pipeline::build_module` runs them in order (`dump` lists it).

pub mod async_copy;
pub mod branch_buffer_selects;
pub mod branch_loop_exits;
pub mod copy_byval_params;
pub mod dispatch_generic;
pub mod drop_dangling_decorations;
pub mod expand_long_sign_extensions;
pub mod fold_select_shifts;
pub mod funnel_byte_swaps;
pub mod global_vars;
pub mod guard_int64_division;
pub mod image_args;
pub mod legalize_int_widths;
pub mod loop_limit;
pub mod lower;
pub mod module_edit;
pub mod normalize_builtin_vars;
pub mod place_private_constants;
pub mod reducible;
pub mod scale_large_divisors;
pub mod sdiv_via_udiv;
pub mod specialize;
pub mod spill_loop_live_outs;
pub mod split_bitcasts_to_16bit;
pub mod split_image_choices;
pub mod srem_via_sdiv;
pub mod structurize;
pub mod udivrem64;
pub mod widen_bool_phis;
pub mod widen_extended_multiplies;
pub mod widen_narrow_arithmetic;
