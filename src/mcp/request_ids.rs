//! One call per JSON-RPC id at a time. A client that reuses an id while a call with it is in
//! flight (a client bug) would otherwise lose an answer: the protocol layer keeps one pending
//! entry per id, so one of the two calls is never answered, and over HTTP its stream stays
//! open. The duplicate is refused at once with an error carrying its id, and its stream
//! closes; the call already running is answered as usual.

use futures::Stream;
use futures::future::Either;
use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, ErrorData, JsonRpcMessage, RequestId,
    ServerJsonRpcMessage,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::streamable_http_server::session::{
    RestoreOutcome, ServerSseMessage, SessionId, SessionManager,
};
use rmcp::{RoleServer, transport::streamable_http_server::session::store::EventStore};
use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

/// The ids of the calls in flight, per session (stdio has one, named "").
#[derive(Clone, Default)]
struct InFlight(Arc<Mutex<HashSet<(String, RequestId)>>>);

impl InFlight {
    /// Takes `id` for a call; false when a call with it is in flight already.
    fn take(&self, session: &str, id: &RequestId) -> bool {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert((session.to_string(), id.clone()))
    }

    fn release(&self, session: &str, id: &RequestId) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&(session.to_string(), id.clone()));
    }
}

/// The answer to a call whose id is in flight.
fn duplicate(id: RequestId) -> ServerJsonRpcMessage {
    JsonRpcMessage::error(
        ErrorData::invalid_request(
            format!(
                "request id {id} is already in use by a call in flight; each call needs an id of its own"
            ),
            None,
        ),
        Some(id),
    )
}

/// The request id a message reuses or frees: a request takes one, a cancellation frees one
/// (its call's answer is never sent).
enum Event {
    Request(RequestId),
    Cancelled(RequestId),
    Other,
}

fn event(message: &ClientJsonRpcMessage) -> Event {
    match message {
        JsonRpcMessage::Request(request) => Event::Request(request.id.clone()),
        JsonRpcMessage::Notification(notification) => match &notification.notification {
            ClientNotification::CancelledNotification(cancelled) => cancelled
                .params
                .request_id
                .clone()
                .map_or(Event::Other, Event::Cancelled),
            _ => Event::Other,
        },
        _ => Event::Other,
    }
}

/// A transport (stdio) that refuses a call whose id is in flight.
pub struct OneCallPerId<T> {
    inner: T,
    in_flight: InFlight,
}

impl<T> OneCallPerId<T> {
    pub fn new(inner: T) -> Self {
        OneCallPerId {
            inner,
            in_flight: InFlight::default(),
        }
    }
}

impl<T: Transport<RoleServer>> Transport<RoleServer> for OneCallPerId<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let answered = match &item {
            JsonRpcMessage::Response(response) => Some(response.id.clone()),
            JsonRpcMessage::Error(error) => error.id.clone(),
            _ => None,
        };
        if let Some(id) = answered {
            self.in_flight.release("", &id);
        }
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            let message = self.inner.receive().await?;
            match event(&message) {
                Event::Request(id) if !self.in_flight.take("", &id) => {
                    // Answered here: the call in flight keeps its id and its answer.
                    let _ = self.inner.send(duplicate(id)).await;
                    continue;
                }
                Event::Cancelled(id) => self.in_flight.release("", &id),
                _ => {}
            }
            return Some(message);
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

/// Sessions (streamable HTTP) that refuse a call whose id is in flight in the same session;
/// the id is free again once its call's stream ends.
pub(super) struct OneCallPerIdSessions<M> {
    inner: M,
    in_flight: InFlight,
}

impl<M> OneCallPerIdSessions<M> {
    pub(super) fn new(inner: M) -> Self {
        OneCallPerIdSessions {
            inner,
            in_flight: InFlight::default(),
        }
    }
}

/// Frees a call's id when its stream is dropped, however it ends.
struct Release {
    in_flight: InFlight,
    session: String,
    id: RequestId,
}

impl Drop for Release {
    fn drop(&mut self) {
        self.in_flight.release(&self.session, &self.id);
    }
}

impl<M: SessionManager> SessionManager for OneCallPerIdSessions<M> {
    type Error = M::Error;
    type Transport = M::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        self.inner.create_session().await
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.inner.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.inner.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.inner.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let release = match event(&message) {
            Event::Request(request) if !self.in_flight.take(id, &request) => {
                let refused = ServerSseMessage::from_message(duplicate(request));
                return Ok(Either::Right(futures::stream::iter([refused])));
            }
            Event::Request(request) => Some(Release {
                in_flight: self.in_flight.clone(),
                session: id.to_string(),
                id: request,
            }),
            _ => None,
        };
        // Refused here, the id is freed with `release`.
        let stream = self.inner.create_stream(id, message).await?;
        Ok(Either::Left(futures::StreamExt::map(stream, move |item| {
            let _held = &release;
            item
        })))
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.inner.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.resume(id, last_event_id).await
    }

    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        self.inner.restore_session(id).await
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        self.inner.event_store()
    }
}
