//! Workspace roles, as the service names them.

/// A workspace role, ordered from least to most privileged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    /// Read only.
    Viewer,
    /// Create, update and soft-delete items and folders.
    Contributor,
    /// Contributor plus workspace settings.
    Member,
    /// Everything, including hard delete, workspace delete and role management.
    Admin,
}

/// The wire names, from least to most privileged.
pub const ROLE_NAMES: &[&str] = &["Viewer", "Contributor", "Member", "Admin"];

const ALL: [Role; 4] = [Role::Viewer, Role::Contributor, Role::Member, Role::Admin];

impl Role {
    /// Parses a role name, case-insensitively.
    pub fn parse(text: &str) -> Option<Role> {
        ALL.into_iter()
            .find(|r| r.as_str().eq_ignore_ascii_case(text))
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        ROLE_NAMES[self as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_to_their_roles() {
        for role in ALL {
            assert_eq!(Role::parse(&role.as_str().to_lowercase()), Some(role));
        }
        assert_eq!(Role::parse("Owner"), None);
        assert!(Role::Viewer < Role::Admin);
    }
}
