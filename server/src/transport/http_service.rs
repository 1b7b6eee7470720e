//! The HTTP service the listener serves ([`HttpService`]): the router of [`super::http`], with one direct
//! lane for MCP POSTs that skips what a cached answer would otherwise spend most of its time in.

use std::{future::Future, net::SocketAddr, sync::Arc, task::Poll};

use axum::{
    Router,
    extract::{ConnectInfo, Request},
    http::{HeaderMap, HeaderValue, header},
    response::Response,
};
use bytes::Bytes;
use tower::ServiceExt;

use super::{
    chunks::Chunks,
    http::{
        COMPRESS_ABOVE_BYTES, HttpState, PostAnswer, X_REQUEST_ID, answer_post, finish_headers,
        head_refusal_response, json_chunks_response, request_id, router, vary_like_compression,
    },
    jsonrpc::ResultParts,
};

/// The HTTP service the listener serves: the [`router`] over `state`, with one direct lane. A
/// `POST /api/mcp` (or `/api/mcp/`) from a client that asks for no compression, on a server not logging
/// each request, goes straight to its handler with the router's checks and headers (the refusal of a bad
/// head, the request id, `Vary`, the security and CORS headers) and nothing else: no route lookup, no
/// middleware futures, no compression wrapper (they cost a cached answer more than the answer itself).
/// Every other request, and that one when the client accepts gzip or info logging is on, goes through
/// the router; both lanes answer the same bytes and headers.
#[derive(Clone)]
pub struct HttpService {
    state: Arc<HttpState>,
    router: Router,
    repeat_headers: Arc<RepeatHeaders>,
}

/// The [`HttpService`] over `state`.
pub fn service(state: Arc<HttpState>) -> HttpService {
    HttpService {
        router: router(state.clone()),
        repeat_headers: Arc::new(RepeatHeaders::of(&state)),
        state,
    }
}

/// The headers of the direct lane's answer to a repeated call (a cached result, 200 JSON) from a
/// request without `Origin`: what [`vary_like_compression`] and [`finish_headers`] write on it, in their
/// order, made once by those two on a stand-in answer. An answer then costs a copy of them and its
/// request id, not four insertions and two readings of its media type. One set for answers of at least
/// [`COMPRESS_ABOVE_BYTES`] (with `Vary: accept-encoding`), one for smaller ones.
struct RepeatHeaders {
    small: HeaderMap,
    large: HeaderMap,
}

impl RepeatHeaders {
    /// The two sets under `state`'s settings (its CORS policy).
    fn of(state: &HttpState) -> RepeatHeaders {
        let headers = |size: usize| {
            let body = Chunks::new([Bytes::from(vec![b' '; size])]);
            let mut response = json_chunks_response(body);
            vary_like_compression(&mut response);
            // The id's place, taken by each answer's own.
            finish_headers(state, HeaderValue::from_static("-"), None, &mut response);
            std::mem::take(response.headers_mut())
        };
        RepeatHeaders {
            small: headers(0),
            large: headers(usize::from(COMPRESS_ABOVE_BYTES)),
        }
    }

    /// The answer carrying `parts`, tagged with the request id `id`.
    fn answer(&self, parts: ResultParts, id: HeaderValue) -> Response {
        let body = Chunks::new(parts.into_chunks());
        let large = http_body::Body::size_hint(&body)
            .exact()
            .is_none_or(|size| size >= u64::from(COMPRESS_ABOVE_BYTES));
        let mut headers = if large { &self.large } else { &self.small }.clone();
        headers.insert(X_REQUEST_ID, id);
        let mut response = Response::new(axum::body::Body::new(body));
        *response.headers_mut() = headers;
        response
    }
}

impl HttpService {
    /// Whether `request` takes the direct lane (see [`HttpService`]).
    fn is_direct<B>(request: &axum::http::Request<B>) -> bool {
        request.method() == axum::http::Method::POST
            && matches!(request.uri().path(), "/api/mcp" | "/api/mcp/")
            && !request
                .headers()
                .get_all(header::ACCEPT_ENCODING)
                .iter()
                .any(|value| {
                    value
                        .as_bytes()
                        .windows(4)
                        .any(|window| window.eq_ignore_ascii_case(b"gzip"))
                })
            && !tracing::enabled!(tracing::Level::INFO)
    }

    /// The answer to `request` from the socket peer `peer`: what the listener calls, on the connection's
    /// own `Arc` of the service (a request takes a reference on it, not on the state every connection
    /// shares).
    pub fn respond(
        self: &Arc<Self>,
        mut request: axum::http::Request<hyper::body::Incoming>,
        peer: SocketAddr,
    ) -> ResponseFuture {
        if !HttpService::is_direct(&request) {
            request.extensions_mut().insert(ConnectInfo(peer));
            let router = self.router.clone();
            let request = request.map(axum::body::Body::new);
            return Box::pin(async move { unwrap_infallible(router.oneshot(request).await) });
        }
        Box::pin(direct(self.clone(), request, Some(peer)))
    }
}

/// The answer to a request the listener hands the service.
pub type ResponseFuture = std::pin::Pin<Box<dyn Future<Output = Response> + Send + 'static>>;

fn unwrap_infallible(result: Result<Response, std::convert::Infallible>) -> Response {
    match result {
        Ok(response) => response,
        Err(never) => match never {},
    }
}

/// The direct lane: an MCP POST answered with the router's checks and headers, and nothing else.
/// It takes the service's own reference (a connection's: no other connection counts on it), so that
/// [`HttpService::respond`] boxes its future as it is, with no other around it.
async fn direct<B>(
    service: Arc<HttpService>,
    request: axum::http::Request<B>,
    peer: Option<SocketAddr>,
) -> Response
where
    B: http_body::Body<Data = bytes::Bytes> + Unpin,
{
    let (state, repeat_headers) = (&service.state, &service.repeat_headers);
    if let Some(refusal) = head_refusal_response(request.headers()) {
        return refusal;
    }
    let origin = request.headers().get(header::ORIGIN).cloned();
    let id = request_id(request.headers());
    match answer_post(state, request, peer).await {
        PostAnswer::Repeat(parts) if origin.is_none() => repeat_headers.answer(parts, id),
        answer => {
            let mut response = answer.into_response();
            vary_like_compression(&mut response);
            finish_headers(state, id, origin, &mut response);
            response
        }
    }
}

impl tower::Service<Request> for HttpService {
    type Response = Response;
    type Error = std::convert::Infallible;
    type Future = std::pin::Pin<
        Box<dyn Future<Output = Result<Response, std::convert::Infallible>> + Send + 'static>,
    >;

    fn poll_ready(
        &mut self,
        _: &mut std::task::Context<'_>,
    ) -> Poll<Result<(), std::convert::Infallible>> {
        Poll::Ready(Ok(()))
    }

    /// Tests' entry: the request's peer is its `ConnectInfo`, when it has one.
    fn call(&mut self, request: Request) -> Self::Future {
        if !HttpService::is_direct(&request) {
            return Box::pin(tower::ServiceExt::oneshot(self.router.clone(), request));
        }
        let service = Arc::new(self.clone());
        Box::pin(async move {
            let peer = request
                .extensions()
                .get::<ConnectInfo<SocketAddr>>()
                .map(|ConnectInfo(peer)| *peer);
            Ok(direct(service, request, peer).await)
        })
    }
}
