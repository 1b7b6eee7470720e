//! The throughput ceiling for `bench/server.sh` and `bench/downloads.sh`: an axum handler on
//! `POST /api/mcp` and on `GET /api/v1/…` that returns the bytes of a file (a real server response or
//! download captured beforehand) from memory, doing no other work.
//! Usage: `ceiling <address> <response-file>`.

use std::net::SocketAddr;

use axum::{
    Router,
    body::Bytes,
    http::header,
    routing::{get, post},
};

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let address: SocketAddr = args
        .next()
        .expect("address")
        .parse()
        .expect("a socket address");
    let body = Bytes::from(
        std::fs::read(args.next().expect("response file")).expect("readable response file"),
    );
    let file = body.clone();
    let app = Router::new()
        .route(
            "/api/mcp",
            post(move || async move { ([(header::CONTENT_TYPE, "application/json")], body) }),
        )
        .route(
            "/api/v1/{*path}",
            get(move || async move { ([(header::CONTENT_TYPE, "text/csv; charset=utf-8")], file) }),
        );
    let listener = tokio::net::TcpListener::bind(address).await.expect("bind");
    axum::serve(listener, app).await.expect("serve");
}
