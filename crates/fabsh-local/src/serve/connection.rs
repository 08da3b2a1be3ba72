//! One connection: hyper serves its requests, and the task closes the connection when the
//! sweep finds it past its deadline (a head too slow, an idle keep-alive, a lingering close),
//! when the cap wants its place while it is idle, or, on shutdown, once its requests are
//! answered.
//!
//! The head timeout is the sweep's, not hyper's `header_read_timeout`: hyper's timer also
//! runs while a kept-alive connection waits for its next request, so it would be the idle
//! timeout as well, and the two want different lengths (a client may keep a connection for a
//! minute, but has no reason to take more than a few seconds over one request's head).

use super::conns::{Activity, Conns, Timeouts};
use super::watched::Watched;
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::ConnectInfo;
use hyper::body::{Frame, Incoming, SizeHint};
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::net::TcpStream;
use tokio_util::sync::CancellationToken;

/// Serves one accepted connection until it ends (breaking out of the loop drops, and so
/// closes, it), then unregisters it.
pub(super) async fn serve(
    stream: TcpStream,
    peer: SocketAddr,
    conn: Arc<Activity>,
    conns: Arc<Conns>,
    router: Router,
    timeouts: Timeouts,
    stop: CancellationToken,
) {
    // Declared before the connection, so dropped after it: its place is freed once the
    // socket is closed, on every way out of here.
    let _registered = Registered {
        conn: conn.clone(),
        conns: conns.clone(),
    };
    let io = TokioIo::new(Watched::new(stream, conn.clone()));
    let service = Tracked {
        inner: TowerToHyperService::new(router),
        peer,
        conn: conn.clone(),
        conns: conns.clone(),
    };
    let mut builder = http1::Builder::new();
    builder.header_read_timeout(None);
    let connection = builder.serve_connection(io, service);
    tokio::pin!(connection);
    let mut stopping = false;
    loop {
        tokio::select! {
            // An error here is the client's doing (a reset, a malformed request hyper has
            // already answered); there is no one to report it to.
            _ = connection.as_mut() => break,
            // Checked again here: a request may have begun since the sweep or the cap looked
            // (hyper runs only when this task polls it, so not while this runs).
            () = conn.wake.notified() => {
                if conn.expired(&timeouts) {
                    break;
                }
                if conn.eviction_requested() {
                    if conn.is_idle() {
                        break;
                    }
                    if conn.take_eviction() {
                        conns.declined();
                    }
                }
            }
            () = stop.cancelled(), if !stopping => {
                stopping = true;
                connection.as_mut().graceful_shutdown();
            }
        }
    }
}

/// A registered connection; unregisters it when dropped.
struct Registered {
    conn: Arc<Activity>,
    conns: Arc<Conns>,
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.conns.remove(&self.conn);
    }
}

/// The router, with each request counted in flight on its connection from the moment its
/// head is read until its answer has been sent, and given the socket's peer address (axum's
/// `ConnectInfo`), which routes that answer only this machine judge by.
struct Tracked {
    inner: TowerToHyperService<Router>,
    peer: SocketAddr,
    conn: Arc<Activity>,
    conns: Arc<Conns>,
}

impl hyper::service::Service<hyper::Request<Incoming>> for Tracked {
    type Response = hyper::Response<TrackedBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn call(&self, mut request: hyper::Request<Incoming>) -> Self::Future {
        self.conn.request_began();
        request.extensions_mut().insert(ConnectInfo(self.peer));
        let in_flight = InFlight {
            conn: self.conn.clone(),
            conns: self.conns.clone(),
        };
        let answer = self.inner.call(request);
        Box::pin(async move {
            let response = answer.await?;
            Ok(response.map(|body| TrackedBody {
                body,
                _in_flight: in_flight,
            }))
        })
    }
}

/// A request in flight; dropped when its answer has been sent or the request was abandoned.
struct InFlight {
    conn: Arc<Activity>,
    conns: Arc<Conns>,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if self.conn.request_ended() {
            self.conns.went_idle();
        }
    }
}

/// A response body that keeps its request in flight until hyper has written it and drops it.
pub(super) struct TrackedBody {
    body: Body,
    _in_flight: InFlight,
}

impl hyper::body::Body for TrackedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
