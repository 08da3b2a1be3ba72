//! Definition layouts per item type (reference §8.3, §8.4): formats, required and canonical
//! part paths, part size limits; and the path patterns they are written in.

/// The definition layout of one type (reference §8.3, §8.4). Path patterns are `/`-separated;
/// `*` matches within one segment, a final `**` matches any number of segments.
#[derive(Debug, Clone, Copy)]
pub struct PartRules {
    /// The `format` values the type accepts; empty when none is named.
    pub formats: &'static [&'static str],
    /// Parts that must be present: each entry is satisfied by any one of its patterns.
    pub required: &'static [Required],
    /// Every path the type is known to use; other paths get a warning.
    pub canonical: &'static [&'static str],
    /// Largest accepted part, in bytes, where the service documents one.
    pub max_part_bytes: Option<usize>,
}

impl PartRules {
    /// Whether `path` is one the type is known to use.
    pub fn is_canonical(&self, path: &str) -> bool {
        self.canonical
            .iter()
            .any(|pattern| path_matches(pattern, path))
    }
}

/// One required part: any of `any_of`, checked only when the definition's `format` is
/// `when_format` (or always, when `None`).
#[derive(Debug, Clone, Copy)]
pub struct Required {
    pub when_format: Option<&'static str>,
    pub any_of: &'static [&'static str],
}

const fn always(any_of: &'static [&'static str]) -> Required {
    Required {
        when_format: None,
        any_of,
    }
}

const fn for_format(format: &'static str, any_of: &'static [&'static str]) -> Required {
    Required {
        when_format: Some(format),
        any_of,
    }
}

/// Notebook source files, by language, in the fabricGitSource layout.
const NOTEBOOK_SOURCES: &[&str] = &[
    "notebook-content.py",
    "notebook-content.sql",
    "notebook-content.scala",
    "notebook-content.r",
];

/// Notebook files in the ipynb layout (`artifact.content.ipynb` in older docs).
const NOTEBOOK_IPYNB: &[&str] = &["notebook-content.ipynb", "artifact.content.ipynb"];

/// Every notebook file of either layout.
const NOTEBOOK_FILES: &[&str] = &[
    "notebook-content.py",
    "notebook-content.sql",
    "notebook-content.scala",
    "notebook-content.r",
    "notebook-content.ipynb",
    "artifact.content.ipynb",
];

pub(super) static NOTEBOOK_PARTS: PartRules = PartRules {
    formats: &["ipynb", "fabricGitSource"],
    required: &[
        for_format("fabricGitSource", NOTEBOOK_SOURCES),
        for_format("ipynb", NOTEBOOK_IPYNB),
        always(NOTEBOOK_FILES),
    ],
    canonical: NOTEBOOK_FILES,
    max_part_bytes: None,
};

pub(super) static REPORT_PARTS: PartRules = PartRules {
    formats: &["PBIR-Legacy", "PBIR"],
    required: &[
        always(&["definition.pbir"]),
        for_format("PBIR-Legacy", &["report.json"]),
        for_format("PBIR", &["definition/report.json"]),
        always(&["report.json", "definition/report.json"]),
    ],
    canonical: &[
        "definition.pbir",
        "report.json",
        "definition/**",
        "StaticResources/**",
        "CustomVisuals/**",
        "semanticModelDiagramLayout.json",
        "mobileState.json",
    ],
    max_part_bytes: None,
};

pub(super) static SEMANTIC_MODEL_PARTS: PartRules = PartRules {
    formats: &["TMDL", "TMSL"],
    required: &[
        always(&["definition.pbism"]),
        for_format("TMDL", &["definition/model.tmdl"]),
        for_format("TMSL", &["model.bim"]),
        always(&["definition/model.tmdl", "model.bim"]),
    ],
    canonical: &[
        "definition.pbism",
        "model.bim",
        "definition/**",
        "diagramLayout.json",
        "Copilot/**",
        ".pbi/**",
    ],
    max_part_bytes: None,
};

pub(super) static SPARK_JOB_PARTS: PartRules = PartRules {
    formats: &["SparkJobDefinitionV1", "SparkJobDefinitionV2"],
    required: &[always(&["SparkJobDefinitionV1.json"])],
    canonical: &["SparkJobDefinitionV1.json", "Main/**", "Libs/**"],
    max_part_bytes: None,
};

pub(super) static PIPELINE_PARTS: PartRules = PartRules {
    formats: &[],
    required: &[always(&["pipeline-content.json"])],
    canonical: &["pipeline-content.json"],
    max_part_bytes: None,
};

pub(super) static LAKEHOUSE_PARTS: PartRules = PartRules {
    formats: &[],
    required: &[always(&["lakehouse.metadata.json"])],
    canonical: &[
        "lakehouse.metadata.json",
        "shortcuts.metadata.json",
        "data-access-roles.json",
        "alm.settings.json",
    ],
    max_part_bytes: None,
};

pub(super) static ENVIRONMENT_PARTS: PartRules = PartRules {
    formats: &[],
    required: &[],
    canonical: &[
        "Libraries/PublicLibraries/environment.yml",
        "Libraries/CustomLibraries/*",
        "Setting/Sparkcompute.yml",
    ],
    max_part_bytes: None,
};

/// Each data agent part is at most 5 MiB (reference §8.4).
const DATA_AGENT_MAX_PART: usize = 5 * 1024 * 1024;

pub(super) static DATA_AGENT_PARTS: PartRules = PartRules {
    formats: &[],
    required: &[
        always(&["Files/Config/data_agent.json"]),
        always(&["Files/Config/draft/stage_config.json"]),
    ],
    canonical: &[
        "Files/Config/data_agent.json",
        "Files/Config/draft/stage_config.json",
        "Files/Config/draft/*/datasource.json",
        "Files/Config/draft/*/fewshots.json",
        "Files/Config/publish_info.json",
        "Files/Config/published/**",
    ],
    max_part_bytes: Some(DATA_AGENT_MAX_PART),
};

/// Whether `path` matches a part pattern of [`PartRules`].
pub fn path_matches(pattern: &str, path: &str) -> bool {
    let pattern: Vec<&str> = pattern.split('/').collect();
    let path: Vec<&str> = path.split('/').collect();
    segments_match(&pattern, &path)
}

fn segments_match(pattern: &[&str], path: &[&str]) -> bool {
    match (pattern.first(), path.first()) {
        (Some(&"**"), _) => !path.is_empty(),
        (Some(head), Some(segment)) => {
            glob_segment(head.as_bytes(), segment.as_bytes())
                && segments_match(&pattern[1..], &path[1..])
        }
        (None, None) => true,
        _ => false,
    }
}

fn glob_segment(pattern: &[u8], text: &[u8]) -> bool {
    match pattern.split_first() {
        None => text.is_empty(),
        Some((b'*', rest)) => (0..=text.len()).any(|skip| glob_segment(rest, &text[skip..])),
        Some((head, rest)) => text
            .split_first()
            .is_some_and(|(first, tail)| first == head && glob_segment(rest, tail)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_patterns_match_segments_and_trees() {
        assert!(path_matches(
            "definition/**",
            "definition/pages/p1/page.json"
        ));
        assert!(!path_matches("definition/**", "definition"));
        assert!(path_matches(
            "Files/Config/draft/*/datasource.json",
            "Files/Config/draft/lakehouse-tables-Sales/datasource.json"
        ));
        assert!(!path_matches(
            "Files/Config/draft/*/datasource.json",
            "Files/Config/draft/a/b/datasource.json"
        ));
        assert!(path_matches(
            "Libraries/CustomLibraries/*",
            "Libraries/CustomLibraries/x.whl"
        ));
        assert!(!path_matches("report.json", "definition/report.json"));
    }
}
