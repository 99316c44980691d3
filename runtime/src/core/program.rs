//! cl_program: source or IL, and one build per device (compiled by
//! `ferrocl_compiler`).

use std::collections::HashMap;
use std::sync::Arc;

use ferrocl_compiler as compiler;
use opencl_sys::*;
use parking_lot::Mutex;

use super::context::Context;
use super::device::Device;
use super::error::CLResult;
use super::object::{tag, Base, ClObject};

pub enum Source {
    Text(String),
    Il(Vec<u8>),
}

#[derive(Clone)]
pub struct Build {
    pub status: cl_build_status,
    pub log: String,
    pub options: String,
    pub binary_type: cl_program_binary_type,
    pub output: Option<Arc<compiler::Program>>,
}

impl Default for Build {
    fn default() -> Self {
        Build {
            status: CL_BUILD_NONE,
            log: String::new(),
            options: String::new(),
            binary_type: CL_PROGRAM_BINARY_TYPE_NONE,
            output: None,
        }
    }
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

impl Program {
    pub fn new(context: Arc<Context>, source: Source) -> Arc<Program> {
        let devices = context.devices.clone();
        Arc::new(Program {
            base: Base::new(Self::TAG),
            context,
            devices,
            source,
            builds: Mutex::new(HashMap::new()),
            kernel_count: Default::default(),
        })
    }

    pub fn build_info(&self, d: &Device) -> Build {
        self.builds.lock().get(&key(d)).cloned().unwrap_or_default()
    }

    /// Builds for each device; Err(CL_BUILD_PROGRAM_FAILURE) if any failed.
    pub fn build(&self, devices: &[Arc<Device>], options: &str) -> CLResult<()> {
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
            let r = match &self.source {
                Source::Text(s) => compiler::build_source(s, options, &caps),
                Source::Il(il) => compiler::build_il(il, options, &caps),
            };
            let b = match r {
                Ok(p) => Build {
                    status: CL_BUILD_SUCCESS,
                    log: p.log.clone(),
                    options: options.to_string(),
                    binary_type: CL_PROGRAM_BINARY_TYPE_EXECUTABLE,
                    output: Some(Arc::new(p)),
                },
                Err(e) => {
                    failed = Some(if e.invalid_options {
                        CL_INVALID_BUILD_OPTIONS
                    } else {
                        CL_BUILD_PROGRAM_FAILURE
                    });
                    Build {
                        status: CL_BUILD_ERROR,
                        log: e.log,
                        options: options.to_string(),
                        ..Default::default()
                    }
                }
            };
            self.builds.lock().insert(key(d), b);
        }
        failed.map_or(Ok(()), Err)
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

    pub fn any_built(&self) -> bool {
        let builds = self.builds.lock();
        builds.values().any(|b| b.status == CL_BUILD_SUCCESS)
    }
}
