//! What the service accepts, as sizes: fabsh refuses input beyond them before reading it
//! whole or sending anything, and names the limit in the error.

/// A request body the Fabric REST API accepts: Learn's limit on definition requests
/// (bulk import and export of definitions, 128 MB).
pub const REQUEST_BODY: u64 = 128 << 20;

/// The raw bytes of a definition that fit in one request once base64-encoded (every 3 bytes
/// become 4), which bounds one part and one item's parts.
pub const DEFINITION_BYTES: u64 = REQUEST_BODY / 4 * 3;
