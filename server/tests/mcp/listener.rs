//! The accept loop over real sockets: slow or idle clients are cut at the header-read timeout, the
//! connection cap sheds with 503 and `Retry-After`, and the server answers again once sockets free up.

use std::time::Duration;

use server::transport::listener::{self, ServeLimits};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpStream},
};

use crate::support::http_state;

/// A server on a free loopback port under `limits`; its address.
async fn start(limits: ServeLimits) -> std::net::SocketAddr {
    let socket = TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let address = socket.local_addr().unwrap();
    let app = server::transport::http::service(http_state(true, 1000));
    tokio::spawn(listener::serve(socket, app, limits, std::future::pending()));
    address
}

/// Everything the server sends on `stream` until it closes it (or 5 s pass).
async fn read_all(stream: &mut TcpStream) -> String {
    let mut bytes = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut bytes)).await;
    String::from_utf8_lossy(&bytes).into_owned()
}

/// What a fresh connection reads back for a ping.
async fn ping_answer(address: std::net::SocketAddr) -> String {
    let mut client = TcpStream::connect(address).await.unwrap();
    client
        .write_all(ping(&address.to_string()).as_bytes())
        .await
        .unwrap();
    read_all(&mut client).await
}

fn ping(host: &str) -> String {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    format!(
        "POST /api/mcp HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}

#[tokio::test]
async fn a_client_that_trickles_its_headers_is_cut_at_the_timeout() {
    let address = start(ServeLimits {
        header_read_timeout: Duration::from_secs(1),
        ..ServeLimits::default()
    })
    .await;
    let mut slow = TcpStream::connect(address).await.unwrap();
    slow.write_all(b"POST /api/mcp HTTP/1.1\r\n").await.unwrap();
    let started = std::time::Instant::now();
    let mut trickled = true;
    for _ in 0..4 {
        tokio::time::sleep(Duration::from_millis(600)).await;
        if slow.write_all(b"x-slow: 1\r\n").await.is_err() {
            trickled = false;
            break;
        }
    }
    // The server closed the socket: a write failed, or the read ends at once (it would wait 5 s on an
    // open one).
    let read_started = std::time::Instant::now();
    let answer = read_all(&mut slow).await;
    assert!(
        !trickled || read_started.elapsed() < Duration::from_secs(3),
        "the slow connection is still open after {:?}: {answer:?}",
        started.elapsed()
    );
    // A normal client is answered.
    let answer = ping_answer(address).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains(r#""result":{}"#), "{answer}");
}

#[tokio::test]
async fn past_the_connection_cap_a_new_connection_gets_503_with_retry_after() {
    let address = start(ServeLimits {
        header_read_timeout: Duration::from_secs(2),
        max_connections: 2,
        ..ServeLimits::default()
    })
    .await;
    let _idle: Vec<TcpStream> = vec![
        TcpStream::connect(address).await.unwrap(),
        TcpStream::connect(address).await.unwrap(),
    ];
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut third = TcpStream::connect(address).await.unwrap();
    let answer = read_all(&mut third).await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    let head = answer.to_ascii_lowercase();
    assert!(head.contains("retry-after: 1"), "{answer}");
    assert!(head.contains("x-content-type-options: nosniff"), "{answer}");
    assert!(answer.contains("too many open connections"), "{answer}");
    // The idle ones are cut at the header-read timeout, and the server answers again.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let answer = ping_answer(address).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

#[tokio::test]
async fn one_client_cannot_hold_more_than_its_share_of_connections() {
    let address = start(ServeLimits {
        header_read_timeout: Duration::from_secs(2),
        max_connections: 10,
        max_connections_per_client: 2,
        ..ServeLimits::default()
    })
    .await;
    let _held: Vec<TcpStream> = vec![
        TcpStream::connect(address).await.unwrap(),
        TcpStream::connect(address).await.unwrap(),
    ];
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut third = TcpStream::connect(address).await.unwrap();
    let answer = read_all(&mut third).await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    // Its slots come back when its connections close.
    drop(_held);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let answer = ping_answer(address).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

#[tokio::test]
async fn a_client_that_stops_reading_a_download_is_cut_at_the_write_stall_timeout() {
    let address = start(ServeLimits {
        max_connections_per_client: 1,
        write_stall_timeout: Duration::from_millis(500),
        ..ServeLimits::default()
    })
    .await;
    // The whole observations table (megabytes) asked for and never read: the socket buffers fill, the
    // write stalls, and the server closes the connection, which frees the client's only slot.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stalled = socket.connect(address).await.unwrap();
    stalled
        .write_all(
            format!("GET /api/v1/datasets/observations.csv.gz HTTP/1.1\r\nhost: {address}\r\n\r\n")
                .as_bytes(),
        )
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(2000)).await;
    let answer = ping_answer(address).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    drop(stalled);
}

/// A connection from `source` (any 127/8 address: Linux routes the whole block to loopback) to `address`.
async fn connect_from(source: &str, address: std::net::SocketAddr) -> TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket
        .bind(format!("{source}:0").parse().unwrap())
        .expect("a loopback source address");
    socket.connect(address).await.unwrap()
}

#[tokio::test]
async fn at_the_global_cap_a_client_over_its_fair_share_gives_up_its_oldest_kept_alive_connection()
{
    let address = start(ServeLimits {
        header_read_timeout: Duration::from_secs(30),
        max_connections: 4,
        max_connections_per_client: 4,
        fair_share_per_client: 1,
        ..ServeLimits::default()
    })
    .await;
    // One client holds every slot with kept-alive connections.
    let mut hog = Vec::new();
    for _ in 0..4 {
        hog.push(connect_from("127.0.0.2", address).await);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    // Another client is answered: the hog's oldest connection closes for it.
    let mut newcomer = connect_from("127.0.0.3", address).await;
    newcomer
        .write_all(ping(&address.to_string()).as_bytes())
        .await
        .unwrap();
    let answer = read_all(&mut newcomer).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let mut oldest = hog.remove(0);
    let mut byte = [0u8; 1];
    let read = tokio::time::timeout(Duration::from_secs(5), oldest.read(&mut byte)).await;
    assert!(
        matches!(read, Ok(Ok(0)) | Ok(Err(_))),
        "the hog's oldest connection was closed: {read:?}"
    );
    // Every slot taken again (three of the hog's, one of a third client within its share): the hog is
    // not given another's slot, its own new connection is shed.
    let _third = connect_from("127.0.0.4", address).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut again = connect_from("127.0.0.2", address).await;
    let answer = read_all(&mut again).await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
}

#[tokio::test]
async fn a_drain_ends_within_the_header_timeout_even_with_half_a_request_head_open() {
    let socket = TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let address = socket.local_addr().unwrap();
    let app = server::transport::http::service(http_state(true, 1000));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let limits = ServeLimits {
        header_read_timeout: Duration::from_secs(1),
        ..ServeLimits::default()
    };
    let serving = tokio::spawn(listener::serve(socket, app, limits, async {
        let _ = stopped.await;
    }));
    // One byte of a request head, then nothing: hyper will not close it gracefully by itself.
    let mut slow = TcpStream::connect(address).await.unwrap();
    slow.write_all(b"P").await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let _ = stop.send(());
    let started = std::time::Instant::now();
    let drained = tokio::time::timeout(Duration::from_secs(5), serving).await;
    assert!(
        drained.is_ok(),
        "the drain still waits for the half-open request after {:?}",
        started.elapsed()
    );
    // The slow connection was cut, not answered.
    assert_eq!(read_all(&mut slow).await, "");
}
