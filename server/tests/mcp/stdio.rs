//! P27 and P28 of `../shared/cases/protocol.md` over stdio, through the real binary: bad lines, pings,
//! EOF, tool calls and batches, invalid UTF-8 and overlong lines.

use std::{
    io::{BufRead, BufReader, Write},
    process::{Command, Stdio},
};

use serde_json::{Value, json};

use crate::support::corpus_dir;

#[test]
fn p27_p28_a_bad_line_then_a_ping_then_eof() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_server"))
        .args(["--stdio", "--corpus-dir", corpus_dir().to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    writeln!(stdin, "{{not json").unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":7,"method":"ping"}}"#).unwrap();
    stdin.flush().unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let parse_error: Value = serde_json::from_str(&line).expect("only JSON-RPC on stdout");
    assert_eq!(
        (
            parse_error["error"]["code"].clone(),
            parse_error["id"].clone()
        ),
        (json!(-32700), Value::Null)
    );
    line.clear();
    stdout.read_line(&mut line).unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&line).unwrap(),
        json!({"jsonrpc":"2.0","id":7,"result":{}})
    );
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success(), "exit 0 when stdin closes: {status}");
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    assert!(rest.is_empty(), "nothing else on stdout: {rest:?}");
}

#[test]
fn stdio_serves_tool_calls_and_batches() {
    let output = Command::new(env!("CARGO_BIN_EXE_server"))
        .args(["--stdio", "--corpus-dir", corpus_dir().to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .and_then(|mut child| {
            let mut stdin = child.stdin.take().unwrap();
            writeln!(stdin, r#"[{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"resolve_citations","arguments":{{"ids":["wb-sp-dyn-le00-in-mex-2024"]}}}}}},{{"jsonrpc":"2.0","method":"notifications/initialized"}}]"#)?;
            drop(stdin);
            child.wait_with_output()
        })
        .unwrap();
    let lines: Vec<&str> = std::str::from_utf8(&output.stdout)
        .unwrap()
        .lines()
        .collect();
    assert_eq!(lines.len(), 1);
    let batch: Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(
        batch[0]["result"]["structuredContent"]["result"]["resolved"][0]["citation_id"],
        json!("wb-sp-dyn-le00-in-mex-2024")
    );
}

#[test]
fn invalid_utf8_and_overlong_lines_are_parse_errors_and_the_loop_goes_on() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_server"))
        .args(["--stdio", "--corpus-dir", corpus_dir().to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"\xff\"}\n")
        .unwrap();
    stdin.write_all(&vec![b'x'; 300 * 1024]).unwrap();
    stdin
        .write_all(b"\n{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\r\n")
        .unwrap();
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    let lines: Vec<Value> = std::str::from_utf8(&output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(
        (
            lines[0]["error"]["code"].clone(),
            lines[1]["error"]["code"].clone()
        ),
        (json!(-32700), json!(-32700))
    );
    assert_eq!(lines[2], json!({"jsonrpc":"2.0","id":3,"result":{}}));
}

/// What a stdio server answers to `lines`, with `public_url` as its `MCP_PUBLIC_URL` (or none).
fn stdio_with_public_url(lines: &[Value], public_url: Option<&str>) -> String {
    let lines: Vec<String> = lines.iter().map(Value::to_string).collect();
    crate::support::stdio_output(&lines, &[("MCP_PUBLIC_URL", public_url)])
}

#[test]
fn over_stdio_links_never_point_where_nothing_listens() {
    let calls = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_dataset", "arguments": {"dataset_id": "observations", "indicator": "sp_dyn_le00_in", "country": "MEX", "limit": 3}}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "get_series", "arguments": {"indicator": "sp_dyn_le00_in", "countries": ["MEX"]}}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "get_data_health", "arguments": {}}}),
    ];
    // No MCP_PUBLIC_URL: the files are their MCP resource URIs, and nothing names the default address.
    let answered = stdio_with_public_url(&calls, None);
    assert!(!answered.contains("127.0.0.1"));
    assert!(answered.contains("corpus://indicator/sp_dyn_le00_in.csv"));
    assert!(answered.contains("`just serve`"));
    // With one, every link is under it.
    let answered = stdio_with_public_url(&calls, Some("https://corpus.example.org"));
    assert!(!answered.contains("127.0.0.1"));
    assert!(answered.contains("https://corpus.example.org/api/v1/indicators/sp_dyn_le00_in.csv"));
}
