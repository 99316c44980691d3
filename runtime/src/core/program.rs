//! cl_program: source, IL, binaries or linked objects, and one build per
//! device (compiled by `ferrocl_compiler`).
//!
//! Per device a program holds at most one of: a compiled object or a
//! library (LLVM bitcode, `Build::object`), or an executable
//! (`Build::output`). A program created from an executable binary keeps it
//! in `Build::loaded` until clBuildProgram makes it the executable without
//! recompiling.
//!
//! Layer: programs, above contexts and devices, below kernels.

use std::collections::HashMap;
use std::sync::Arc;

use ferrocl_compiler as compiler;
use opencl_sys::*;
use parking_lot::Mutex;

use super::context::Context;
use super::device::Device;
use super::error::CLResult;
use super::global_vars::GlobalVarBuffers;
use super::object::{tag, Base, ClObject};
use super::prewarm::ProgramPipelines;

pub enum Source {
    Text(String),
    Il(Vec<u8>),
    /// clCreateProgramWithBinary: what each device got is in its `Build`.
    Binary,
    /// clLinkProgram's output.
    Linked,
}

#[derive(Clone)]
pub struct Build {
    pub status: cl_build_status,
    pub log: String,
    pub options: String,
    pub binary_type: cl_program_binary_type,
    /// The executable.
    pub output: Option<Arc<compiler::Program>>,
    /// Bitcode of a compiled object (CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT)
    /// or a library (CL_PROGRAM_BINARY_TYPE_LIBRARY).
    pub object: Option<Arc<Vec<u8>>>,
    /// An executable loaded from a binary, not built yet.
    pub loaded: Option<Arc<compiler::Program>>,
}

impl Default for Build {
    fn default() -> Self {
        Build {
            status: CL_BUILD_NONE,
            log: String::new(),
            options: String::new(),
            binary_type: CL_PROGRAM_BINARY_TYPE_NONE,
            output: None,
            object: None,
            loaded: None,
        }
    }
}

impl Build {
    /// A failed build; its log goes to stderr too with FERROCL_LOG (an
    /// application seldom shows it).
    fn failed(options: &str, log: String) -> Build {
        if super::platform::log_enabled() {
            eprintln!("ferrocl: build failed (options \"{options}\"):\n{log}");
        }
        Build {
            status: CL_BUILD_ERROR,
            log,
            options: options.to_string(),
            ..Default::default()
        }
    }

    fn executable(options: &str, p: compiler::Program) -> Build {
        Build {
            status: CL_BUILD_SUCCESS,
            log: p.log.clone(),
            options: options.to_string(),
            binary_type: CL_PROGRAM_BINARY_TYPE_EXECUTABLE,
            output: Some(Arc::new(p)),
            ..Default::default()
        }
    }

    fn bitcode(options: &str, binary_type: cl_program_binary_type, o: compiler::Object) -> Build {
        Build {
            status: CL_BUILD_SUCCESS,
            log: o.log,
            options: options.to_string(),
            binary_type,
            object: Some(Arc::new(o.bitcode)),
            ..Default::default()
        }
    }
}

/// A header for clCompileProgram: its include name and its source.
pub struct Header {
    pub name: String,
    pub program: Arc<Program>,
}

#[repr(C)]
pub struct Program {
    base: Base,
    pub context: Arc<Context>,
    pub devices: Vec<Arc<Device>>,
    pub source: Source,
    builds: Mutex<HashMap<usize, Build>>,
    /// Number of live kernels (a program with kernels cannot be rebuilt).
    pub kernel_count: std::sync::atomic::AtomicU32,
    /// Program-scope `__global` variables, per device.
    pub global_vars: GlobalVarBuffers,
    /// Each kernel's pipelines per device, made ahead of its launches.
    pub pipelines: ProgramPipelines,
    /// clSetProgramSpecializationConstant's values by SpecId (IL programs),
    /// applied at the next build.
    spec_values: Mutex<HashMap<u32, Vec<u8>>>,
}

impl ClObject for Program {
    const TAG: u32 = tag(b"PROG");
    const INVALID: cl_int = CL_INVALID_PROGRAM;
    fn base(&self) -> &Base {
        &self.base
    }
}

fn key(d: &Device) -> usize {
    d as *const Device as usize
}

/// Whether `il` looks like a SPIR-V module of a version we take
/// (CL_DEVICE_IL_VERSION: 1.0 to 1.4), in either byte order.
pub fn is_supported_spirv(il: &[u8]) -> bool {
    if il.len() < 20 || il.len() & 3 != 0 {
        return false;
    }
    let word = |i: usize, le: bool| {
        let b: [u8; 4] = il[i * 4..i * 4 + 4].try_into().expect("4 bytes");
        if le {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        }
    };
    [true, false]
        .into_iter()
        .any(|le| word(0, le) == 0x0723_0203 && (0x0001_0000..=0x0001_0400).contains(&word(1, le)))
}

impl Program {
    pub fn new(context: Arc<Context>, source: Source) -> Arc<Program> {
        let devices = context.devices.clone();
        Self::with_devices(context, devices, source)
    }

    fn with_devices(
        context: Arc<Context>,
        devices: Vec<Arc<Device>>,
        source: Source,
    ) -> Arc<Program> {
        Arc::new(Program {
            base: Base::new(Self::TAG),
            context,
            devices,
            source,
            builds: Mutex::new(HashMap::new()),
            kernel_count: Default::default(),
            global_vars: Default::default(),
            pipelines: Default::default(),
            spec_values: Mutex::new(HashMap::new()),
        })
    }

    /// clCreateProgramWithBinary: `binaries[i]` for `devices[i]`. Returns the
    /// program, or CL_INVALID_BINARY with each binary's status
    /// (CL_SUCCESS or CL_INVALID_BINARY).
    pub fn from_binaries(
        context: Arc<Context>,
        devices: Vec<Arc<Device>>,
        binaries: &[&[u8]],
    ) -> Result<Arc<Program>, Vec<cl_int>> {
        let mut builds = HashMap::new();
        let mut status = Vec::new();
        for (d, bytes) in devices.iter().zip(binaries) {
            let decoded = compiler::decode_binary(bytes, &d.binary_caps()).and_then(|b| {
                // An application's executable: its kernels' SPIR-V is
                // validated before any of it reaches the driver.
                if let compiler::BinaryContent::Executable(p) = &b.content {
                    compiler::validate_executable(p)?;
                }
                Ok(b)
            });
            match decoded {
                Ok(b) => {
                    let mut build = Build {
                        options: b.options,
                        ..Default::default()
                    };
                    match b.content {
                        compiler::BinaryContent::CompiledObject(bc) => {
                            build.binary_type = CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT;
                            build.object = Some(Arc::new(bc));
                        }
                        compiler::BinaryContent::Library(bc) => {
                            build.binary_type = CL_PROGRAM_BINARY_TYPE_LIBRARY;
                            build.object = Some(Arc::new(bc));
                        }
                        compiler::BinaryContent::Executable(p) => {
                            build.binary_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
                            build.loaded = Some(Arc::new(p));
                        }
                    }
                    builds.insert(key(d), build);
                    status.push(CL_SUCCESS);
                }
                Err(_) => status.push(CL_INVALID_BINARY),
            }
        }
        if status.iter().any(|&s| s != CL_SUCCESS) {
            return Err(status);
        }
        let p = Self::with_devices(context, devices, Source::Binary);
        *p.builds.lock() = builds;
        Ok(p)
    }

    /// clSetProgramSpecializationConstant: `size` bytes at `value` (None
    /// for a NULL spec_value).
    pub fn set_spec_constant(
        &self,
        spec_id: u32,
        size: usize,
        value: Option<&[u8]>,
    ) -> CLResult<()> {
        // "CL_INVALID_PROGRAM if program is not a valid program object
        // created from an intermediate language (e.g. SPIR-V)."
        let Source::Il(il) = &self.source else {
            return Err(CL_INVALID_PROGRAM);
        };
        let sizes = compiler::spec_constant_sizes(il).ok_or(CL_INVALID_PROGRAM)?;
        // "CL_INVALID_SPEC_ID if spec_id is not a valid specialization
        // constant identifier."
        let expected = *sizes.get(&spec_id).ok_or(CL_INVALID_SPEC_ID)?;
        // "CL_INVALID_VALUE if spec_size does not match the size of the
        // specialization constant in the module" ("1 for boolean constants")
        // "or if spec_value is NULL."
        let value = value.ok_or(CL_INVALID_VALUE)?;
        if size != expected {
            return Err(CL_INVALID_VALUE);
        }
        self.spec_values.lock().insert(spec_id, value.to_vec());
        Ok(())
    }

    pub fn build_info(&self, d: &Device) -> Build {
        self.builds.lock().get(&key(d)).cloned().unwrap_or_default()
    }

    /// The binary of `d` in ferrocl's format (empty when there is none).
    pub fn binary(&self, d: &Device) -> Vec<u8> {
        let b = self.build_info(d);
        let content = if let Some(p) = b.output.as_ref().or(b.loaded.as_ref()) {
            compiler::BinaryContent::Executable((**p).clone())
        } else if let Some(bc) = &b.object {
            if b.binary_type == CL_PROGRAM_BINARY_TYPE_LIBRARY {
                compiler::BinaryContent::Library((**bc).clone())
            } else {
                compiler::BinaryContent::CompiledObject((**bc).clone())
            }
        } else {
            return Vec::new();
        };
        let binary = compiler::Binary {
            options: b.options,
            content,
        };
        compiler::encode_binary(&binary, &d.binary_caps())
    }

    /// clBuildProgram for each device; Err(CL_BUILD_PROGRAM_FAILURE) if any
    /// failed.
    pub fn build(&self, devices: &[Arc<Device>], options: &str) -> CLResult<()> {
        // "CL_INVALID_OPERATION if program was not created with
        // clCreateProgramWithSource, clCreateProgramWithIL or
        // clCreateProgramWithBinary."
        if matches!(self.source, Source::Linked) {
            return Err(CL_INVALID_OPERATION);
        }
        // "CL_INVALID_BINARY if program is created with
        // clCreateProgramWithBinary and devices listed in device_list do not
        // have a valid program binary loaded."
        if matches!(self.source, Source::Binary)
            && devices.iter().any(|d| {
                let b = self.build_info(d);
                b.loaded.is_none() && b.object.is_none() && b.output.is_none()
            })
        {
            return Err(CL_INVALID_BINARY);
        }
        let mut failed = None;
        for d in devices {
            let previous = self.build_info(d);
            self.builds.lock().insert(
                key(d),
                Build {
                    status: CL_BUILD_IN_PROGRESS,
                    options: options.to_string(),
                    ..previous.clone()
                },
            );
            let caps = d.compiler_caps();
            let r = match &self.source {
                Source::Text(s) => compiler::build_source(s, options, &caps),
                Source::Il(il) => {
                    // The application's specialization constants become
                    // plain constants (and leave ferrocl's SpecIds alone).
                    let values = self.spec_values.lock().clone();
                    match compiler::freeze_spec_constants(il, &values) {
                        Some(il) => compiler::build_il(&il, options, &caps),
                        None => compiler::build_il(il, options, &caps),
                    }
                }
                Source::Binary => match (
                    previous.loaded.clone().or(previous.output.clone()),
                    previous.object.clone(),
                ) {
                    // An executable binary: built already, nothing to compile.
                    (Some(p), _) => Ok((*p).clone()),
                    (None, Some(bc)) => compiler::target_caps(options, &caps).and_then(|caps| {
                        match compiler::link_objects(&[bc.as_slice()], "", &caps) {
                            Ok(compiler::Linked::Executable(p)) => Ok(p),
                            Ok(compiler::Linked::Library(_)) => {
                                Err(compiler::BuildError::internal("link made a library"))
                            }
                            Err(e) => Err(e),
                        }
                    }),
                    (None, None) => Err(compiler::BuildError::internal("no binary")),
                },
                Source::Linked => unreachable!("refused above"),
            };
            let r = r.and_then(|p| runnable(d, p, options));
            // A binary keeps the options it was built with (they decide,
            // e.g., non-uniform work-groups) unless new ones are given.
            let options = match &self.source {
                Source::Binary if options.is_empty() => previous.options.as_str(),
                _ => options,
            };
            let b = match r {
                Ok(p) => Build::executable(options, p),
                Err(e) => {
                    failed = Some(if e.invalid_options {
                        CL_INVALID_BUILD_OPTIONS
                    } else {
                        CL_BUILD_PROGRAM_FAILURE
                    });
                    Build::failed(options, e.log)
                }
            };
            self.executable_changed(d, &b);
            self.builds.lock().insert(key(d), b);
        }
        failed.map_or(Ok(()), Err)
    }

    /// `d`'s executable becomes `b`'s (none for a failed build or an
    /// object): its kernels' pipelines start being made ahead, those of
    /// the previous one are dropped.
    fn executable_changed(&self, d: &Arc<Device>, b: &Build) {
        match &b.output {
            Some(out) => self.pipelines.built(d, out),
            None => self.pipelines.forget(d),
        }
    }

    /// clCompileProgram for each device: the front end only; the compiled
    /// object stays per device. Err(CL_COMPILE_PROGRAM_FAILURE) if any
    /// failed, CL_INVALID_COMPILER_OPTIONS for bad options.
    pub fn compile(
        &self,
        devices: &[Arc<Device>],
        options: &str,
        headers: &[Header],
    ) -> CLResult<()> {
        // "CL_INVALID_OPERATION if program has no source or IL available,
        // i.e. it has not been created with clCreateProgramWithSource or
        // clCreateProgramWithIL."
        if !matches!(self.source, Source::Text(_) | Source::Il(_)) {
            return Err(CL_INVALID_OPERATION);
        }
        let mut header_texts = Vec::new();
        for h in headers {
            match &h.program.source {
                Source::Text(t) => header_texts.push((h.name.clone(), t.clone())),
                // A header program must hold source.
                _ => return Err(CL_INVALID_OPERATION),
            }
        }
        let mut failed = None;
        for d in devices {
            self.builds.lock().insert(
                key(d),
                Build {
                    status: CL_BUILD_IN_PROGRESS,
                    options: options.to_string(),
                    ..Default::default()
                },
            );
            let caps = d.compiler_caps();
            let object = match &self.source {
                Source::Il(il) => compiler::compile_il(il, options, &caps),
                Source::Text(source) => {
                    compiler::compile_source(source, options, &header_texts, &caps)
                }
                _ => unreachable!("refused above"),
            };
            let b = match object {
                Ok(o) => Build::bitcode(options, CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT, o),
                Err(e) => {
                    failed = Some(if e.invalid_options {
                        CL_INVALID_COMPILER_OPTIONS
                    } else {
                        CL_COMPILE_PROGRAM_FAILURE
                    });
                    Build::failed(options, e.log)
                }
            };
            self.executable_changed(d, &b);
            self.builds.lock().insert(key(d), b);
        }
        failed.map_or(Ok(()), Err)
    }

    /// clLinkProgram: a new program for `devices` linking `inputs`. The
    /// outer error is an argument error (no program); the inner result is
    /// the link's (CL_LINK_PROGRAM_FAILURE: the program exists and its log
    /// says why).
    pub fn link(
        context: Arc<Context>,
        devices: Vec<Arc<Device>>,
        inputs: &[Arc<Program>],
        options: &str,
    ) -> CLResult<(Arc<Program>, CLResult<()>)> {
        // "CL_INVALID_LINKER_OPTIONS if the linker options specified by
        // options are invalid."
        compiler::parse_link_options(options).map_err(|_| CL_INVALID_LINKER_OPTIONS)?;
        // Per device: "if all programs specified by input_programs contain
        // a compiled binary or library for the device [...], a link is
        // performed [...]; if none [...] no link is performed [...];
        // otherwise CL_INVALID_OPERATION".
        let mut per_device = Vec::new();
        for d in &devices {
            let objects: Vec<Option<Arc<Vec<u8>>>> = inputs
                .iter()
                .map(|p| {
                    let b = p.build_info(d);
                    // "CL_INVALID_OPERATION if the compilation or build of a
                    // program executable [...] has not completed."
                    if b.status == CL_BUILD_IN_PROGRESS {
                        return Err(CL_INVALID_OPERATION);
                    }
                    Ok(b.object
                        .filter(|_| b.status == CL_BUILD_SUCCESS || b.status == CL_BUILD_NONE))
                })
                .collect::<CLResult<_>>()?;
            let have = objects.iter().filter(|o| o.is_some()).count();
            if have == 0 {
                continue;
            }
            if have != objects.len() {
                return Err(CL_INVALID_OPERATION);
            }
            per_device.push((d.clone(), objects.into_iter().flatten().collect::<Vec<_>>()));
        }
        // No input holds a compiled object or library for any device.
        if per_device.is_empty() {
            return Err(CL_INVALID_PROGRAM);
        }
        let program = Self::with_devices(context, devices, Source::Linked);
        let mut result = Ok(());
        for (d, objects) in per_device {
            let slices: Vec<&[u8]> = objects.iter().map(|o| o.as_slice()).collect();
            let linked = compiler::link_objects(&slices, options, &d.compiler_caps());
            let linked = linked.and_then(|l| match l {
                compiler::Linked::Executable(p) => {
                    runnable(&d, p, options).map(compiler::Linked::Executable)
                }
                l => Ok(l),
            });
            let b = match linked {
                Ok(compiler::Linked::Executable(p)) => Build::executable(options, p),
                Ok(compiler::Linked::Library(o)) => {
                    Build::bitcode(options, CL_PROGRAM_BINARY_TYPE_LIBRARY, o)
                }
                Err(e) => {
                    result = Err(CL_LINK_PROGRAM_FAILURE);
                    Build::failed(options, e.log)
                }
            };
            program.executable_changed(&d, &b);
            program.builds.lock().insert(key(&d), b);
        }
        Ok((program, result))
    }

    /// Kernel names of the first successful build (they are the same on every device).
    pub fn kernel_names(&self) -> Option<Vec<String>> {
        let builds = self.builds.lock();
        self.devices.iter().find_map(|d| {
            builds
                .get(&key(d))
                .and_then(|b| b.output.as_ref())
                .map(|o| o.kernels.iter().map(|k| k.name.clone()).collect())
        })
    }

    /// Whether some device has an executable.
    pub fn any_built(&self) -> bool {
        let builds = self.builds.lock();
        builds.values().any(|b| b.output.is_some())
    }
}

/// `p` if device `d` can run it, else the build failure that says why
/// (`Device::descriptor_limits_error`).
fn runnable(
    d: &Device,
    p: compiler::Program,
    options: &str,
) -> Result<compiler::Program, compiler::BuildError> {
    let robust = super::robust::robust_error(&p, options, d.robust_buffers());
    match robust.or_else(|| d.descriptor_limits_error(&p)) {
        Some(e) => Err(compiler::BuildError::failure(format!("{}{e}", p.log))),
        None => Ok(p),
    }
}
