//! The library's error type.
//!
//! Three kinds of failure never mix (the command-line tool maps them to its exit codes):
//! * **input** — malformed data or a request outside what a method supports: [`Error::Input`]
//!   (a file's key), [`Error::Model`] (a key of a model built in memory, or a model outside what
//!   a method supports), [`Error::Argument`] (an option of an analysis), [`Error::Io`] when
//!   reading, [`Error::Dimension`], [`Error::NonFinite`]: the caller's to fix (exit 2);
//! * **numerical** — an analysis that needs an answer from a solver that could not give one
//!   ([`Error::Numerical`], exit 3);
//! * **output** — writing a file failed ([`Error::Output`], exit 3).
//!
//! Solvers themselves (LCP, LP, conic, the hybrid driver) do not fail: they return a status
//! (solved / infeasible with certificate / iteration limit / numerical trouble) and a residual
//! the caller can check; a bound on work that is hit is such a status, not an error.

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
    /// An option of an analysis is outside its allowed range: names the option (as the Python
    /// API spells it, `t_max`; the command line shows it as `--t-max`) and what is allowed.
    #[error("{name}: {message}")]
    Argument {
        /// The option.
        name: String,
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
    /// A model (built in memory, or read and then checked) that is physically invalid or outside
    /// what a method supports (e.g. a singular geometry, a friction law a theorem does not cover,
    /// enumeration beyond its size limit): names the model's key. A reader turns it into an
    /// [`Error::Input`] naming its file ([`Error::in_file`]).
    #[error("{key}: {message}")]
    Model {
        /// The model's key (or aspect, such as `geometry`).
        key: String,
        /// What is wrong and what is supported.
        message: String,
    },
    /// Writing a plot or data file failed.
    #[error("output: {0}")]
    Output(String),
    /// A solver could not conclude where the analysis needs an answer (numerical trouble, an
    /// iteration limit); not the caller's fault.
    #[error("numerical failure: {0}")]
    Numerical(String),
}

impl Error {
    /// Shorthand for [`Error::Model`].
    pub fn model(key: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Model { key: key.into(), message: message.into() }
    }

    /// Shorthand for [`Error::Argument`].
    pub fn argument(name: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Argument { name: name.into(), message: message.into() }
    }

    /// A model's error as an error of the file it was read from (the key kept); other errors
    /// unchanged.
    pub fn in_file(self, file: &str) -> Self {
        match self {
            Error::Model { key, message } => Error::Input { file: file.into(), key, message },
            e => e,
        }
    }

    /// Shorthand for [`Error::Input`].
    pub fn input(file: impl Into<String>, key: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Input { file: file.into(), key: key.into(), message: message.into() }
    }

    /// Shorthand for [`Error::Io`] (reading: the caller's input).
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), source }
    }

    /// A failure to write `path`: an [`Error::Output`] naming the file, with the system's message
    /// once.
    pub fn write(path: impl AsRef<std::path::Path>, source: std::io::Error) -> Self {
        Error::Output(format!("{}: {source}", path.as_ref().display()))
    }

    /// The setting an error names and what is wrong with it: an [`Error::Argument`] keeps both;
    /// any other error has no name and its text as the message (for the stop reasons that
    /// report an invalid setting).
    pub fn into_setting(self) -> (String, String) {
        match self {
            Error::Argument { name, message } => (name, message),
            other => (String::new(), other.to_string()),
        }
    }

    /// Whether the error is the caller's fault (bad input or usage) rather than an output or
    /// numerical failure.
    pub fn is_input_error(&self) -> bool {
        !matches!(self, Error::Output(_) | Error::Numerical(_))
    }

    /// Whether a solver failed to conclude (exit code 3 in the command-line tool).
    pub fn is_numerical(&self) -> bool {
        matches!(self, Error::Numerical(_))
    }
}

/// `v` if it is a finite number `> 0`, else an [`Error::Argument`] naming `name` (a setting
/// or an option).
pub fn positive(name: &str, v: f64) -> Result<f64, Error> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(Error::argument(name, format!("must be a finite number > 0 (got {v})")))
    }
}

/// `v` if it lies in the open interval `(0, 1)` (a relative tolerance), else an
/// [`Error::Argument`] naming `name`.
pub fn fraction(name: &str, v: f64) -> Result<f64, Error> {
    if v > 0.0 && v < 1.0 {
        Ok(v)
    } else {
        Err(Error::argument(name, format!("must be a number in (0, 1) (got {v})")))
    }
}

/// `v` if it is at least 1 (a count or a bound on work), else an [`Error::Argument`].
pub fn at_least_one(name: &str, v: usize) -> Result<usize, Error> {
    if v >= 1 {
        Ok(v)
    } else {
        Err(Error::argument(name, "must be at least 1 (got 0)"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_numerical_and_output_failures_are_distinct() {
        let num = Error::Numerical("fixture LP ended with status numerical-error".into());
        assert!(num.is_numerical() && !num.is_input_error());
        assert!(num.to_string().starts_with("numerical failure: "));
        let out = Error::Output("report.md: permission denied".into());
        assert!(!out.is_numerical() && !out.is_input_error());
        let inp = Error::input("m.toml", "mu", "must be >= 0");
        assert!(inp.is_input_error() && !inp.is_numerical());
        assert_eq!(inp.to_string(), "m.toml: mu: must be >= 0");
    }
}
