//! What local Fabric's agents need of a language model, as a trait: the model is reached over
//! HTTP by a client that lives outside the emulator (the emulator never depends on the client
//! side), and whoever starts local Fabric hands one in.

use serde_json::Value;
use std::fmt::Debug;
use std::future::Future;
use std::pin::Pin;

/// A reply on its way: the model's JSON object, or why there is none (in words for an answer).
pub type JsonReply<'a> = Pin<Box<dyn Future<Output = Result<Value, String>> + Send + 'a>>;

/// A chat model that answers a system and a user message with one JSON object.
pub trait JsonChat: Debug + Send + Sync {
    /// Asks the model; the reply is the JSON object it answered with.
    fn chat_json<'a>(&'a self, system: &'a str, user: &'a str) -> JsonReply<'a>;
}
