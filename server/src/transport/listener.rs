//! The HTTP accept loop: one hyper HTTP/1 connection per socket ([`super::connection`]), with the limits
//! a public, read-only API needs so that idle or slow sockets cannot starve it.
//!
//! - **Header-read timeout** ([`ServeLimits::header_read_timeout`]): a client has that long to send a
//!   request's headers, counted from the connection's opening or its last response; so it is also the
//!   idle timeout of a keep-alive connection (a client sending one header line every few seconds is cut).
//! - **Header size**: a connection buffers at most [`ServeLimits::max_header_bytes`] of request head.
//! - **Connection caps** ([`ServeLimits::max_connections`], and [`ServeLimits::max_connections_per_client`]
//!   per peer address): past either, a new connection is answered at once with `503 Service Unavailable`
//!   and `Retry-After`, then closed, before the process runs out of file descriptors and before one
//!   client can hold every slot; `accept` errors (such as `EMFILE`) pause the loop briefly instead of ending it.
//! - **Fair shares at the global cap** ([`ServeLimits::fair_share_per_client`]): when every slot is
//!   taken and another client, holding more than its fair share and more than the newcomer, still has
//!   connections open, that client's oldest connection is asked to close gracefully (closed at once when
//!   idle in keep-alive, after its request otherwise) and the newcomer waits up to
//!   [`FAIR_SHARE_WAIT`] for the freed slot before it is shed. So a few addresses holding hundreds of
//!   kept-alive connections cannot keep every other client out.
//! - **Write-stall timeout** ([`ServeLimits::write_stall_timeout`]): a response write that makes no
//!   progress for that long (a client that stops reading a download) ends the connection.
//! - **Graceful shutdown**: on the shutdown signal the loop stops accepting and asks every open
//!   connection to finish its request in flight, then close.

use std::{
    collections::HashMap,
    future::Future,
    net::IpAddr,
    sync::{Arc, Mutex, PoisonError},
    time::Duration,
};

use tokio::{io::AsyncWriteExt, net::TcpListener, sync::Semaphore};

use super::{connection::ConnectionState, http_service::HttpService};

/// Limits of the accept loop (see the module doc).
#[derive(Debug, Clone, Copy)]
pub struct ServeLimits {
    /// How long a client may take to send a request's headers, and how long a kept-alive connection may
    /// wait idle for its next request.
    pub header_read_timeout: Duration,
    /// The most request-head bytes a connection buffers (431/close beyond).
    pub max_header_bytes: usize,
    /// Open connections at most; more are shed with 503.
    pub max_connections: usize,
    /// Open connections of one client at most (a peer's IPv4 address or IPv6 network,
    /// [`super::guard::client_network`]); more are shed with 503.
    pub max_connections_per_client: usize,
    /// Connections a client may keep open without being asked to give one up when the global cap is
    /// reached (see the module doc).
    pub fair_share_per_client: usize,
    /// IPv6 peers are told apart by this many leading bits.
    pub ipv6_client_prefix: u8,
    /// How long a response write may make no progress before the connection is closed.
    pub write_stall_timeout: Duration,
}

impl Default for ServeLimits {
    fn default() -> ServeLimits {
        ServeLimits {
            header_read_timeout: Duration::from_secs(10),
            max_header_bytes: 64 * 1024,
            // Below the usual 1,024 descriptors of `ulimit -n`, leaving room for the corpus' files.
            max_connections: 512,
            max_connections_per_client: 128,
            fair_share_per_client: 16,
            ipv6_client_prefix: super::guard::DEFAULT_IPV6_CLIENT_PREFIX,
            write_stall_timeout: Duration::from_secs(30),
        }
    }
}

/// How long a connection admitted at the global cap waits for the slot a client over its fair share
/// gives up (that client's oldest connection closing) before it is shed.
pub const FAIR_SHARE_WAIT: Duration = Duration::from_millis(500);

/// What a shed connection reads: a 503 with `Retry-After` and a JSON-RPC error body (`nosniff`, as every
/// answer), then the close.
fn shed_response() -> Vec<u8> {
    let body = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"server busy: too many open connections (in all, or from this client); retry after 1 s"}}"#;
    format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nx-content-type-options: nosniff\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// Serves `app` (the [`super::http::service`]) on `listener` under `limits` until `shutdown` completes,
/// then drains open connections.
///
/// # Errors
/// None today: accept errors are logged and retried; the `Result` leaves room for fatal ones.
pub async fn serve(
    listener: TcpListener,
    app: HttpService,
    limits: ServeLimits,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let permits = Arc::new(Semaphore::new(limits.max_connections));
    let per_client = Arc::new(ClientConnections::default());
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => break,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(error) => {
                // Out of descriptors or a connection reset before accept: wait a little, go on.
                tracing::warn!(%error, "accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let network = super::guard::client_network(peer.ip(), limits.ipv6_client_prefix);
        let Some(client) = per_client.admit(network, limits.max_connections_per_client) else {
            shed(stream, peer);
            continue;
        };
        let permit = match permits.clone().try_acquire_owned() {
            Ok(permit) => permit,
            Err(_) => {
                // Every slot is taken: a client over its fair share gives one up, and the newcomer
                // waits for it (off the accept loop); with none over its share, the newcomer is shed.
                if !per_client.ask_one_to_close(network, limits.fair_share_per_client) {
                    drop(client);
                    shed(stream, peer);
                    continue;
                }
                let (permits, app) = (permits.clone(), app.clone());
                tokio::spawn(async move {
                    match tokio::time::timeout(FAIR_SHARE_WAIT, permits.acquire_owned()).await {
                        Ok(Ok(permit)) => {
                            serve_connection(stream, peer, app, limits, (permit, client)).await;
                        }
                        _ => {
                            drop(client);
                            shed(stream, peer);
                        }
                    }
                });
                continue;
            }
        };
        tokio::spawn(serve_connection(
            stream,
            peer,
            app.clone(),
            limits,
            (permit, client),
        ));
    }
    // Every open connection finishes its request in flight, then closes.
    per_client.close_all();
    // Wait for every connection to give its permit back (bounded by the header-read timeout of the
    // idle ones and the call deadline of busy ones).
    let _ = permits.acquire_many(limits.max_connections as u32).await;
    Ok(())
}

/// Answers a connection refused at a cap with [`shed_response`] and closes it (in the background: the
/// accept loop never waits on a client).
fn shed(stream: tokio::net::TcpStream, peer: std::net::SocketAddr) {
    tracing::warn!(%peer, "connection shed: at the connection cap");
    super::metrics::record_shed();
    tokio::spawn(async move {
        let mut stream = stream;
        let _ =
            tokio::time::timeout(Duration::from_secs(1), stream.write_all(&shed_response())).await;
        let _ = stream.shutdown().await;
    });
}

/// Serves one admitted connection ([`super::connection::serve`]); `slots` (the global permit and the
/// client's slot) are given back when it ends.
async fn serve_connection(
    stream: tokio::net::TcpStream,
    peer: std::net::SocketAddr,
    app: HttpService,
    limits: ServeLimits,
    slots: (tokio::sync::OwnedSemaphorePermit, ClientSlot),
) {
    let state = slots.1.connection.clone();
    let _slots = slots;
    super::connection::serve(stream, peer, app, limits, state).await;
}

/// Open connections per client, each with the signal that asks it to close.
#[derive(Debug, Default)]
struct ClientConnections {
    open: Mutex<HashMap<IpAddr, ClientEntry>>,
    /// Numbers connections across all clients, so a number is never reused while its connection lives.
    next: std::sync::atomic::AtomicU64,
}

/// One client's open connections: the close signals of those that may still be asked to close, oldest
/// first, by connection number, and how many were asked and are still closing (they count toward the
/// client's cap until they have closed).
#[derive(Debug, Default)]
struct ClientEntry {
    connections: std::collections::VecDeque<(u64, Arc<ConnectionState>)>,
    closing: usize,
}

impl ClientEntry {
    fn open(&self) -> usize {
        self.connections.len() + self.closing
    }
}

/// One admitted connection of a client; gives its slot back when dropped.
struct ClientSlot {
    connections: Arc<ClientConnections>,
    address: IpAddr,
    number: u64,
    /// What the connection's task shares with the loop: how it is asked to close.
    connection: Arc<ConnectionState>,
}

impl ClientConnections {
    /// A slot for a new connection from `address`, unless it already holds `cap`.
    fn admit(self: &Arc<Self>, address: IpAddr, cap: usize) -> Option<ClientSlot> {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = open.entry(address).or_default();
        if entry.open() >= cap {
            if entry.open() == 0 {
                open.remove(&address);
            }
            return None;
        }
        let number = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let connection = Arc::new(ConnectionState::new());
        entry.connections.push_back((number, connection.clone()));
        Some(ClientSlot {
            connections: self.clone(),
            address,
            number,
            connection,
        })
    }

    /// Asks the oldest connection of the client holding the most connections to close, if that client
    /// is not `newcomer`, holds more than `share` and more than `newcomer` does (counting the
    /// newcomer's new connection); whether one was asked. The asked connection counts as closing until
    /// it has closed, and is not asked again.
    fn ask_one_to_close(&self, newcomer: IpAddr, share: usize) -> bool {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let held = open.get(&newcomer).map_or(0, ClientEntry::open);
        let Some((_, entry)) = open
            .iter_mut()
            .filter(|(address, entry)| {
                **address != newcomer
                    && !entry.connections.is_empty()
                    && entry.open() > share.max(1)
                    && entry.open() > held
            })
            .max_by_key(|(_, entry)| entry.open())
        else {
            return false;
        };
        let Some((_, connection)) = entry.connections.pop_front() else {
            return false;
        };
        entry.closing += 1;
        connection.close();
        true
    }

    /// Asks every open connection to close gracefully (the server drains); those already asked are
    /// closing.
    fn close_all(&self) {
        let open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        for (_, connection) in open.values().flat_map(|entry| &entry.connections) {
            connection.close();
        }
    }
}

impl Drop for ClientSlot {
    fn drop(&mut self) {
        let mut open = self
            .connections
            .open
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(entry) = open.get_mut(&self.address) {
            let before = entry.connections.len();
            entry
                .connections
                .retain(|(number, _)| *number != self.number);
            if entry.connections.len() == before {
                // It had been asked to close.
                entry.closing = entry.closing.saturating_sub(1);
            }
            if entry.open() == 0 {
                open.remove(&self.address);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_asked_to_close_counts_toward_its_client_until_it_has_closed() {
        let connections = Arc::new(ClientConnections::default());
        let (hog, newcomer): (IpAddr, IpAddr) =
            ("192.0.2.1".parse().unwrap(), "192.0.2.2".parse().unwrap());
        let oldest = connections.admit(hog, 3).unwrap();
        let _second = connections.admit(hog, 3).unwrap();
        assert!(connections.ask_one_to_close(newcomer, 1));
        // Still open while it closes: it counts toward the cap, and is not asked again.
        let _third = connections.admit(hog, 3).unwrap();
        assert!(
            connections.admit(hog, 3).is_none(),
            "three open, one closing"
        );
        drop(oldest);
        let fourth = connections.admit(hog, 3).unwrap();
        assert!(fourth.number > _third.number, "numbers are never reused");
        // The newcomer itself is never asked to make room for itself, nor a client within its share.
        assert!(!connections.ask_one_to_close(hog, 1));
        let _one = connections.admit(newcomer, 3).unwrap();
        assert!(!connections.ask_one_to_close(hog, 1));
    }
}
