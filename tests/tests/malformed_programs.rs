//! Malformed SPIR-V and edited program binaries end in a CL error code
//! with a log that names what is wrong: the regressions ferrocl-ilfuzz
//! found (tests/README.md). Each case is a valid module or binary made
//! here with one edit, the one of a mutant that crashed or panicked
//! inside ferrocl before the fix.

use ferrocl_tests::ilfuzz::mutate::{embedded_modules, fix_checksum, instructions};
use ferrocl_tests::ilfuzz::run::{run_mutant, Report, Target};
use ferrocl_tests::ilfuzz::seeds::binary_of;
use ferrocl_tests::{spirv_of, Cl};

const SOURCE: &str = "kernel void k(global int *o, int x) { o[get_global_id(0)] = x * 3; }";

const OP_EXT_INST_IMPORT: u32 = 11;
const OP_ENTRY_POINT: u32 = 15;
const OP_TYPE_INT: u32 = 21;
const OP_TYPE_FLOAT: u32 = 22;
const OP_TYPE_VECTOR: u32 = 23;
const OP_NAME: u32 = 5;
const OP_DECORATE: u32 = 71;
const OP_LABEL: u32 = 248;
const LINKAGE_ATTRIBUTES: u32 = 41;
const OP_STORE: u32 = 62;
const OP_RETURN: u32 = 253;
const OP_IADD: u32 = 128;
const OP_IMUL: u32 = 132;
const OP_CONSTANT: u32 = 43;

fn target(cl: &Cl) -> Target {
    Target {
        context: cl.context.raw(),
        device: cl.device(),
        queue: cl.queue.raw(),
    }
}

fn words_of(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn bytes_of(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The first instruction with `opcode`: its start word.
fn find(words: &[u32], opcode: u32) -> usize {
    instructions(words)
        .into_iter()
        .find(|&(s, _)| words[s] & 0xffff == opcode)
        .unwrap_or_else(|| panic!("no opcode {opcode}"))
        .0
}

/// Builds the IL after `edit`: a build failure whose log contains `want`
/// and no "internal compiler error".
fn il_fails_with(edit: impl FnOnce(&mut Vec<u32>), want: &str) -> Report {
    il_of_fails_with(SOURCE, edit, want)
}

/// [`il_fails_with`] for the IL of `source`.
fn il_of_fails_with(source: &str, edit: impl FnOnce(&mut Vec<u32>), want: &str) -> Report {
    let cl = Cl::new();
    let mut words = words_of(&spirv_of(source));
    edit(&mut words);
    let r = run_mutant(&target(&cl), &bytes_of(&words), false, true, &mut |_| {});
    assert_eq!(
        r.class(),
        "build:CL_BUILD_PROGRAM_FAILURE",
        "log: {}",
        r.log
    );
    assert!(r.log.contains(want), "log lacks {want:?}: {}", r.log);
    assert!(r.defects().is_empty(), "{:?}", r.defects());
    r
}

#[test]
fn unedited_module_builds_and_runs() {
    let cl = Cl::new();
    let r = run_mutant(&target(&cl), &spirv_of(SOURCE), false, true, &mut |_| {});
    assert_eq!(r.class(), "ok", "log: {}", r.log);
    assert_eq!(r.launch, Some(0));
}

/// A word count running past the module's end made rspirv's decoder
/// panic (slice index out of range) inside the build.
#[test]
fn word_count_past_the_end() {
    il_fails_with(
        |w| {
            let at = find(w, OP_ENTRY_POINT);
            w[at] = 0xffff << 16 | OP_ENTRY_POINT;
        },
        "has word count 65535",
    );
}

#[test]
fn id_bound_out_of_range() {
    il_fails_with(
        |w| w[3] = u32::MAX,
        "the id bound 4294967295 is out of range",
    );
}

/// Ids at or beyond the header's bound made spirt's lifting panic
/// (index out of bounds).
#[test]
fn ids_beyond_the_bound() {
    il_fails_with(|w| w[3] = 4, "outside the module's bound 4");
}

/// An OpStore of an id nothing defines got to the structurizer, which
/// reported an "internal compiler error"; the intake names the id now.
#[test]
fn undefined_id_is_the_module_fault() {
    let r = il_fails_with(
        |w| {
            let undefined = w[3];
            w[3] += 1;
            let at = find(w, OP_STORE);
            w[at + 2] = undefined;
        },
        "error: malformed SPIR-V module: OpStore uses %",
    );
    assert!(
        r.log.contains("which nothing in the module defines"),
        "{}",
        r.log
    );
}

/// The OpStore moved before the OpIMul whose result it stores (ilfuzz's
/// "swap instructions" mutants): spirt carried the undefined value back
/// to the function's entry and panicked indexing its parameters (caught,
/// but printed on the application's stderr). The intake refuses it and
/// names the instruction and the id.
#[test]
fn use_before_definition() {
    let r = il_fails_with(
        |w| {
            let mul = find(w, OP_IMUL);
            let product = w[mul + 2];
            let (store, n) = instructions(w)
                .into_iter()
                .find(|&(s, n)| w[s] & 0xffff == OP_STORE && w[s + 1..s + n].contains(&product))
                .expect("the store of the product");
            let inst: Vec<u32> = w.drain(store..store + n).collect();
            w.splice(mul..mul, inst);
        },
        "error: malformed SPIR-V module: OpStore in function %",
    );
    // (The store's address comes after the product too: the first named.)
    assert!(
        r.log.contains("(\"k\") uses %") && r.log.contains("does not dominate the use"),
        "{}",
        r.log
    );
}

/// [`use_before_definition`] in a module whose kernel's OpName is not
/// UTF-8 (which rspirv cannot decode, so the intake lets the module go on
/// unchecked): the build refuses it when it reads the module, before
/// spirt sees it; no panic.
#[test]
fn use_before_definition_with_a_name_that_is_not_utf8() {
    let r = il_fails_with(
        |w| {
            let name = find(w, OP_NAME);
            w[name + 2] = 0xff_ff_ff_ff;
            let mul = find(w, OP_IMUL);
            let product = w[mul + 2];
            let (store, n) = instructions(w)
                .into_iter()
                .find(|&(s, n)| w[s] & 0xffff == OP_STORE && w[s + 1..s + n].contains(&product))
                .expect("the store of the product");
            let inst: Vec<u32> = w.drain(store..store + n).collect();
            w.splice(mul..mul, inst);
        },
        "cannot decode string",
    );
    assert!(!r.log.contains("internal"), "{}", r.log);
}

/// An OpIMul whose result type became a constant's id: the intake says
/// which instruction and which id.
#[test]
fn result_type_that_is_a_constant() {
    il_fails_with(
        |w| {
            let mul = find(w, OP_IMUL);
            let three = w[find(w, OP_CONSTANT) + 2];
            w[mul + 1] = three;
        },
        "which is not a type but OpConstant",
    );
}

/// A float width other than 16, 32 or 64 (bit 10 flipped: 1056) made the
/// lowering of normalize's copysign shift a 64-bit mask by 1055 places (a panic in
/// debug builds, a wrong mask in release builds).
#[test]
fn float_of_odd_width() {
    il_of_fails_with(
        "kernel void k(global const float *a, global float *o) {\n\
             size_t i = get_global_id(0);\n\
             vstore4(normalize(vload4(i, a)), i, o);\n\
         }",
        |w| {
            let at = find(w, OP_TYPE_FLOAT);
            w[at + 2] = 32 | 1 << 10;
        },
        "OpTypeFloat of width 1056",
    );
}

/// An OpReturn turned into an OpExtInstImport of one word: the pass that
/// drops debug-information imports read its name past the end (a panic).
#[test]
fn import_without_a_name() {
    il_fails_with(
        |w| {
            let at = find(w, OP_RETURN);
            w[at] = 1 << 16 | OP_EXT_INST_IMPORT;
        },
        "cannot parse the SPIR-V module",
    );
}

/// A one-word OpLabel (an OpVariable's opcode changed) with a second
/// labelled block: the search for irreducible control flow looked the
/// missing label up (a panic).
#[test]
fn label_without_an_id() {
    il_of_fails_with(
        "kernel void k(global int *o, int n) {\n\
             for (int i = 0; i < n; i++) o[i] = i;\n\
         }",
        |w| {
            let at = instructions(w)
                .into_iter()
                .filter(|&(s, _)| w[s] & 0xffff == OP_LABEL)
                .nth(1)
                .expect("two blocks")
                .0;
            w.insert(at, 1 << 16 | OP_LABEL);
        },
        "error: ",
    );
}

/// A vector of 689570671 components (one word overwritten): the
/// lowering split it into 172 million parts, for minutes (a hang).
#[test]
fn vector_of_too_many_components() {
    il_of_fails_with(
        "kernel void k(global const short8 *a, global short8 *o) {\n\
             o[0] = a[0] < a[1];\n\
         }",
        |w| {
            let at = find(w, OP_TYPE_VECTOR);
            w[at + 3] = 689_570_671;
        },
        "OpTypeVector of 689570671 components",
    );
}

/// A name (or decoration) of an OpExtInstImport's result: spirv-val lets
/// it pass, spirt could not read the module ("decorated IDs never
/// defined") and the build reported an internal compiler error. Such a
/// name says nothing: it is dropped and the kernel runs.
#[test]
fn name_of_an_instruction_set_import() {
    let cl = Cl::new();
    let mut w = words_of(&spirv_of(SOURCE));
    let import = w[find(&w, OP_EXT_INST_IMPORT) + 1];
    let at = find(&w, OP_NAME);
    w[at + 1] = import;
    let r = run_mutant(&target(&cl), &bytes_of(&w), false, true, &mut |_| {});
    assert_eq!(r.class(), "ok", "log: {}", r.log);
    assert_eq!(r.launch, Some(0));
}

/// LinkageAttributes on a type, not a function: spirt could not read it
/// either (an internal compiler error); the intake names it.
#[test]
fn linkage_attributes_on_a_type() {
    il_of_fails_with(
        "int twice(int x) { return 2 * x; }\n\
         kernel void k(global int *o) { o[0] = twice(o[0]); }",
        |w| {
            let int = w[find(w, OP_TYPE_INT) + 1];
            let at = instructions(w)
                .into_iter()
                .find(|&(s, n)| {
                    w[s] & 0xffff == OP_DECORATE && n > 2 && w[s + 2] == LINKAGE_ATTRIBUTES
                })
                .expect("an exported function")
                .0;
            w[at + 1] = int;
        },
        "LinkageAttributes decorates",
    );
}

/// Runs the executable binary of SOURCE after `edit` of its kernel's
/// SPIR-V words (then the checksum is recomputed, as an attacker or a
/// careless tool would).
fn edited_binary(edit: impl FnOnce(&mut [u32])) -> Report {
    let cl = Cl::new();
    let t = target(&cl);
    let mut bin = binary_of(&t, &spirv_of(SOURCE), false).unwrap();
    let modules = embedded_modules(&bin);
    assert_eq!(modules.len(), 1, "one kernel module in the binary");
    let (at, n) = modules[0];
    let mut words = words_of(&bin[at..at + n]);
    edit(&mut words);
    bin[at..at + n].copy_from_slice(&bytes_of(&words));
    fix_checksum(&mut bin);
    run_mutant(&t, &bin, true, true, &mut |_| {})
}

#[test]
fn binary_with_recomputed_checksum_still_loads() {
    let r = edited_binary(|_| {});
    assert_eq!(r.class(), "ok");
    assert_eq!(r.launch, Some(0));
}

/// A kernel whose OpReturn became an OpIAdd (a mutant of this kind
/// crashed lavapipe's pipeline creation): CL_INVALID_BINARY at
/// clCreateProgramWithBinary, before the driver sees the module.
#[test]
fn binary_with_invalid_kernel_spirv_is_refused() {
    let r = edited_binary(|w| {
        let at = find(w, OP_RETURN);
        w[at] = 1 << 16 | OP_IADD;
    });
    assert_eq!(r.class(), "create:CL_INVALID_BINARY");
}
