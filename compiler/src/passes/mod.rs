//! The compiler passes after the front end (DESIGN §4 stages 3–5).

pub mod async_copy;
pub mod copy_byval_params;
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
pub mod specialize;
pub mod srem_via_sdiv;
pub mod structurize;
pub mod validate;
