//! The crate's one error type: everything that stops reading a repository or its files.

use crate::file::FileError;

/// Which input an error is about, so a front end can name the flag that gave it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// The config file (`config.yml`).
    Config,
    /// The parameter file (`parameter.yml`) or a template it extends.
    Parameters,
    /// The repository folder and the items' files.
    Repository,
    /// The scope flags (`--exclude`); the error names the flag.
    Scope,
    /// The promotion file (`promote.yml`, `--prepare`).
    Promotion,
}

/// Why a repository, its config or its parameters cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read (missing, not a regular file, over its cap).
    #[error("{path}: {source}")]
    Read {
        input: Input,
        path: String,
        source: FileError,
    },
    /// A file is not what its format requires, or reading it would leave what may be read.
    #[error("{path}: {message}")]
    Invalid {
        input: Input,
        path: String,
        message: String,
    },
    /// The folder given as the repository is not one (see [`crate::repo::LAYOUT`]).
    #[error("{path}: {message}")]
    NotRepository { path: String, message: String },
}

impl Error {
    pub(crate) fn invalid(
        input: Input,
        path: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Error::Invalid {
            input,
            path: path.into(),
            message: message.into(),
        }
    }

    pub(crate) fn read(
        input: Input,
        path: impl Into<String>,
        source: impl Into<FileError>,
    ) -> Self {
        Error::Read {
            input,
            path: path.into(),
            source: source.into(),
        }
    }

    pub(crate) fn not_repository(path: impl Into<String>, message: impl Into<String>) -> Self {
        Error::NotRepository {
            path: path.into(),
            message: message.into(),
        }
    }

    /// The input the error is about.
    pub fn input(&self) -> Input {
        match self {
            Error::Read { input, .. } | Error::Invalid { input, .. } => *input,
            Error::NotRepository { .. } => Input::Repository,
        }
    }
}

/// The crate's result.
pub type Result<T> = std::result::Result<T, Error>;
