//! The input module indexed by id: its global instructions, functions,
//! decorations, the type of every value and the defining instruction of
//! every function-local result, with the module's `TypeTable`. Built once
//! per module (`ModuleIndex::new`) and read by the lowering and the
//! address-space analysis; nothing here changes afterwards.

use std::collections::{HashMap, HashSet};

use rspirv::dr::{self, Instruction, Operand};
use rspirv::spirv::{BuiltIn, Decoration, Op, Word};

use super::type_table::TypeTable;

pub struct ModuleIndex<'a> {
    pub src: &'a dr::Module,
    pub tys: TypeTable,
    /// Original type of every value (results, parameters, globals).
    pub value_ty: HashMap<Word, Word>,
    /// Global instructions of the input by result id.
    pub globals: HashMap<Word, &'a Instruction>,
    /// Functions of the input by id.
    pub funcs: HashMap<Word, &'a dr::Function>,
    /// Decorations of the input by target.
    pub decorations: HashMap<Word, Vec<&'a Instruction>>,
    /// Defining instruction of every result id of the input's functions.
    pub defs: HashMap<Word, &'a Instruction>,
}

impl<'a> ModuleIndex<'a> {
    pub fn new(src: &'a dr::Module) -> Self {
        let mut ix = ModuleIndex {
            src,
            tys: TypeTable::from_module(src),
            value_ty: HashMap::new(),
            globals: HashMap::new(),
            funcs: HashMap::new(),
            decorations: HashMap::new(),
            defs: HashMap::new(),
        };
        for a in &src.annotations {
            if let Some(Operand::IdRef(t)) = a.operands.first() {
                ix.decorations.entry(*t).or_default().push(a);
            }
        }
        for g in &src.types_global_values {
            if let Some(id) = g.result_id {
                ix.globals.insert(id, g);
                if let Some(t) = g.result_type {
                    ix.value_ty.insert(id, t);
                }
            }
        }
        for f in &src.functions {
            if let Some(id) = f.def_id() {
                ix.funcs.insert(id, f);
            }
            for i in f
                .parameters
                .iter()
                .chain(f.blocks.iter().flat_map(|b| b.instructions.iter()))
            {
                if let (Some(id), Some(t)) = (i.result_id, i.result_type) {
                    ix.value_ty.insert(id, t);
                    ix.defs.insert(id, i);
                }
            }
        }
        ix
    }

    /// The input type of value `id` (0 if unknown).
    pub fn ty_of(&self, id: Word) -> Word {
        self.value_ty.get(&id).copied().unwrap_or(0)
    }

    pub fn builtin_of(&self, id: Word) -> Option<BuiltIn> {
        self.decorations.get(&id)?.iter().find_map(|d| {
            match (d.operands.get(1), d.operands.get(2)) {
                (Some(Operand::Decoration(Decoration::BuiltIn)), Some(Operand::BuiltIn(b))) => {
                    Some(*b)
                }
                _ => None,
            }
        })
    }

    pub fn has_decoration(&self, id: Word, dec: Decoration) -> bool {
        self.decorations.get(&id).is_some_and(|v| {
            v.iter()
                .any(|d| matches!(d.operands.get(1), Some(Operand::Decoration(x)) if *x == dec))
        })
    }

    /// The name of a function (OpName or linkage name), for messages.
    pub fn name_of(&self, id: Word) -> String {
        for n in &self.src.debug_names {
            if n.operands.first() == Some(&Operand::IdRef(id)) {
                if let Some(Operand::LiteralString(s)) = n.operands.get(1) {
                    return s.clone();
                }
            }
        }
        format!("%{id}")
    }

    /// Functions reachable from `root` through OpFunctionCall, root first.
    /// A call of a function without a body is an error, unless it is a
    /// builtin (`builtin_imports`).
    pub fn call_graph(&self, root: Word) -> Result<Vec<Word>, String> {
        let mut order = vec![root];
        let mut seen: HashSet<Word> = order.iter().copied().collect();
        let mut i = 0;
        while i < order.len() {
            let f = self.funcs[&order[i]];
            for inst in f.blocks.iter().flat_map(|b| &b.instructions) {
                if inst.class.opcode == Op::FunctionCall {
                    let callee = inst.operands[0].unwrap_id_ref();
                    if !seen.insert(callee) || self.builtin_import(callee).is_some() {
                        continue;
                    }
                    match self.funcs.get(&callee) {
                        Some(cf) if !cf.blocks.is_empty() => order.push(callee),
                        _ => {
                            return Err(format!(
                                "call to undefined function '{}' (an unsupported builtin?)",
                                self.name_of(callee)
                            ))
                        }
                    }
                }
            }
            i += 1;
        }
        Ok(order)
    }
}
