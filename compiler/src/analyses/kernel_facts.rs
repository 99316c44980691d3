//! Everything the analyses know about one kernel, bundled for the lowering
//! (`passes::lower`): computed once per kernel before any output is
//! emitted, read-only afterwards.

use std::collections::HashMap;

use rspirv::spirv::{Op, Word};

use super::address_space::{infer_kernel_spaces, Space};
use super::image_origins::Origin;
use super::module_index::ModuleIndex;
use super::private_variables::own_variable_pointers;

pub struct KernelFacts<'a> {
    /// The input module by id.
    pub ix: &'a ModuleIndex<'a>,
    /// The kernel's entry function.
    pub entry_fn: Word,
    /// Functions reachable from `entry_fn`, `entry_fn` first.
    pub order: Vec<Word>,
    /// Where each pointer value points (`address_space`; the pointers of
    /// private variables with arrays of their own, `private_variables`:
    /// `Space::Variable`).
    pub spaces: HashMap<Word, Space>,
    /// Offsets of the program-scope `__global` variables (and large
    /// `__constant` tables) in the program's global-variable buffer
    /// (`passes::global_vars`).
    pub global_offsets: &'a HashMap<Word, u64>,
    /// Origin of every image/sampler value of the module (`image_origins`).
    pub origins: &'a HashMap<Word, Origin>,
}

impl<'a> KernelFacts<'a> {
    /// The facts of the kernel whose entry function is `entry_fn`; an error
    /// where it calls a function without a body.
    pub fn new(
        ix: &'a ModuleIndex<'a>,
        entry_fn: Word,
        global_offsets: &'a HashMap<Word, u64>,
        origins: &'a HashMap<Word, Origin>,
    ) -> Result<Self, String> {
        let order = ix.call_graph(entry_fn)?;
        let mut spaces = infer_kernel_spaces(ix, global_offsets, &order, entry_fn);
        for (ptr, var) in own_variable_pointers(ix, &order) {
            spaces.insert(ptr, Space::Variable(var));
        }
        Ok(KernelFacts {
            ix,
            entry_fn,
            order,
            spaces,
            global_offsets,
            origins,
        })
    }

    /// The space a pointer operand points to, or why it cannot be lowered.
    pub fn space(&self, ptr: Word) -> Result<Space, String> {
        match self.spaces.get(&ptr) {
            Some(Space::Mixed) => Err(
                "a pointer that may point to different address spaces is not supported yet".into(),
            ),
            Some(s) => Ok(*s),
            None => {
                if let Some(g) = self.ix.globals.get(&ptr) {
                    if matches!(g.class.opcode, Op::ConstantNull | Op::Undef) {
                        return Err("access through a NULL or undefined pointer".into());
                    }
                }
                Err("cannot tell which address space a pointer points to".into())
            }
        }
    }
}
