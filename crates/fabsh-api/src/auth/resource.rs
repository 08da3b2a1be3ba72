//! The resources fabsh asks tokens for. Every sign-in method gets Fabric tokens; OneLake's
//! files take Storage tokens, and a judge model on Azure OpenAI without a key Cognitive
//! Services tokens, from the same source.

/// A resource (Entra "audience") a token is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resource {
    /// The Fabric REST API.
    Fabric,
    /// Azure OpenAI and the other Azure AI services (keyless judge models).
    CognitiveServices,
    /// Azure Storage, whose audience OneLake's files take.
    Storage,
}

impl Resource {
    /// The resource URI, as managed identities and the Azure CLI take it.
    pub fn uri(self) -> &'static str {
        match self {
            Resource::Fabric => "https://api.fabric.microsoft.com",
            Resource::CognitiveServices => "https://cognitiveservices.azure.com",
            Resource::Storage => "https://storage.azure.com",
        }
    }

    /// The `/.default` scope of the resource, as OAuth grants take it.
    pub fn scope(self) -> String {
        format!("{}/.default", self.uri())
    }
}
