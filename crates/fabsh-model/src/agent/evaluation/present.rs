//! A key that may be absent, null or hold a value, each written back as it was read:
//! `Option<Option<T>>`, `None` when absent, `Some(None)` when null. A field using it also
//! takes `default` (absent reads as `None`) and `skip_serializing_if = "Option::is_none"`
//! (absent stays absent).

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Writes the inner value (null for `Some(None)`).
pub(crate) fn serialize<T: Serialize, S: Serializer>(
    value: &Option<Option<T>>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match value {
        Some(inner) => inner.serialize(serializer),
        // Reached only by a field without `skip_serializing_if`, which cannot say absent.
        None => serializer.serialize_none(),
    }
}

/// A key that is there: null is `Some(None)`.
pub(crate) fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(deserializer).map(Some)
}
