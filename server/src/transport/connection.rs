//! One admitted HTTP/1 connection: hyper's state machine over the socket, with the connection's own
//! header-read deadline and the signal that asks it to close gracefully.
//!
//! - **Header-read deadline** ([`super::listener::ServeLimits::header_read_timeout`]): from the moment a
//!   connection is opened, or its last response has been written, the client has that long to deliver
//!   the next request's head; past it the socket is closed. So it is also the idle timeout of a kept-alive
//!   connection, and a client trickling one header line every few seconds is cut. The deadline is kept by
//!   one timer per connection, moved only when it fires (at most once per timeout): a request costs it a
//!   clock read and two counters, not a timer of its own (what hyper's own header timer costs).
//! - **Graceful close** ([`ConnectionState::close`]): asked by the accept loop when the connection's
//!   client holds more than its fair share at the global cap, or when the server drains. The request in
//!   flight (none, for an idle kept-alive connection) is finished, then the connection closes.
//! - **Write stall** ([`super::listener::ServeLimits::write_stall_timeout`]): a response write that makes
//!   no progress for that long ends the connection.
//!
//! The connection is polled through [`super::repoll::Repoll`], which keeps hyper's own wake-ups on the
//! polling thread.

use std::{
    net::SocketAddr,
    pin::Pin,
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    task::{Context, Poll},
    time::{Duration, Instant},
};

use atomic_waker::AtomicWaker;
use hyper_util::rt::TokioIo;

use super::{http_service::HttpService, listener::ServeLimits};

/// What the accept loop and the connection's task share about one connection.
#[derive(Debug)]
pub struct ConnectionState {
    /// When it was opened; the clock of `waiting_since_ms`.
    opened: Instant,
    /// Milliseconds after `opened` at which its last response was written (0: none yet).
    waiting_since_ms: AtomicU64,
    /// Requests whose handling has begun, and requests whose response has been written (or dropped): a
    /// request is being served while they differ.
    started: AtomicU64,
    finished: AtomicU64,
    /// Asked to close gracefully.
    closing: AtomicBool,
    /// The connection's task, woken when it is asked to close.
    task: AtomicWaker,
}

impl ConnectionState {
    /// The state of a connection opened now.
    pub fn new() -> ConnectionState {
        ConnectionState {
            opened: Instant::now(),
            waiting_since_ms: AtomicU64::new(0),
            started: AtomicU64::new(0),
            finished: AtomicU64::new(0),
            closing: AtomicBool::new(false),
            task: AtomicWaker::new(),
        }
    }

    /// Asks the connection to close gracefully: it finishes the request in flight, if any, then closes.
    pub fn close(&self) {
        self.closing.store(true, Ordering::SeqCst);
        self.task.wake();
    }

    /// A request's head has arrived and its handling begins.
    fn request_started(&self) {
        self.started.fetch_add(1, Ordering::Relaxed);
    }

    /// A response has been written (its body dropped): the wait for the next head begins.
    fn response_finished(&self) {
        let now = self.opened.elapsed().as_millis() as u64;
        self.waiting_since_ms.store(now, Ordering::Relaxed);
        self.finished.fetch_add(1, Ordering::Relaxed);
    }

    /// When the connection's wait for a request head ends, if it is waiting for one (`None` while a
    /// request is being served).
    fn head_deadline(&self, timeout: Duration) -> Option<Instant> {
        let finished = self.finished.load(Ordering::Relaxed);
        if self.started.load(Ordering::Relaxed) != finished {
            return None;
        }
        let since = Duration::from_millis(self.waiting_since_ms.load(Ordering::Relaxed));
        Some(self.opened + since + timeout)
    }
}

impl Default for ConnectionState {
    fn default() -> ConnectionState {
        ConnectionState::new()
    }
}

/// A response body that tells its connection when it has been written (hyper drops it then): the
/// connection's header-read deadline starts from there. Its bytes, length and end are its inner body's.
struct TrackedBody {
    inner: axum::body::Body,
    connection: Arc<ConnectionState>,
}

impl http_body::Body for TrackedBody {
    type Data = bytes::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<bytes::Bytes>, axum::Error>>> {
        Pin::new(&mut self.inner).poll_frame(context)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for TrackedBody {
    fn drop(&mut self) {
        self.connection.response_finished();
    }
}

/// Polls `timer` outside tokio's cooperative budget: a poll refused for want of budget would leave the
/// timer without the task's waker, and this one is polled only when it is set or has fired.
fn poll_timer(timer: Pin<&mut tokio::time::Sleep>, context: &mut Context<'_>) -> Poll<()> {
    std::pin::pin!(tokio::task::coop::unconstrained(timer)).poll(context)
}

/// Serves `stream` from `peer` with `service` under `limits` until the connection ends, its head
/// deadline passes, or it is asked to close through `state` (then after the request in flight).
pub async fn serve(
    stream: tokio::net::TcpStream,
    peer: SocketAddr,
    service: HttpService,
    limits: ServeLimits,
    state: Arc<ConnectionState>,
) {
    // The connection's own reference-counted service: a request's reference is taken on it.
    let service = Arc::new(service);
    let tracked = state.clone();
    let service =
        hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
            tracked.request_started();
            let connection = tracked.clone();
            let answer = service.respond(request, peer);
            async move {
                let response = answer.await;
                Ok::<_, std::convert::Infallible>(
                    response.map(|inner| TrackedBody { inner, connection }),
                )
            }
        });
    let mut builder = hyper::server::conn::http1::Builder::new();
    // The head deadline is kept here, not by hyper (which would arm a timer for every request).
    builder
        .header_read_timeout(None)
        .max_buf_size(limits.max_header_bytes.max(8192));
    let mut stream = tokio_io_timeout::TimeoutStream::new(stream);
    stream.set_write_timeout(Some(limits.write_stall_timeout));
    let mut connection =
        std::pin::pin!(builder.serve_connection(TokioIo::new(Box::pin(stream)), service));
    let timeout = limits.header_read_timeout;
    let mut deadline = Box::pin(tokio::time::sleep(timeout));
    // Whether the deadline's timer holds this task's waker (it was polled since it was last set). The
    // waker `Repoll` gives the connection never changes, so a registered timer is only looked at again
    // once it has fired: a request costs it no poll.
    let mut deadline_registered = false;
    // Likewise the close signal holds that waker from the first poll until it is asked to close.
    let mut close_registered = false;
    let mut closing = false;
    let served = std::future::poll_fn(|context| {
        if !closing {
            if !close_registered {
                state.task.register(context.waker());
                close_registered = true;
            }
            if state.closing.load(Ordering::SeqCst) {
                // Its client holds more than its share while others wait, or the server drains.
                tracing::debug!(%peer, "connection asked to close");
                connection.as_mut().graceful_shutdown();
                closing = true;
            }
        }
        if let Poll::Ready(result) = connection.as_mut().poll(context) {
            if let Err(error) = result {
                tracing::debug!(%peer, %error, "connection ended");
            }
            return Poll::Ready(());
        }
        // The deadline holds while the connection closes too: hyper closes one asked to at once only when
        // it is idle or has read nothing; one holding half a request head is cut here.
        if deadline_registered && !deadline.is_elapsed() {
            return Poll::Pending;
        }
        deadline_registered = true;
        while poll_timer(deadline.as_mut(), context).is_ready() {
            let now = Instant::now();
            match state.head_deadline(timeout) {
                Some(due) if due <= now => {
                    tracing::debug!(%peer, "connection closed: no request head within the timeout");
                    return Poll::Ready(());
                }
                Some(due) => deadline.as_mut().reset(due.into()),
                // A request is being served: its head came in time; look again a timeout later.
                None => deadline.as_mut().reset((now + timeout).into()),
            }
        }
        Poll::Pending
    });
    super::repoll::Repoll::new(served).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_head_deadline_runs_from_the_opening_or_the_last_response_and_not_while_serving() {
        let state = ConnectionState::new();
        let timeout = Duration::from_secs(10);
        assert_eq!(state.head_deadline(timeout), Some(state.opened + timeout));
        state.request_started();
        assert_eq!(
            state.head_deadline(timeout),
            None,
            "a request is being served"
        );
        std::thread::sleep(Duration::from_millis(20));
        state.response_finished();
        let due = state
            .head_deadline(timeout)
            .expect("waiting for the next head");
        assert!(due >= state.opened + timeout + Duration::from_millis(20));
        assert!(due <= Instant::now() + timeout);
    }

    #[test]
    fn a_connection_asked_to_close_wakes_its_task() {
        struct Flag(AtomicBool);
        impl std::task::Wake for Flag {
            fn wake(self: Arc<Self>) {
                self.0.store(true, Ordering::SeqCst);
            }
        }
        let state = ConnectionState::new();
        let flag = Arc::new(Flag(AtomicBool::new(false)));
        state.task.register(&std::task::Waker::from(flag.clone()));
        state.close();
        assert!(state.closing.load(Ordering::SeqCst));
        assert!(flag.0.load(Ordering::SeqCst));
    }
}
