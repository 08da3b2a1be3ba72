//! Whether the service answers an item type's getDefinition and updateDefinition inline (200)
//! or as a long-running operation (202). The service decides per type, and not always the same
//! way for both calls (a Lakehouse's getDefinition is inline, its updateDefinition is not).
//!
//! Every row cites its evidence: the status, count and one cassette of
//! `recordings/fabric-cli/definition-status-by-type.tsv` (all 19,053 interactions recorded by
//! microsoft/fabric-cli 1.7.0's tests). A call the recordings never show for a type follows
//! that type's other call when there is one, else the service's most common answer (202).

/// Which of the two definition calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DefinitionCall {
    Get,
    Update,
}

/// `true` when the service answers 202; one row per type: (type, getDefinition,
/// updateDefinition).
const SERVICE_ANSWERS: &[(&str, bool, bool)] = &[
    // get 200 ×2 (test_get_item_query_all_success[CopyJob]); update not recorded.
    ("CopyJob", false, false),
    // get 202 ×13 (test_cp_folder_with_different_item_types_success[CosmosDBDatabase]);
    // update 202 ×1 (test_import_update_existing_item_success[CosmosDBDatabase]).
    ("CosmosDBDatabase", true, true),
    // get 200 ×26 (test_cp_folder_with_different_item_types_success[DataPipeline]);
    // update 200 ×5 (test_deploy_multiple_items_bulk_publish_enabled_success).
    ("DataPipeline", false, false),
    // get 200 ×2 (test_get_item_query_all_success[Dataflow]); update not recorded.
    ("Dataflow", false, false),
    // get 202 ×8 (test_export_item_default_format_success[DigitalTwinBuilder-2]);
    // update 202 ×1 (test_import_update_existing_item_success[DigitalTwinBuilder]).
    ("DigitalTwinBuilder", true, true),
    // get 202 ×10 (test_export_item_default_format_success[DigitalTwinBuilderFlow-2]);
    // update 202 ×1 (test_import_update_existing_item_success[DigitalTwinBuilderFlow]).
    ("DigitalTwinBuilderFlow", true, true),
    // get 202 ×13 (test_cp_folder_with_different_item_types_success[Environment]);
    // update 202 ×1 (test_import_update_existing_item_success[Environment]).
    ("Environment", true, true),
    // get 202 ×4 (test_get_item_query_all_success[Eventhouse]);
    // update 202 ×1 (test_import_update_existing_eventhouse_item_success).
    ("Eventhouse", true, true),
    // get 200 ×3 (test_get_item_query_all_success[Eventstream]);
    // update 200 ×1 (test_import_update_existing_item_success[Eventstream]).
    ("Eventstream", false, false),
    // get 202 ×2 (test_get_item_query_all_success[GraphQLApi]); update not recorded.
    ("GraphQLApi", true, true),
    // get 202 ×7 (test_export_item_default_format_success[GraphQuerySet-2]); update not
    // recorded.
    ("GraphQuerySet", true, true),
    // get 200 ×8 (test_cp_folder_with_different_item_types_success[KQLDashboard]);
    // update 200 ×1 (test_import_update_existing_item_success[KQLDashboard]).
    ("KQLDashboard", false, false),
    // get 202 ×6 (test_export_item_default_format_success[KQLDatabase-3]); update not
    // recorded.
    ("KQLDatabase", true, true),
    // get 200 ×8 (test_cp_folder_with_different_item_types_success[KQLQueryset]);
    // update 200 ×1 (test_import_update_existing_item_success[KQLQueryset]).
    ("KQLQueryset", false, false),
    // get 200 ×13 (test_export_item_default_format_success[Lakehouse-4]);
    // update 202 ×1 (test_import_update_existing_item_success[Lakehouse]).
    ("Lakehouse", false, true),
    // get 202 ×7 (test_export_item_home_directory_path_success[Map-.json]); update not
    // recorded.
    ("Map", true, true),
    // get 200 ×17 (test_cp_folder_with_different_item_types_success[MirroredDatabase]);
    // update 200 ×1 (test_import_update_existing_item_success[MirroredDatabase]).
    ("MirroredDatabase", false, false),
    // get 200 ×1 (test_mkdir_mounted_data_factory_with_required_params_success); update not
    // recorded.
    ("MountedDataFactory", false, false),
    // get 202 ×51 (test_cp_folder_to_existing_folder_success);
    // update 202 ×8 (test_cp_item_existing_name_different_location_without_block_on_path_
    // collision_success).
    ("Notebook", true, true),
    // get 200 ×8 (test_cp_folder_with_different_item_types_success[Reflex]);
    // update 200 ×1 (test_import_update_existing_item_success[Reflex]).
    ("Reflex", false, false),
    // get 202 ×8 (test_export_item_default_format_success[Report-4]);
    // update 202 ×1 (test_set_item_report_definition_semantic_model_id_success).
    ("Report", true, true),
    // get 202 ×8 (test_get_item_query_all_success[SQLDatabase]); update not recorded.
    ("SQLDatabase", true, true),
    // get 202 ×11 (test_export_item_default_format_success[SemanticModel-3]); update not
    // recorded.
    ("SemanticModel", true, true),
    // get 200 ×24 (test_cp_folder_to_workspace_nested_folder_success);
    // update 200 ×3 (test_import_update_existing_item_success[SparkJobDefinition]).
    ("SparkJobDefinition", false, false),
    // get 202 ×13 (test_cp_folder_with_different_item_types_success[UserDataFunction]);
    // update 202 ×1 (test_import_update_existing_item_success[UserDataFunction]).
    ("UserDataFunction", true, true),
    // get 202 ×4, update 202 ×3 (test_deploy_config_with_tenv_without_force_prompt_success).
    ("VariableLibrary", true, true),
];

/// Whether the service answers this call for this type with 202 (long-running).
pub(crate) fn service_lro(item_type: &str, call: DefinitionCall) -> bool {
    SERVICE_ANSWERS
        .iter()
        .find(|(name, _, _)| name.eq_ignore_ascii_case(item_type))
        .is_none_or(|&(_, get, update)| match call {
            DefinitionCall::Get => get,
            DefinitionCall::Update => update,
        })
}
