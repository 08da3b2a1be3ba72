use super::*;

fn parsed(text: &str) -> (String, String, String) {
    let path = LakePath::parse(text, "PATH").expect(text);
    (path.workspace, path.item, path.inner)
}

fn triple(workspace: &str, item: &str, inner: &str) -> (String, String, String) {
    (workspace.into(), item.into(), inner.into())
}

#[test]
fn every_written_form_names_the_same_place() {
    let expected = triple("Demo", "SalesLakehouse.Lakehouse", "Files/raw/orders.csv");
    for text in [
        "Demo/SalesLakehouse.Lakehouse/Files/raw/orders.csv",
        "Demo.Workspace/SalesLakehouse.Lakehouse/Files/raw/orders.csv",
        "/Demo/SalesLakehouse.Lakehouse/Files/raw/orders.csv",
        "abfss://Demo@onelake.dfs.fabric.microsoft.com/SalesLakehouse.Lakehouse/Files/raw/orders.csv",
        "https://onelake.dfs.fabric.microsoft.com/Demo/SalesLakehouse.Lakehouse/Files/raw/orders.csv",
        "https://onelake.blob.fabric.microsoft.com/Demo/SalesLakehouse.Lakehouse/Files/raw/orders.csv",
    ] {
        assert_eq!(parsed(text), expected, "{text}");
    }
    assert_eq!(
        parsed("Demo/SalesLakehouse/Files/raw/"),
        triple("Demo", "SalesLakehouse", "Files/raw")
    );
    assert_eq!(
        parsed(
            "https://onelake.dfs.fabric.microsoft.com/My%20Space/Sales%20LH.Lakehouse/Files/a%20b.csv"
        ),
        triple("My Space", "Sales LH.Lakehouse", "Files/a b.csv")
    );
    assert_eq!(
        parsed("Demo/SalesLakehouse"),
        triple("Demo", "SalesLakehouse", "")
    );
}

#[test]
fn what_is_not_a_path_in_an_item_is_refused() {
    for text in [
        "Demo",
        "Demo/",
        "/Demo",
        "Demo/SalesLakehouse/raw/orders.csv",
        "Demo/SalesLakehouse/Files/../../etc/passwd",
        "Demo/SalesLakehouse/Files/./a",
        "abfss://onelake.dfs.fabric.microsoft.com/SalesLakehouse/Files",
    ] {
        let err = LakePath::parse(text, "PATH").expect_err(text);
        assert_eq!(err.kind, crate::error::ErrorKind::Usage, "{text}");
        assert!(err.message.starts_with("PATH: "), "{text}: {}", err.message);
    }
}

#[test]
fn a_copy_argument_is_onelake_only_when_written_so() {
    for lake in [
        "Demo/SalesLakehouse/Files/raw/orders.csv",
        "Demo/SalesLakehouse/Tables/orders",
        "Demo.Workspace/SalesLakehouse.Lakehouse",
        "abfss://Demo@onelake.dfs.fabric.microsoft.com/SalesLakehouse.Lakehouse/Files",
        "https://onelake.dfs.fabric.microsoft.com/Demo/LH.Lakehouse/Files/a",
    ] {
        assert!(LakePath::is_written_as_lake(lake), "{lake}");
    }
    for local in [
        "orders.csv",
        "data/raw",
        "./Demo/SalesLakehouse/Files/a",
        "/tmp/Demo/SalesLakehouse/Files/a",
        "../x/y/Files",
        "https://example.com/Demo/LH/Files/a",
    ] {
        assert!(!LakePath::is_written_as_lake(local), "{local}");
    }
}
