//! A one-request-per-connection HTTP/1.1 server on 127.0.0.1 for the fetch tests: canned answers by request
//! target (path and query), each request's target and `Authorization` header recorded. The fetch admits it
//! only through the test-only setting `CORPUS_FETCH_LOOPBACK_FOR_TESTS=1`.

use std::{
    collections::HashMap,
    io::{BufRead, BufReader, Write},
    net::TcpListener,
    sync::{Arc, Mutex},
};

/// A canned answer: the status line, headers and body; `cut_after` closes the connection after that many
/// body bytes.
#[derive(Clone)]
pub struct Canned {
    pub status: &'static str,
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
    pub cut_after: Option<usize>,
}

impl Canned {
    pub fn ok(body: &[u8]) -> Canned {
        Canned {
            status: "200 OK",
            headers: vec![("Content-Type", "text/csv".into())],
            body: body.to_vec(),
            cut_after: None,
        }
    }

    pub fn redirect(to: &str) -> Canned {
        Canned {
            status: "302 Found",
            headers: vec![("Location", to.into())],
            body: Vec::new(),
            cut_after: None,
        }
    }
}

/// Each request's path and `Authorization` header, as the server saw them.
pub type Seen = Arc<Mutex<Vec<(String, Option<String>)>>>;

/// A one-request-per-connection HTTP/1.1 server on 127.0.0.1 answering `routes` by path; it records each
/// request's path and `Authorization` header.
pub struct LoopbackServer {
    pub port: u16,
    pub seen: Seen,
}

impl LoopbackServer {
    pub fn start<K: Into<String>>(routes: HashMap<K, Canned>) -> LoopbackServer {
        let routes: HashMap<String, Canned> = routes
            .into_iter()
            .map(|(path, canned)| (path.into(), canned))
            .collect();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen: Seen = Arc::new(Mutex::new(Vec::new()));
        let recorded = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                if reader.read_line(&mut line).is_err() {
                    continue;
                }
                let path = line
                    .split_whitespace()
                    .nth(1)
                    .unwrap_or_default()
                    .to_string();
                let mut authorization = None;
                loop {
                    let mut header = String::new();
                    if reader.read_line(&mut header).is_err() || header.trim().is_empty() {
                        break;
                    }
                    if let Some((name, value)) = header.split_once(':')
                        && name.eq_ignore_ascii_case("authorization")
                    {
                        authorization = Some(value.trim().to_string());
                    }
                }
                recorded.lock().unwrap().push((path.clone(), authorization));
                let canned = routes.get(path.as_str()).cloned().unwrap_or(Canned {
                    status: "404 Not Found",
                    headers: Vec::new(),
                    body: b"no such file".to_vec(),
                    cut_after: None,
                });
                let mut stream = stream;
                let mut head = format!("HTTP/1.1 {}\r\nConnection: close\r\n", canned.status);
                if !canned
                    .headers
                    .iter()
                    .any(|(name, _)| *name == "Content-Length")
                {
                    head.push_str(&format!("Content-Length: {}\r\n", canned.body.len()));
                }
                for (name, value) in &canned.headers {
                    head.push_str(&format!("{name}: {value}\r\n"));
                }
                head.push_str("\r\n");
                let body = &canned.body[..canned.cut_after.unwrap_or(canned.body.len())];
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.write_all(body);
            }
        });
        LoopbackServer { port, seen }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    pub fn requests(&self) -> usize {
        self.seen.lock().unwrap().len()
    }
}
