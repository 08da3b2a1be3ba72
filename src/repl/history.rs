//! REPL history: kept in the state dir across sessions, without lines that carry secrets.

use std::path::PathBuf;

/// Words that mark a line as carrying a secret; such lines are never written to history.
const SECRET_MARKERS: &[&str] = &[
    "token",
    "secret",
    "password",
    "passwd",
    "llm-key",
    "llm_key",
    "api-key",
    "api_key",
    "apikey",
    "authorization",
    "bearer",
];

/// The history file: `$XDG_STATE_HOME/fabsh/history` (or the platform's equivalent).
pub(super) fn path() -> Option<PathBuf> {
    let dir = dirs::state_dir().or_else(dirs::data_local_dir)?;
    Some(dir.join("fabsh").join("history"))
}

/// True when the line may carry a secret (`--llm-key ...`, a token, a password).
pub(super) fn is_secret(line: &str) -> bool {
    let lower = line.to_lowercase();
    SECRET_MARKERS.iter().any(|marker| lower.contains(marker))
}

#[cfg(test)]
mod tests {
    use super::is_secret;

    #[test]
    fn lines_with_secrets_are_recognised() {
        assert!(is_secret("data-agent configure --llm-key sk-123"));
        assert!(is_secret("let t = env::get(\"FABSH_TOKEN\")"));
        assert!(is_secret("let s = #{client_secret: \"x\"}"));
        assert!(!is_secret("item list -w Demo"));
    }
}
