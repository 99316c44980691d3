//! How a build fails: `BuildError`, the build log and whether the options
//! were to blame.

/// A failed build: `log` is what clGetProgramBuildInfo(CL_PROGRAM_BUILD_LOG)
/// shows (clang's diagnostics with file:line:col, or a line naming the
/// construct the lowering cannot handle and its source line).
#[derive(Clone, Debug, thiserror::Error)]
#[error("{log}")]
pub struct BuildError {
    pub log: String,
    /// True when the build options themselves were invalid
    /// (CL_INVALID_BUILD_OPTIONS rather than CL_BUILD_PROGRAM_FAILURE).
    pub invalid_options: bool,
}

impl BuildError {
    /// A build failure (CL_BUILD_PROGRAM_FAILURE) with this log.
    pub fn failure(log: impl Into<String>) -> Self {
        BuildError {
            log: log.into(),
            invalid_options: false,
        }
    }

    /// Invalid build options (CL_INVALID_BUILD_OPTIONS).
    pub fn options(log: impl Into<String>) -> Self {
        BuildError {
            log: log.into(),
            invalid_options: true,
        }
    }

    /// A bug of ours (invalid output, panic): the log says so.
    pub fn internal(msg: impl std::fmt::Display) -> Self {
        BuildError::failure(format!("internal compiler error: {msg}"))
    }
}
