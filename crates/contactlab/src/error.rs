//! The library's error type.
//!
//! `Err` is kept for malformed input (bad model files, wrong dimensions, non-finite data) and
//! I/O; a solver that runs but cannot conclude reports that in its status instead.

use std::path::PathBuf;

/// Errors returned by contactlab.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A model or data file is malformed: names the file, the key (or position) and what is allowed.
    #[error("{file}: {key}: {message}")]
    Input {
        /// The file (or `<input>` for in-memory data).
        file: String,
        /// The offending key, e.g. `contact[2].mu`, or a position such as `line 4`.
        key: String,
        /// What is wrong and what is allowed.
        message: String,
    },
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// In-memory data with inconsistent dimensions.
    #[error("dimension mismatch: {0}")]
    Dimension(String),
    /// In-memory data containing NaN or infinity.
    #[error("non-finite value in {0}")]
    NonFinite(String),
    /// A request outside what the method supports (e.g. enumeration beyond its size limit).
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// Writing a plot or data file failed.
    #[error("output: {0}")]
    Output(String),
}

impl Error {
    /// Shorthand for [`Error::Input`].
    pub fn input(file: impl Into<String>, key: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Input { file: file.into(), key: key.into(), message: message.into() }
    }

    /// Shorthand for [`Error::Io`].
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), source }
    }

    /// Whether the error is the caller's fault (bad input or usage) rather than an output failure.
    pub fn is_input_error(&self) -> bool {
        !matches!(self, Error::Output(_))
    }
}
