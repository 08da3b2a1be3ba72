//! The files of the seeded demo items, in the layouts Fabric uses for them.

use serde_json::json;

/// `notebook-content.py` of the "Welcome" notebook (fabricGitSource layout).
pub(crate) const WELCOME_NOTEBOOK: &str = r#"# Fabric notebook source

# METADATA ********************

# META {
# META   "kernel_info": {
# META     "name": "synapse_pyspark"
# META   },
# META   "dependencies": {
# META     "lakehouse": {
# META       "default_lakehouse_name": "SalesLakehouse"
# META     }
# META   }
# META }

# MARKDOWN ********************

# # Welcome to local Fabric
# 
# This notebook lives in the **Demo** workspace. It reads the `orders` table of the
# `SalesLakehouse` lakehouse and sums the order amounts per customer.

# CELL ********************

orders = spark.read.table("SalesLakehouse.orders")
totals = orders.groupBy("customer").sum("amount")
display(totals)

# METADATA ********************

# META {
# META   "language": "python",
# META   "language_group": "synapse_pyspark"
# META }
"#;

/// `definition.pbism` of the semantic model.
pub(crate) fn semantic_model_pbism() -> String {
    super::definitions::pretty(&json!({
        "$schema": "https://developer.microsoft.com/json-schemas/fabric/item/semanticModel/definitionProperties/1.0.0/schema.json",
        "version": "4.2",
        "settings": {}
    }))
}

/// `definition/database.tmdl`.
pub(crate) const DATABASE_TMDL: &str = "database\n\tcompatibilityLevel: 1604\n\n";

/// `definition/model.tmdl`.
pub(crate) const MODEL_TMDL: &str = "model Model
\tculture: en-US
\tdefaultPowerBIDataSourceVersion: powerBI_V3
\tsourceQueryCulture: en-US
\tdataAccessOptions
\t\tlegacyRedirects
\t\treturnErrorValuesAsNull

annotation PBI_QueryOrder = [\"Orders\"]

ref table Orders
";

/// `definition/tables/Orders.tmdl`: three columns, one measure, an inline import partition.
pub(crate) const ORDERS_TMDL: &str = "table Orders
\tlineageTag: 6f1c2a52-2b7e-4d0c-9a43-5b8e0c1d7a10

\tmeasure 'Total Sales' = SUM(Orders[Amount])
\t\tformatString: #,0.00
\t\tlineageTag: 0c9d5e71-8a26-4f3b-b1d4-2e6f7a8b9c01

\tcolumn OrderId
\t\tdataType: int64
\t\tformatString: 0
\t\tlineageTag: 3a7b9c1d-4e5f-4061-8273-94a5b6c7d8e9
\t\tsummarizeBy: none
\t\tsourceColumn: OrderId

\tcolumn Customer
\t\tdataType: string
\t\tlineageTag: 5b8c0d2e-6f70-4182-93a4-b5c6d7e8f901
\t\tsummarizeBy: none
\t\tsourceColumn: Customer

\tcolumn Amount
\t\tdataType: decimal
\t\tformatString: #,0.00
\t\tlineageTag: 7c9d1e3f-8091-42a3-b4c5-d6e7f8091a2b
\t\tsummarizeBy: sum
\t\tsourceColumn: Amount

\tpartition Orders = m
\t\tmode: import
\t\tsource =
\t\t\t\tlet
\t\t\t\t    Source = #table(
\t\t\t\t        type table [OrderId = Int64.Type, Customer = text, Amount = Currency.Type],
\t\t\t\t        {{1, \"Contoso\", 120.50}, {2, \"Fabrikam\", 75.00}, {3, \"Contoso\", 42.25}})
\t\t\t\tin
\t\t\t\t    Source

";

/// `definition.pbir` binding the report to the semantic model by connection.
pub(crate) fn report_pbir(workspace_name: &str, model_name: &str, model_id: &str) -> String {
    super::definitions::pretty(&json!({
        "$schema": "https://developer.microsoft.com/json-schemas/fabric/item/report/definitionProperties/1.0.0/schema.json",
        "version": "4.0",
        "datasetReference": {
            "byPath": null,
            "byConnection": {
                "connectionString": format!(
                    "Data Source=powerbi://api.powerbi.com/v1.0/myorg/{workspace_name};Initial Catalog={model_name};Integrated Security=ClaimsToken"
                ),
                "pbiServiceModelId": null,
                "pbiModelVirtualServerName": "sobe_wowvirtualserver",
                "pbiModelDatabaseName": model_id,
                "name": "EntityDataSource",
                "connectionType": "pbiServiceXmlaStyleLive"
            }
        }
    }))
}

/// Legacy `report.json`: one page with a card showing the measure.
pub(crate) fn report_json() -> String {
    let visual = json!({
        "name": "totalSalesCard",
        "layouts": [{"id": 0, "position": {"x": 40, "y": 40, "z": 0, "width": 320, "height": 160}}],
        "singleVisual": {
            "visualType": "card",
            "projections": {"Values": [{"queryRef": "Orders.Total Sales"}]}
        }
    });
    super::definitions::pretty(&json!({
        "config": json!({"version": "5.43", "themeCollection": {"baseTheme": {"name": "CY24SU10"}}}).to_string(),
        "layoutOptimization": 0,
        "resourcePackages": [],
        "sections": [{
            "displayName": "Overview",
            "displayOption": 1,
            "height": 720,
            "width": 1280,
            "name": "ReportSection",
            "ordinal": 0,
            "filters": "[]",
            "config": "{}",
            "visualContainers": [{
                "x": 40, "y": 40, "z": 0, "width": 320, "height": 160,
                "config": visual.to_string(),
                "filters": "[]"
            }]
        }]
    }))
}
