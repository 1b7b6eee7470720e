//! Who may call over HTTP: the Origin allow-list and the loopback Host check (DNS rebinding), JSON
//! content type, the trailing-slash route, and forwarding headers trusted only from configured proxies.

use axum::{body::Body, http::Request};
use serde_json::{Value, json};
use server::transport::{guard::OriginPolicy, http::HttpConfig};

use crate::support::{http_state, http_state_with, post, send};

const PING: &str = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;

#[tokio::test]
async fn a_page_of_another_site_cannot_drive_a_local_server() {
    let state = http_state(true, 60);
    let (response, bytes) = send(
        &state,
        post(
            PING,
            &[
                ("host", "evil.example.com"),
                ("origin", "http://evil.example.com"),
            ],
        ),
    )
    .await;
    assert_eq!(response.status(), 403);
    let body: Value = serde_json::from_slice(&bytes).unwrap();
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("origin `http://evil.example.com`")
    );
    assert!(
        response
            .headers()
            .get("access-control-allow-origin")
            .is_none()
    );
    // DNS rebinding: the page's origin looks local only because the name now points here; the Host says not.
    let (response, _) = send(&state, post(PING, &[("host", "evil.example.com:8080")])).await;
    assert_eq!(response.status(), 403);
    // The preflight is refused too.
    let preflight = Request::options("/api/mcp")
        .header("origin", "https://evil.example.com")
        .body(Body::empty())
        .unwrap();
    let (response, _) = send(&state, preflight).await;
    assert_eq!(response.status(), 403);
}

#[tokio::test]
async fn local_pages_and_clients_without_an_origin_are_answered() {
    let state = http_state(true, 60);
    let (response, bytes) = send(
        &state,
        post(
            PING,
            &[
                ("host", "127.0.0.1:8080"),
                ("origin", "http://localhost:6274"),
            ],
        ),
    )
    .await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        serde_json::from_slice::<Value>(&bytes).unwrap()["result"],
        json!({})
    );
    assert_eq!(
        response.headers()["access-control-allow-origin"],
        "http://localhost:6274"
    );
    assert_eq!(response.headers()["vary"], "Origin");
    let (response, _) = send(&state, post(PING, &[("host", "[::1]:8080")])).await;
    assert_eq!(response.status(), 200);
    // A public deployment that allows any origin says so with `*`.
    let public = http_state_with(HttpConfig {
        origins: OriginPolicy::Any,
        check_host: false,
        ..HttpConfig::local(true, 60)
    });
    let (response, _) = send(
        &public,
        post(
            PING,
            &[
                ("host", "corpus.example.org"),
                ("origin", "https://anywhere.example"),
            ],
        ),
    )
    .await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["access-control-allow-origin"], "*");
}

#[tokio::test]
async fn a_post_that_is_not_json_gets_415() {
    let state = http_state(true, 60);
    let request = Request::post("/api/mcp")
        .header("content-type", "text/plain")
        .body(Body::from(PING))
        .unwrap();
    let (response, bytes) = send(&state, request).await;
    assert_eq!(response.status(), 415);
    let body: Value = serde_json::from_slice(&bytes).unwrap();
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("application/json")
    );
    let charset = Request::post("/api/mcp")
        .header("content-type", "application/json; charset=utf-8")
        .body(Body::from(PING))
        .unwrap();
    assert_eq!(send(&state, charset).await.0.status(), 200);
}

#[tokio::test]
async fn the_endpoint_answers_with_a_trailing_slash_too() {
    let state = http_state(true, 60);
    let request = Request::post("/api/mcp/")
        .header("content-type", "application/json")
        .body(Body::from(PING))
        .unwrap();
    let (response, bytes) = send(&state, request).await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        serde_json::from_slice::<Value>(&bytes).unwrap()["id"],
        json!(1)
    );
}

#[tokio::test]
async fn forwarding_headers_from_an_untrusted_peer_do_not_name_new_clients() {
    // No trusted proxy: a client cannot buy itself new budgets by varying x-real-ip.
    let state = http_state_with(HttpConfig::local(true, 2));
    let mut statuses = Vec::new();
    for spoofed in ["1.1.1.1", "2.2.2.2", "3.3.3.3"] {
        let (response, _) = send(&state, post(PING, &[("x-real-ip", spoofed)])).await;
        statuses.push(response.status().as_u16());
    }
    assert_eq!(statuses, [200, 200, 429]);
    // Through a trusted proxy, they do (the test state trusts one).
    let proxied = http_state(true, 1);
    for client in ["1.1.1.1", "2.2.2.2"] {
        let (response, _) = send(&proxied, post(PING, &[("x-real-ip", client)])).await;
        assert_eq!(response.status(), 200, "{client}");
    }
}

#[tokio::test]
async fn every_response_carries_a_request_id_the_clients_own_when_it_is_a_token() {
    let state = http_state(true, 60);
    let (response, _) = send(&state, post(PING, &[("x-request-id", "trace-42.a")])).await;
    assert_eq!(response.headers()["x-request-id"], "trace-42.a");
    // Not a short token: a new id is minted instead of echoing what was sent.
    let long = "x".repeat(200);
    let (response, _) = send(&state, post(PING, &[("x-request-id", long.as_str())])).await;
    let minted = response.headers()["x-request-id"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        !minted.is_empty() && minted.len() <= 64 && minted != long,
        "{minted}"
    );
    let (other, _) = send(&state, post(PING, &[])).await;
    assert_ne!(other.headers()["x-request-id"].to_str().unwrap(), minted);
}
