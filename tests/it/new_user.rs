//! What a new user trips over (issue 27): messages that name what is missing, suggestions for
//! near-miss names, fab's habits, signing in, and the rest of a first afternoon with fabsh.
//! Names come from local Fabric's demo data (the Demo workspace: SalesLakehouse, Welcome,
//! Sales Model, Sales Report).

use crate::support::{Home, Server, shared};

fn server() -> &'static Server {
    shared(module_path!())
}

#[test]
fn one_name_for_an_item_command_names_the_missing_item() {
    let run = server().fabsh(&["item", "show", "Demo"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("the item is missing") && run.stderr.contains("Demo/ITEM"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("needs --workspace"), "{}", run.stderr);
}

#[test]
fn a_near_miss_workspace_name_gets_a_suggestion() {
    let run = server().fabsh(&["item", "ls", "-w", "Dmo"]);
    assert_eq!(run.code, 4, "{}", run.stderr);
    assert!(
        run.stderr.contains("did you mean \"Demo\"?"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_misspelt_type_gets_one_message() {
    let run = server().fabsh(&["item", "ls", "-w", "Demo", "--type", "Notbook"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("did you mean Notebook?"),
        "{}",
        run.stderr
    );
    assert!(
        !run.stderr.contains("passed to the service"),
        "{}",
        run.stderr
    );
}

#[test]
fn fab_first_commands_say_what_to_type_instead() {
    let home = Home::new();
    let run = home.run(&["ls"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("fabsh workspace ls") && run.stderr.contains("fabsh item ls -w"),
        "{}",
        run.stderr
    );
    let run = home.run(&["cd", "Demo"]);
    assert!(run.stderr.contains("-w WORKSPACE"), "{}", run.stderr);
}

#[test]
fn auth_status_signed_out_is_an_answer_unless_checked() {
    let home = Home::new();
    let run = home.run(&["auth", "status"]);
    let status = run.ok_json();
    assert_eq!(status["signedIn"], false);
    assert!(run.stderr.contains("not signed in"), "{}", run.stderr);
    assert!(run.stderr.contains("fabsh auth login"), "{}", run.stderr);
    let checked = home.run(&["auth", "status", "--check"]);
    assert_eq!(checked.code, 3, "{}", checked.stderr);
    let signed_in = server().fabsh(&["auth", "status"]).ok_json();
    assert_eq!(signed_in["signedIn"], true);
}
