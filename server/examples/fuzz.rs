//! Random-input harness over the JSON-RPC core and every tool's arguments (issue 12's proof under
//! faults): `just fuzz` (or `cargo run --release -p server --example fuzz -- [inputs] [corpus_dir]`).
//!
//! Each input is one of: a tools/call of a random tool (or an unknown one) whose arguments are drawn,
//! per property of the tool's input schema, from valid values, edge values and wrong types, with
//! random extra keys; a valid request mutated byte-wise (cut, spliced, bytes inserted or flipped); a
//! random other method; or a batch of such messages. Every input goes through
//! [`McpServer::handle_text`] on two threads; one in 500 also through the HTTP router. Fails (exit 1)
//! on any panic, any `-32603` (an internal error is a bug for any input), any answer that is not JSON,
//! and any HTTP 500, printing the first inputs that did it.

use std::{
    panic::AssertUnwindSafe,
    path::PathBuf,
    sync::{
        Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::Instant,
};

use axum::{body::Body, http::Request};
use serde_json::{Map, Value, json};
use server::transport::{
    http::{HttpConfig, HttpState},
    jsonrpc::McpServer,
};
use tower::ServiceExt;

/// splitmix64: a small, fast, seedable generator (quality is not the point, reach is).
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut mixed = self.0;
        mixed = (mixed ^ (mixed >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        mixed = (mixed ^ (mixed >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        mixed ^ (mixed >> 31)
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound.max(1) as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }
}

const STRINGS: &[&str] = &[
    "MEX",
    "BRA",
    "ARG",
    "CHL",
    "URY",
    "LCN",
    "WLD",
    "USA",
    "XKX",
    "mex",
    "Brasil",
    "México",
    "brazil",
    "salud",
    "economia",
    "health",
    "educacion",
    "sp_dyn_le00_in",
    "ny_gdp_mktp_cd",
    "si_pov_gini",
    "SP.DYN.LE00.IN",
    "wb-sp-dyn-le00-in-mex-2024",
    "calc-0",
    "pulse-salud",
    "observations",
    "metrics",
    "es",
    "en",
    "pt",
    "fr",
    "rank",
    "forecast",
    "cagr",
    "rank_change",
    "change",
    "0",
    "10",
    "-1",
    "2024",
    "1e308",
    "NaN",
    "null",
    "",
    " ",
    "\u{0}",
    "\t\n",
    "💥🇧🇷",
    "../../etc/passwd",
    "'; DROP TABLE x;--",
    "<script>alert(1)</script>",
    "%00",
    "\\u0000",
    "esperanza de vida",
    "desempleo juvenil",
    "inflación",
    "earthquake deaths",
];

/// A random string: from the pool, random characters, or long.
fn random_string(random: &mut Random) -> String {
    match random.below(6) {
        0 => (0..random.below(40))
            .map(|_| char::from_u32(random.below(0x11_0000) as u32).unwrap_or('?'))
            .collect(),
        1 => "x".repeat(random.below(600)),
        2 => format!(
            "{}{}",
            random.pick(STRINGS),
            random.pick(&["", " ", "_", "-", "ñ", "0"])
        ),
        _ => random.pick(STRINGS).to_string(),
    }
}

/// A random JSON value of any type, `depth` levels deep at most.
fn random_value(random: &mut Random, depth: usize) -> Value {
    match random.below(if depth == 0 { 6 } else { 8 }) {
        0 => Value::Null,
        1 => Value::Bool(random.chance(2)),
        2 => json!(*random.pick(&[
            0i64,
            1,
            -1,
            5,
            20,
            40,
            100,
            500,
            1900,
            1960,
            2024,
            2100,
            9999,
            i64::MAX,
            i64::MIN
        ])),
        3 => json!(*random.pick(&[0.5, -0.0, 1e308, -1e-308, 2024.0, 3.5])),
        4 | 5 => Value::String(random_string(random)),
        6 => Value::Array(
            (0..random.below(12))
                .map(|_| random_value(random, depth - 1))
                .collect(),
        ),
        _ => Value::Object(
            (0..random.below(4))
                .map(|_| (random_string(random), random_value(random, depth - 1)))
                .collect(),
        ),
    }
}

/// Real names from the corpus, so that half the arguments are plausible and the tools do real work.
struct Plausible {
    indicators: Vec<String>,
    countries: Vec<String>,
    pillars: Vec<String>,
}

impl Plausible {
    /// A plausible value for the argument `name`, when the name says what it holds.
    fn value(&self, random: &mut Random, name: &str) -> Option<Value> {
        let year = |random: &mut Random| json!(1990 + random.below(36));
        Some(match name {
            "indicator" | "indicator_a" | "indicator_b" => json!(random.pick(&self.indicators)),
            "country" => json!(random.pick(&self.countries)),
            "countries" => Value::Array(
                (0..1 + random.below(6))
                    .map(|_| json!(random.pick(&self.countries)))
                    .collect(),
            ),
            "parameter" | "pillar" => json!(random.pick(&self.pillars)),
            "year" | "from_year" | "to_year" => year(random),
            "limit" => json!(1 + random.below(60)),
            "offset" => json!(random.below(400)),
            "citation_ids" => Value::Array(
                (0..1 + random.below(5))
                    .map(|_| {
                        let indicator = random.pick(&self.indicators).replace('_', "-");
                        let country = random.pick(&self.countries).to_lowercase();
                        json!(format!(
                            "wb-{indicator}-{country}-{}",
                            2000 + random.below(25)
                        ))
                    })
                    .collect(),
            ),
            _ => return None,
        })
    }
}

/// A value for one property of an input schema: mostly of its type (or one of its enum), sometimes not.
fn value_for(random: &mut Random, schema: &Value) -> Value {
    if random.chance(6) {
        return random_value(random, 2);
    }
    if let Some(choices) = schema.get("enum").and_then(Value::as_array)
        && !choices.is_empty()
        && random.chance(2)
    {
        return random.pick(choices).clone();
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("integer") => json!(random.next() as i64 % 3000),
        Some("number") => json!((random.next() % 10_000) as f64 / 7.0),
        Some("boolean") => Value::Bool(random.chance(2)),
        Some("array") => {
            let items = schema
                .get("items")
                .cloned()
                .unwrap_or(json!({"type": "string"}));
            let most = if random.chance(20) { 300 } else { 9 };
            Value::Array(
                (0..random.below(most))
                    .map(|_| value_for(random, &items))
                    .collect(),
            )
        }
        _ => Value::String(random_string(random)),
    }
}

/// Random arguments for a tool's input schema: each property present or not (required ones mostly
/// present), plausible or random, sometimes extra keys.
fn arguments_for(random: &mut Random, schema: &Value, plausible: &Plausible) -> Value {
    let mut arguments = Map::new();
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (name, property) in properties {
            let present = if required.contains(&name.as_str()) {
                !random.chance(10)
            } else {
                random.chance(2)
            };
            if present {
                let value = plausible
                    .value(random, name)
                    .filter(|_| random.chance(2) || random.chance(2))
                    .unwrap_or_else(|| value_for(random, property));
                arguments.insert(name.clone(), value);
            }
        }
    }
    while random.chance(5) {
        arguments.insert(random_string(random), random_value(random, 1));
    }
    Value::Object(arguments)
}

/// One random message (a value), with a random id of any kind.
fn random_message(random: &mut Random, tools: &[(String, Value)], plausible: &Plausible) -> Value {
    let id = match random.below(8) {
        0 => Value::Null,
        1 => json!("id-x"),
        2 => json!(123_456_789_012_345_678_i64),
        3 => json!(-1.5),
        4 => json!([1]),
        _ => json!(random.below(1000)),
    };
    let mut message = match random.below(10) {
        0 => json!({"method": "initialize", "params": random_value(random, 2)}),
        1 => {
            json!({"method": *random.pick(&["tools/list", "ping", "resources/list", "notifications/initialized", "nope"])})
        }
        2 => json!({"method": "tools/call", "params": random_value(random, 3)}),
        _ => {
            let (name, schema) = random.pick(tools);
            let name = if random.chance(30) {
                random_string(random)
            } else {
                name.clone()
            };
            json!({"method": "tools/call", "params": {"name": name, "arguments": arguments_for(random, schema, plausible)}})
        }
    };
    let object = message.as_object_mut().expect("an object");
    if !random.chance(15) {
        object.insert("jsonrpc".into(), json!("2.0"));
    }
    if !random.chance(12) {
        object.insert("id".into(), id);
    }
    message
}

/// A valid request's text, mutated byte-wise.
fn mutated(random: &mut Random, text: &str) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for _ in 0..=random.below(4) {
        if bytes.is_empty() {
            break;
        }
        let at = random.below(bytes.len());
        match random.below(5) {
            0 => {
                bytes.truncate(at);
            }
            1 => {
                let end = (at + random.below(12)).min(bytes.len());
                bytes.drain(at..end);
            }
            2 => bytes.insert(at, *random.pick(b"{}[]\",:\\0-e.\x00\xff ")),
            3 => bytes[at] ^= 1 << random.below(8),
            _ => {
                let end = (at + random.below(20)).min(bytes.len());
                let slice = bytes[at..end].to_vec();
                bytes.splice(at..at, slice);
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// One random input: a message, a batch, or a mutated request.
fn random_input(random: &mut Random, tools: &[(String, Value)], plausible: &Plausible) -> String {
    match random.below(10) {
        0 => Value::Array(
            (0..random.below(24))
                .map(|_| random_message(random, tools, plausible))
                .collect(),
        )
        .to_string(),
        1 | 2 => {
            let valid = random_message(random, tools, plausible).to_string();
            mutated(random, &valid)
        }
        _ => random_message(random, tools, plausible).to_string(),
    }
}

/// Why an answer is a failure, if it is one.
fn fault(answer: Option<String>) -> Option<String> {
    let answer = answer?;
    match serde_json::from_str::<Value>(&answer) {
        Err(error) => Some(format!("the answer is not JSON ({error})")),
        Ok(_) if answer.contains("\"code\":-32603") => Some("-32603 internal error".into()),
        Ok(_) => None,
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let inputs: u64 = args.next().map_or(10_000_000, |count| {
        count.parse().expect("inputs: a whole number")
    });
    let corpus_dir = args
        .next()
        .map_or_else(|| PathBuf::from("target/fuzz-corpus"), PathBuf::from);
    let server = server::build(&corpus_dir)
        .unwrap_or_else(|error| panic!("{}: {error}", corpus_dir.display()))
        .with_cache_budget(8 * 1024 * 1024);
    let tools: Vec<(String, Value)> = server
        .plugin()
        .tools()
        .iter()
        .map(|tool| (tool.name.to_string(), tool.input_schema.clone()))
        .collect();
    let baked = &server.plugin().corpus().baked;
    let plausible = Plausible {
        indicators: baked
            .metrics()
            .iter()
            .map(|metric| metric.id.clone())
            .collect(),
        countries: baked
            .countries()
            .countries()
            .map(|country| country.iso3.clone())
            .collect(),
        pillars: baked
            .pillars()
            .pillars()
            .iter()
            .map(|pillar| pillar.id.clone())
            .collect(),
    };
    let http = std::sync::Arc::new(HttpState::new(
        server.clone(),
        HttpConfig::local(true, u32::MAX),
    ));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let threads = 2;
    let (done, faults, http_checked) = (AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0));
    // How far the inputs reach: tool results, tool refusals (`isError`), protocol errors.
    let (answered, refused, protocol) = (AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0));
    let examples: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let started = Instant::now();
    let run = |thread: u64, server: &McpServer| {
        let mut random = Random(0x5EED ^ (thread << 32));
        let mut local = 0;
        for _ in (thread..inputs).step_by(threads) {
            let input = random_input(&mut random, &tools, &plausible);
            let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
                server.handle_text(&input).into_body()
            }));
            if let Ok(Some(answer)) = &outcome {
                let counter = if answer.contains("\"isError\":false") {
                    &answered
                } else if answer.contains("\"isError\":true") {
                    &refused
                } else {
                    &protocol
                };
                counter.fetch_add(1, Ordering::Relaxed);
            }
            let problem = match outcome {
                Err(_) => Some("panic".to_string()),
                Ok(answer) => fault(answer),
            };
            let problem = problem.or_else(|| {
                // One in 500 also over HTTP, in process: never a 500.
                (thread == 0 && random.chance(500)).then_some(())?;
                http_checked.fetch_add(1, Ordering::Relaxed);
                let request = Request::post("/api/mcp")
                    .header("content-type", "application/json")
                    .body(Body::from(input.clone()))
                    .expect("a request");
                let response = runtime
                    .block_on(server::transport::http::router(http.clone()).oneshot(request))
                    .expect("the router answers");
                (response.status().as_u16() >= 500).then(|| format!("HTTP {}", response.status()))
            });
            if let Some(problem) = problem {
                faults.fetch_add(1, Ordering::Relaxed);
                let mut examples = examples.lock().unwrap();
                if examples.len() < 5 {
                    examples.push(format!("{problem}: {}", &input[..input.len().min(400)]));
                }
            }
            local += 1;
            if local % 100_000 == 0 {
                let total = done.fetch_add(100_000, Ordering::Relaxed) + 100_000;
                if total % 1_000_000 == 0 {
                    eprintln!(
                        "{total} inputs, {} faults, {:.0} s",
                        faults.load(Ordering::Relaxed),
                        started.elapsed().as_secs_f64()
                    );
                }
            }
        }
        done.fetch_add(local % 100_000, Ordering::Relaxed);
    };
    std::thread::scope(|scope| {
        for thread in 0..threads as u64 {
            let (run, server) = (&run, &server);
            scope.spawn(move || run(thread, server));
        }
    });
    let faults = faults.load(Ordering::Relaxed);
    println!(
        "fuzz: {} inputs over the JSON-RPC core ({} also over HTTP) in {:.0} s: {faults} faults (panics, -32603, non-JSON answers, HTTP 5xx); answers with a tool result {}, an isError refusal {}, a protocol error or other {}",
        done.load(Ordering::Relaxed),
        http_checked.load(Ordering::Relaxed),
        started.elapsed().as_secs_f64(),
        answered.load(Ordering::Relaxed),
        refused.load(Ordering::Relaxed),
        protocol.load(Ordering::Relaxed),
    );
    for example in examples.lock().unwrap().iter() {
        println!("  {example}");
    }
    if faults > 0 {
        std::process::exit(1);
    }
}
