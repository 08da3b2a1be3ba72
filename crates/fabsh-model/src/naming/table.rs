//! The naming rules, one row per kind of thing, each with the text it was taken from. The
//! swagger is microsoft/fabric-rest-api-specs at commit 4a7d6e4 (MIT); "Learn" is Microsoft's
//! Fabric documentation (MicrosoftDocs/fabric-docs). No recording shows a name refused, so
//! the status and code local Fabric answers with are chosen where it answers (see its
//! `names` module).

use super::{Alphabet, Letters, NameRules};

/// Workspaces. platform/definitions/platform.json, `CreateWorkspaceRequest.displayName` and
/// `UpdateWorkspaceRequest.displayName`: "The display name cannot contain more than 256
/// characters. [...] \"Admin monitoring\" is a reserved workspace name."
pub static WORKSPACE: NameRules = NameRules {
    reserved: &["Admin monitoring"],
    ..NameRules::up_to("workspace", 256)
};

/// Folders. platform/definitions/platform.json, `CreateFolderRequest.displayName` and
/// `UpdateFolderRequest.displayName`: "The name must meet [Folder name
/// requirements](/fabric/get-started/workspaces-folders#folder-name-requirements)", which
/// Learn lists (docs/get-started/workspaces-folders.md): "can't include C0 and C1 control
/// codes", "can't contain leading or trailing spaces", "can't contain these characters:
/// ~\"#.&*:<>?/\\{|}", "can't contain system-reserved names, including: $recycle.bin,
/// recycled, recycler", "length can't exceed 255 characters". The reserved names are
/// compared with the whole name: refusing every name that merely contains "recycled" would
/// refuse more than a reader of the rule expects, and `$recycle.bin` holds a `.`, which is
/// refused anyway.
pub static FOLDER: NameRules = NameRules {
    forbidden: "~\"#.&*:<>?/\\{|}",
    no_control_codes: true,
    no_edge_spaces: true,
    reserved: &["$recycle.bin", "recycled", "recycler"],
    ..NameRules::up_to("folder", 255)
};

/// Item types without rules of their own: the swagger's `displayName` of every other
/// `Create<Type>Request` says only "must follow naming rules according to item type", and
/// the generic `CreateItemRequest` the same. No document gives a length; 256 is the bound
/// local Fabric has always kept (the workspace's and the description's limit), not a rule
/// the service documents for items.
pub static OTHER_ITEMS: NameRules = NameRules::up_to("item", 256);

/// Letters, digits and `_`, as "letters" and "numbers" say with no more.
const WORD: Alphabet = Alphabet {
    letters: Letters::Any,
    also: "_",
};

/// The item types whose own rules are documented.
pub static ITEM_TYPES: &[NameRules] = &[
    // lakehouse/definitions.json says only "must follow naming rules according to item type";
    // Learn's "Create a lakehouse" (learn.microsoft.com/fabric/data-engineering/
    // create-lakehouse) gives them: "Lakehouse name must begin with a letter (A–Z or a–z) and
    // may only contain alphanumeric characters and underscores thereafter. [...] The total
    // length of the name must not exceed 123 characters." The service refused `lh-demo`
    // ("The request has an invalid input", microsoft/terraform-provider-fabric issue 100),
    // and microsoft/fabric-cli refuses such names before sending (fab_base_item.py).
    NameRules {
        alphabet: Some(Alphabet {
            letters: Letters::Ascii,
            also: "_",
        }),
        starts_with_letter: true,
        ..NameRules::up_to("Lakehouse", 123)
    },
    // eventhouse/definitions.json, Create/UpdateEventhouseRequest.displayName: "The eventhouse
    // name can contain alphanumeric characters, underscores, periods, and hyphens. Special
    // characters aren't supported."
    NameRules {
        alphabet: Some(Alphabet {
            letters: Letters::Any,
            also: "_.-",
        }),
        ..NameRules::up_to("Eventhouse", 256)
    },
    // kqlDatabase/definitions.json, Create/UpdateKQLDatabaseRequest.displayName: "The database
    // name can contain alphanumeric characters, underscores, periods, and hyphens. Special
    // characters aren't supported."
    NameRules {
        alphabet: Some(Alphabet {
            letters: Letters::Any,
            also: "_.-",
        }),
        ..NameRules::up_to("KQLDatabase", 256)
    },
    // appBackend/definitions.json, Create/UpdateAppBackendRequest.displayName: "The name can't
    // exceed 91 characters, can't use special characters (< > * % & : \ / ? # ! [ ] = @ ^ \"
    // ' ; ( ) `), can't end with a period or space, and can't be a reserved name (master,
    // msdb, model, tempdb, resource)."
    NameRules {
        forbidden: "<>*%&:\\/?#![]=@^\"';()`",
        no_trailing: ". ",
        reserved: &["master", "msdb", "model", "tempdb", "resource"],
        ..NameRules::up_to("AppBackend", 91)
    },
    // sqlDatabase/definitions.json says only "must follow naming rules according to item
    // type"; Learn's "Limitations in SQL database" (docs/database/sql/limitations.md): "Database
    // names cannot contain characters ! [ ] < > * % & : / ? # = @ ^ \" ' ; ( )".
    NameRules {
        forbidden: "![]<>*%&:/?#=@^\"';()",
        ..NameRules::up_to("SQLDatabase", 256)
    },
    // digitalTwinBuilder/definitions.json, CreateDigitalTwinBuilderRequest.displayName: "It
    // should start with letter, only has numbers and letters or _ and is less than 100." The
    // update request says only "naming rules according to item type": these are the type's
    // rules, so a rename meets them too.
    NameRules {
        alphabet: Some(WORD),
        starts_with_letter: true,
        ..NameRules::up_to("DigitalTwinBuilder", 99)
    },
    // ontology/definitions.json, CreateOntologyRequest.displayName: the same words as the
    // digital twin builder's, and the same reading for a rename.
    NameRules {
        alphabet: Some(WORD),
        starts_with_letter: true,
        ..NameRules::up_to("Ontology", 99)
    },
];
