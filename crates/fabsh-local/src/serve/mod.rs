//! Serving HTTP/1: an accept loop that keeps within the connection cap, and one task per
//! connection (`connection`). In place of `axum::serve`, which applies no timeouts, holds every
//! socket it is given, and sleeps a second whenever `accept` fails (so a process out of
//! descriptors stops answering until some client lets go).

mod connection;
mod conns;
mod watched;

use axum::Router;
pub(crate) use conns::Timeouts;
use conns::{Conns, Room};
use std::io;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// How long to wait before trying `accept` again after it failed with no idle connection to
/// close (or after closing one, for its descriptor to be freed).
const ACCEPT_RETRY: Duration = Duration::from_millis(20);

/// Serves `router` on `listener` until `stop` is cancelled, then waits for the connections'
/// requests to be answered and the connections to close.
pub(crate) async fn run(
    listener: TcpListener,
    router: Router,
    timeouts: Timeouts,
    max_connections: usize,
    stop: CancellationToken,
) -> io::Result<()> {
    let conns = Arc::new(Conns::new(max_connections));
    let sweeping = CancellationToken::new();
    tokio::spawn(sweep(conns.clone(), timeouts, sweeping.clone()));
    // Stops the sweep however this ends (it holds `conns`, not the server).
    let _sweeping = sweeping.drop_guard();
    while wait_for_room(&conns, &stop).await {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = stop.cancelled() => break,
        };
        match accepted {
            Ok((stream, peer)) => {
                // Without TCP_NODELAY, a response hyper writes in two parts (its head, then a
                // body it had to wait for, such as a file's) has its second part held back by
                // Nagle until the first is acknowledged, and the client delays that
                // acknowledgement (up to 40 ms on Linux) while it waits for the rest: every
                // such request took 40 ms, a download of many small files 10x slower than `cp`.
                // A failure only costs that latency, so it is not a reason to drop the client.
                let _ = stream.set_nodelay(true);
                let conn = conns.add();
                tokio::spawn(connection::serve(
                    stream,
                    peer,
                    conn,
                    conns.clone(),
                    router.clone(),
                    timeouts,
                    stop.clone(),
                ));
            }
            // The client gave up before it was accepted.
            Err(err) if is_connection_error(&err) => {}
            // Most likely out of descriptors (EMFILE, ENFILE; there is no portable kind for
            // them), possibly out of memory: free what an idle connection holds, and retry
            // soon rather than after the second `axum::serve` would wait.
            Err(_) => {
                conns.free_one();
                let _ = tokio::time::timeout(ACCEPT_RETRY, conns.changed()).await;
            }
        }
    }
    drop(listener);
    while conns.open() > 0 {
        conns.changed().await;
    }
    Ok(())
}

/// Closes connections past their deadline until `done` is cancelled (after the last
/// connection, so heads and lingering closes stay bounded while the server stops).
async fn sweep(conns: Arc<Conns>, timeouts: Timeouts, done: CancellationToken) {
    let mut ticks = tokio::time::interval(conns::sweep_interval(&timeouts));
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = ticks.tick() => conns.sweep(&timeouts),
            () = done.cancelled() => return,
        }
    }
}

/// Waits until another connection may be accepted; false when the server is stopping.
async fn wait_for_room(conns: &Conns, stop: &CancellationToken) -> bool {
    loop {
        if stop.is_cancelled() {
            return false;
        }
        if conns.make_room() == Room::Free {
            return true;
        }
        tokio::select! {
            () = conns.changed() => {}
            () = stop.cancelled() => return false,
        }
    }
}

fn is_connection_error(err: &io::Error) -> bool {
    matches!(
        err.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}
