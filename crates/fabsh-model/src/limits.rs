//! What the service accepts, as sizes: fabsh refuses input beyond them before reading it
//! whole or sending anything, and names the limit in the error.

/// A request body the Fabric REST API accepts: Learn's limit on definition requests
/// (bulk import and export of definitions, 128 MB).
pub const REQUEST_BODY: u64 = 128 << 20;

/// The raw bytes of a definition that fit in one request once base64-encoded (every 3 bytes
/// become 4), which bounds one part and one item's parts.
pub const DEFINITION_BYTES: u64 = REQUEST_BODY / 4 * 3;

/// The length of `value` serialized as compact JSON, counted without building the text (a
/// size limit can be checked on a huge body without a second copy of it).
pub fn serialized_len(value: &serde_json::Value) -> u64 {
    struct Counter(u64);
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len() as u64;
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    // Serializing a `Value` into a writer that never fails cannot fail.
    let _ = serde_json::to_writer(&mut counter, value);
    counter.0
}
