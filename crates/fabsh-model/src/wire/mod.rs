//! The Fabric REST API's core objects as they travel (swagger `platform` definitions): items,
//! workspaces, folders, long-running operation states, error bodies, list pages, definitions
//! as answered, external data shares, connections and a data agent's datasources. The client
//! reads answers through them and local Fabric answers with them.
//!
//! Each object keeps the keys it does not name in `extra`, so an answer read and written again
//! loses nothing the service added. A key the service may leave out is an `Option`, left out
//! again when `None`; a field serializes in declaration order, which is the order the service
//! sends (recordings/fabric-cli) and local Fabric has always answered in. Where the client
//! prints an answer it passes the service's JSON through instead (its order and nulls are the
//! service's to choose); these types are for reading and for building answers.

mod connections;
mod datasource;
mod definition;
mod error;
mod folder;
mod item;
mod lakehouse;
mod operation;
mod page;
mod principal;
mod relations;
mod share;
mod workspace;

pub use connections::{Connection, ConnectionDetails, ItemConnection};
pub use datasource::{Datasource, DatasourceElement};
pub use definition::{Definition, DefinitionPart, DefinitionResponse};
pub use error::{ErrorDetail, ErrorResponse, RelatedResource};
pub use folder::{CreateFolderRequest, Folder, MoveRequest};
pub use item::{
    AppliedTag, CreateItemRequest, CreateTypedItemRequest, Item, SensitivityLabel,
    SensitivityLabelSettings, UpdateItemRequest,
};
pub use lakehouse::{
    FileFormatOptions, LakehouseProperties, LoadMode, LoadTableRequest, PathType, valid_delimiter,
    valid_file_extension, valid_relative_path, valid_schema_name, valid_table_name,
};
pub use operation::{OperationState, OperationStatus};
pub use page::Page;
pub use principal::{Principal, RoleAssignment, ServicePrincipalDetails, UserDetails};
pub use relations::{ItemRelation, ItemRelations, WorkspaceRef};
pub use share::{
    AcceptInvitationRequest, AcceptedShortcut, CreateExternalDataShareRequest, ExternalDataShare,
    ProviderTenantDetails, ShareInvitation, ShareRecipient, SharedPathDetails,
    ShortcutCreationPayload, ShortcutRequest,
};
pub use workspace::{CreateWorkspaceRequest, Workspace};
