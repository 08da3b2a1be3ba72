//! Reading an answer as one of the model's wire types: a shape the type does not accept is an
//! error that says what was expected, never a silent default.

use super::ApiClient;
use super::request::Req;
use crate::error::{Error, Result};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// `value` read as `T`; `what` names it in the error ("an item").
pub(crate) fn read<T: DeserializeOwned>(value: Value, what: &str) -> Result<T> {
    serde_json::from_value(value).map_err(|err| {
        Error::runtime(format!(
            "the service answered {what} in an unexpected shape"
        ))
        .with_cause(err)
    })
}

/// The entries of a listing read as `T`, keeping each one's JSON beside it: for a caller that
/// matches on the typed entry and hands on the entry as the service sent it.
pub(crate) fn read_each<T: DeserializeOwned>(
    listed: Vec<Value>,
    what: &str,
) -> Result<Vec<(T, Value)>> {
    listed
        .into_iter()
        .map(|value| Ok((read(value.clone(), what)?, value)))
        .collect()
}

impl ApiClient {
    /// Every entry of a paged list, all pages, each read as `T` (`what` names one).
    pub(crate) async fn all_as<T: DeserializeOwned>(&self, req: Req, what: &str) -> Result<Vec<T>> {
        self.all(req)
            .await?
            .into_iter()
            .map(|entry| read(entry, what))
            .collect()
    }
}
