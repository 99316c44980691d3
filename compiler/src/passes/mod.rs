//! The compiler passes after the front end (DESIGN §4 stages 3–5).

pub mod lower;
pub mod specialize;
pub mod structurize;
pub mod types;
pub mod validate;
