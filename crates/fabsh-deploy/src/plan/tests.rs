use super::*;
use crate::render::RuleHits;
use crate::repo::tests::{notebook, sample_dir};
use fabsh_model::deploy::{PartChange, PlanProblem};
use std::collections::BTreeMap;

fn sample(environment: Option<&str>) -> Repository {
    open(Some(&sample_dir()), None, environment).expect("sample opens")
}

fn part<'a>(rendered: &'a crate::render::Rendered, path: &str) -> &'a str {
    let part = rendered
        .parts
        .iter()
        .find(|p| p.path == path)
        .expect("part");
    std::str::from_utf8(&part.bytes).expect("text")
}

#[test]
fn offline_validation_of_the_sample_finds_no_errors() {
    let repo = sample(None);
    assert_eq!(repo.items.len(), 40);
    let plan = repo.plan(&repo.target(), &[], &BTreeSet::new(), &Options::default());
    let errors: Vec<_> = plan
        .problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    assert!(!plan.pending);
    // The first find_replace GUID appears in no notebook of the sample: reported, not fatal.
    assert!(
        plan.problems
            .iter()
            .any(|p| p.code == "UnmatchedRule" && p.message.contains("db52be81"))
    );
    // Lakehouses, the Eventhouse and the notebook's references put the notebook later.
    let level = |name: &str, t: &str| {
        plan.items
            .iter()
            .find(|r| r.display_name == name && r.item_type == t)
            .and_then(|r| r.level)
            .expect("level")
    };
    assert!(level("Example Notebook", "Notebook") > level("WithoutSchema", "Lakehouse"));
    assert!(level("Example Notebook", "Notebook") > level("SampleEventhouse", "Eventhouse"));
    assert!(level("TaxiDB", "KQLDatabase") > level("SampleEventhouse", "Eventhouse"));
    assert!(level("Run Hello World", "DataPipeline") > level("Hello World", "Notebook"));
    assert!(level("ABC", "SemanticModel") < level("ByConnection", "Report"));
    assert!(level("ABC", "SemanticModel") < level("ABC", "Report"));
}

#[test]
fn parameters_take_the_deployed_values_of_the_target() {
    let repo = sample(Some("PPE"));
    let mut target = repo.target();
    target.workspace_id = Some("11111111-2222-3333-4444-555555555555".into());
    let lakehouse = BTreeMap::from([("sqlendpoint".to_string(), "lh.sql.example".to_string())]);
    target.set_deployed(
        "Lakehouse",
        "WithoutSchema",
        "aaaaaaaa-0000-0000-0000-000000000001",
        lakehouse,
    );
    let eventhouse = BTreeMap::from([(
        "queryserviceuri".to_string(),
        "https://eh.example".to_string(),
    )]);
    target.set_deployed(
        "Eventhouse",
        "SampleEventhouse",
        "aaaaaaaa-0000-0000-0000-000000000002",
        eventhouse,
    );
    target.set_deployed(
        "Notebook",
        "Hello World",
        "aaaaaaaa-0000-0000-0000-000000000003",
        BTreeMap::new(),
    );
    target.set_deployed(
        "SemanticModel",
        "ABC",
        "aaaaaaaa-0000-0000-0000-000000000004",
        BTreeMap::new(),
    );
    let renderer = repo.renderer(&target);
    let mut hits = RuleHits::new(&repo.params);
    let index = |name: &str, t: &str| {
        repo.items
            .iter()
            .position(|i| i.display_name == name && i.item_type == t)
            .expect("item")
    };

    let notebook = renderer.render(index("Example Notebook", "Notebook"), &mut hits);
    let text = part(&notebook, "notebook-content.py");
    assert!(
        text.contains(r#""default_lakehouse": "aaaaaaaa-0000-0000-0000-000000000001""#),
        "{text}"
    );
    assert!(
        text.contains(
            r#""default_lakehouse_workspace_id": "11111111-2222-3333-4444-555555555555""#
        )
    );
    assert!(text.contains("endpoint: lh.sql.example"));
    assert!(text.contains("query URI: https://eh.example"));
    assert!(!text.contains("f3b9c1e2-7d4a-4b3e-9f2a-1c6e8d9a7b3c"));
    assert!(
        notebook.pending.is_empty() && notebook.problems.is_empty(),
        "{notebook:?}"
    );

    let pipeline = renderer.render(index("Run Hello World", "DataPipeline"), &mut hits);
    let content: Value =
        serde_json::from_str(part(&pipeline, "pipeline-content.json")).expect("json");
    let activity = &content["properties"]["activities"][0]["typeProperties"];
    assert_eq!(
        activity["notebookId"],
        "aaaaaaaa-0000-0000-0000-000000000003"
    );
    assert_eq!(
        activity["workspaceId"],
        "11111111-2222-3333-4444-555555555555"
    );
    let schedules: Value = serde_json::from_str(part(&pipeline, ".schedules")).expect("json");
    assert_eq!(schedules["schedules"][0]["enabled"], false);

    let report = renderer.render(index("ByConnection", "Report"), &mut hits);
    let pbir = part(&report, "definition.pbir");
    assert!(
        pbir.contains("myorg/11111111-2222-3333-4444-555555555555;initial catalog=ABC;"),
        "{pbir}"
    );
    assert!(pbir.contains("semanticmodelid=aaaaaaaa-0000-0000-0000-000000000004"));
    let abc = renderer.render(index("ABC", "Report"), &mut hits);
    let pbir: Value = serde_json::from_str(part(&abc, "definition.pbir")).expect("json");
    assert_eq!(
        pbir["datasetReference"]["byConnection"]["pbiModelDatabaseName"],
        "aaaaaaaa-0000-0000-0000-000000000004"
    );

    let vars = renderer.render(index("Vars", "VariableLibrary"), &mut hits);
    let variables: Value = serde_json::from_str(part(&vars, "variables.json")).expect("json");
    assert_eq!(
        variables["variables"][1]["value"],
        "contoso-ppe.database.windows.net"
    );
}

#[test]
fn prod_overrides_reach_the_value_set_by_its_file_path() {
    let repo = sample(Some("PROD"));
    let target = repo.target();
    let renderer = repo.renderer(&target);
    let mut hits = RuleHits::new(&repo.params);
    let vars = repo
        .items
        .iter()
        .position(|i| i.display_name == "Vars")
        .expect("vars");
    let rendered = renderer.render(vars, &mut hits);
    let prod: Value = serde_json::from_str(part(&rendered, "valueSets/PROD.json")).expect("json");
    assert_eq!(prod["variableOverrides"][0]["value"], "PROD_ENV");
    assert_eq!(
        prod["variableOverrides"][1]["value"],
        "contoso-production-override.database.windows.net"
    );
    let variables: Value = serde_json::from_str(part(&rendered, "variables.json")).expect("json");
    assert_eq!(variables["variables"][0]["value"], "PROD");
}

#[test]
fn parts_compare_after_normalising_and_diff_as_text() {
    let part = |path: &str, bytes: &[u8]| RepoPart {
        path: path.into(),
        bytes: bytes.to_vec(),
    };
    let ours = vec![part("a.json", b"{\"x\": 1, \"y\": [2]}")];
    let same = vec![part("a.json", b"{\r\n  \"y\": [2],\r\n  \"x\": 1\r\n}")];
    assert!(compare_parts(&same, &ours).is_empty());
    let text_a = vec![part("n.py", b"print(1)\r\n")];
    let text_b = vec![part("n.py", b"print(2)\n")];
    let changes = compare_parts(&text_a, &text_b);
    assert_eq!(changes, [("n.py".to_string(), PartChange::Changed)]);
    let diff = part_diff("n.py", Some(&text_a[0].bytes), Some(&text_b[0].bytes)).diff;
    assert!(
        diff.contains("-print(1)") && diff.contains("+print(2)"),
        "{diff}"
    );
}

/// A repository of one notebook, `Nb`, whose part holds `content`, with `parameters` as its
/// parameter.yml.
fn one_notebook(content: &str, parameters: &str) -> tempfile::TempDir {
    let root = tempfile::tempdir().expect("temp dir");
    notebook(root.path(), content);
    std::fs::write(root.path().join("parameter.yml"), parameters).expect("parameter.yml");
    root
}

fn errors_of(plan: &Plan) -> Vec<&PlanProblem> {
    plan.problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .collect()
}

#[test]
fn a_rule_that_would_blow_a_part_up_is_refused_before_it_runs() {
    let thousand = "x".repeat(1000);
    // 1 MB of `a`, each replaced by 1,000 bytes: 1 GB.
    let text = format!("# Fabric notebook source\n{}\n", "a".repeat(1 << 20));
    let parameters = format!(
        "find_replace:\n  - find_value: \"a\"\n    replace_value:\n      _ALL_: \"{thousand}\"\n"
    );
    let root = one_notebook(&text, &parameters);
    let repo = open(Some(root.path()), None, Some("PROD")).expect("opens");
    let plan = repo.plan(&repo.target(), &[], &BTreeSet::new(), &Options::default());
    let errors = errors_of(&plan);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0].code, "PartTooLarge");
    assert_eq!(
        errors[0].message,
        "find_replace rule 1 (find_value \"a\") would make Nb.Notebook/notebook-content.py larger than the 96 MiB one part may hold (what fits in one definition request): not applied"
    );
    // A JSONPath matching every element of a large array, each set to 1,000 bytes.
    let array = format!("[{}1]", "1,".repeat(200_000));
    let parameters = format!(
        "key_value_replace:\n  - find_key: \"$[*]\"\n    replace_value:\n      _ALL_: \"{thousand}\"\n"
    );
    let root = one_notebook(&array, &parameters);
    let repo = open(Some(root.path()), None, Some("PROD")).expect("opens");
    let plan = repo.plan(&repo.target(), &[], &BTreeSet::new(), &Options::default());
    let errors = errors_of(&plan);
    assert!(
        errors.iter().any(|p| p.code == "PartTooLarge"
            && p.message
                .starts_with("key_value_replace of find_key \"$[*]\" would make")),
        "{errors:#?}"
    );
}

#[test]
fn env_values_are_read_only_when_allowed_and_never_shown() {
    let parameters = "find_replace:\n  - find_value: \"TOKEN_HERE\"\n    replace_value:\n      PROD: \"$ENV:DEPLOY_SECRET\"\n";
    let root = one_notebook("# Fabric notebook source\nkey = 'TOKEN_HERE'\n", parameters);
    let mut repo = open(Some(root.path()), None, Some("PROD")).expect("opens");
    let asked = std::sync::Mutex::new(Vec::new());
    let lookup = |name: &str| {
        asked.lock().expect("lock").push(name.to_string());
        Some("hunter2-secret".to_string())
    };
    // Not allowed: an error naming the flag, and nothing read.
    repo.read_env(EnvAccess::Off, lookup);
    assert!(asked.lock().expect("lock").is_empty());
    let plan = repo.plan(&repo.target(), &[], &BTreeSet::new(), &Options::default());
    let refused = errors_of(&plan);
    assert_eq!(refused.len(), 1, "{refused:#?}");
    assert_eq!(refused[0].code, "EnvironmentVariableNotAllowed");
    assert!(refused[0].message.contains("--env-vars DEPLOY_SECRET"));
    assert_eq!(repo.env_problems().len(), 1);
    // Allowed: the value is rendered, and only the variable named was read.
    repo.read_env(
        EnvAccess::Named(["DEPLOY_SECRET".to_string()].into()),
        lookup,
    );
    assert_eq!(*asked.lock().expect("lock"), ["DEPLOY_SECRET"]);
    assert!(repo.env_problems().is_empty());
    let mut target = repo.target();
    let rendered = repo
        .renderer(&target)
        .render(0, &mut RuleHits::new(&repo.params));
    assert!(part(&rendered, "notebook-content.py").contains("key = 'hunter2-secret'"));
    // A diff against a deployed item that holds the value already shows the variable only.
    target.workspace_id = Some("11111111-2222-3333-4444-555555555555".into());
    let deployed = Deployed {
        id: "aaaaaaaa-0000-0000-0000-000000000001".into(),
        item_type: "Notebook".into(),
        display_name: "Nb".into(),
        description: None,
        folder: String::new(),
        parts: Some(vec![RepoPart {
            path: "notebook-content.py".into(),
            bytes: b"# Fabric notebook source\nkey = 'hunter2-secret'\nold = 1\n".to_vec(),
        }]),
    };
    let options = Options {
        diff: true,
        ..Options::default()
    };
    let plan = repo.plan(&target, &[deployed], &BTreeSet::new(), &options);
    let shown = serde_json::to_string(&plan).expect("json");
    assert!(!shown.contains("hunter2"), "{shown}");
    let diff = &plan.items[0].diffs[0].diff;
    assert!(
        diff.contains("+key = '$ENV:DEPLOY_SECRET'")
            && diff.contains("-key = '$ENV:DEPLOY_SECRET'")
            && diff.contains("-old = 1"),
        "{diff}"
    );
}

#[test]
fn two_workspace_items_of_a_repository_items_type_and_name_refuse_the_plan() {
    // Eventhouses may share a name on the service; deploy pairs by type and name.
    let root = tempfile::tempdir().expect("temp dir");
    let dir = root.path().join("Events.Eventhouse");
    std::fs::create_dir_all(&dir).expect("item dir");
    let platform = serde_json::json!({
        "metadata": {"type": "Eventhouse", "displayName": "Events"},
        "config": {"version": "2.0", "logicalId": "00000000-0000-0000-0000-000000000000"},
    });
    std::fs::write(dir.join(".platform"), platform.to_string()).expect(".platform");
    let repo = open(Some(root.path()), None, None).expect("opens");
    let mut target = repo.target();
    target.workspace_id = Some("11111111-2222-3333-4444-555555555555".into());
    let live = |id: &str| Deployed {
        id: id.into(),
        item_type: "Eventhouse".into(),
        display_name: "Events".into(),
        description: None,
        folder: String::new(),
        parts: None,
    };
    let one = [live("aaaaaaaa-0000-0000-0000-000000000001")];
    let plan = repo.plan(&target, &one, &BTreeSet::new(), &Options::default());
    assert!(errors_of(&plan).is_empty(), "{:#?}", plan.problems);
    let two = [one[0].clone(), live("aaaaaaaa-0000-0000-0000-000000000002")];
    let plan = repo.plan(&target, &two, &BTreeSet::new(), &Options::default());
    let errors = errors_of(&plan);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0].code, "AmbiguousItemName");
    assert_eq!(errors[0].subject.as_deref(), Some("Events.Eventhouse"));
    assert!(
        errors[0]
            .message
            .contains("aaaaaaaa-0000-0000-0000-000000000002"),
        "{}",
        errors[0].message
    );
}
