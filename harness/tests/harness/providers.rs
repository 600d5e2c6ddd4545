//! `pagesnap run` with model agents against a scripted LLM provider on 127.0.0.1: faults, retries, Retry-After, timeouts, structured-output fallback, images, concurrency, secrets and cassettes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use crate::support::http::{self, Reply, Request};
use crate::support::{root, stderr};
use base64::Engine as _;
use serde_json::{Value, json};

const SECRET: &str = "sk-test-SECRET123";

// ---------------------------------------------------------------- the server

/// A request the server received.
#[derive(Clone, Debug)]
struct Seen {
    scenario: String,
    strategy: String,
    path: String,
    headers: BTreeMap<String, String>,
    body: Value,
    at: Instant,
}

#[derive(Default)]
struct State {
    seen: Vec<Seen>,
    in_flight: usize,
    max_in_flight: usize,
}

/// A fake provider speaking the OpenAI chat completions and Anthropic Messages
/// wire formats. What it answers is scripted by the scenario named in the
/// task's instruction (`(scenario: NAME)`) and how many requests of that
/// scenario and strategy it has seen:
///
/// - `ok`: a fenced JSON answer clicking ref `10` (Sign in on login/initial).
/// - `rate-once`: 429 with `Retry-After` first (1 s for OpenAI, an HTTP date
///   for Anthropic), then `ok`. `rate-always`: 429 with `Retry-After: 0`.
/// - `server-once`: 500 first, then `ok`. `server-always`: 500 (529 for
///   Anthropic) with a body echoing the API key.
/// - `hang`: never answers in time. `malformed`: 200 with a cut-off body.
/// - `bad-ref`: clicks `e999`. `prose`: answers without JSON.
/// - `schema`: 400 naming `response_format` when the request has one, else `ok`.
/// - `slow`: `ok` after 100 ms (for the concurrency limit).
struct Server {
    http: http::Server,
    state: Arc<Mutex<State>>,
}

impl Server {
    fn start() -> Server {
        let state = Arc::new(Mutex::new(State::default()));
        let shared = Arc::clone(&state);
        let http = http::Server::start(move |request| handle(request, &shared));
        Server { http, state }
    }

    fn url(&self) -> String {
        self.http.url()
    }

    /// Stops accepting: later connections are refused.
    fn stop(&self) {
        self.http.stop();
    }

    fn seen(&self) -> Vec<Seen> {
        self.state.lock().unwrap().seen.clone()
    }

    fn requests(&self, scenario: &str, strategy: &str) -> Vec<Seen> {
        self.seen()
            .into_iter()
            .filter(|s| s.scenario == scenario && s.strategy == strategy)
            .collect()
    }
}

fn handle(request: Request, state: &Mutex<State>) -> Reply {
    let text = String::from_utf8(request.body.clone()).unwrap();
    let body = request.json();
    let word_after = |marker: &str| {
        text.split(marker)
            .nth(1)
            .map(|rest| {
                rest.chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                    .collect::<String>()
            })
            .unwrap_or_default()
    };
    let seen = Seen {
        scenario: word_after("(scenario: "),
        strategy: word_after("Observation ("),
        path: request.path,
        headers: request.headers,
        body,
        at: Instant::now(),
    };
    let n = {
        let mut st = state.lock().unwrap();
        let n = st
            .seen
            .iter()
            .filter(|s| s.scenario == seen.scenario && s.strategy == seen.strategy)
            .count();
        st.seen.push(seen.clone());
        st.in_flight += 1;
        st.max_in_flight = st.max_in_flight.max(st.in_flight);
        n
    };
    let (status, headers, body) = respond(&seen, n);
    // Out of flight before the answer is written: the client holds its permit
    // until it has read the answer, so this interval lies inside the client's
    // and overlaps here only when the client's overlap. Counting after the
    // write races the next request past the decrement.
    state.lock().unwrap().in_flight -= 1;
    Reply {
        status,
        headers,
        body,
    }
}

fn respond(seen: &Seen, n: usize) -> (u16, String, String) {
    let anthropic = seen.path == "/v1/messages";
    let answer = |text: &str| {
        let body = if anthropic {
            json!({"id": "msg_1", "type": "message", "role": "assistant",
                "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                "usage": {"input_tokens": 1000, "output_tokens": 20}})
        } else {
            http::chat_completion(text, 1000, 20)
        };
        (200, String::new(), body.to_string())
    };
    let ok = || {
        answer(
            "I will press Sign in.\n```json\n{\"op\": \"click\", \"ref\": \"10\", \"value\": null}\n```",
        )
    };
    let error = |status: u16, extra: String, message: &str| {
        (
            status,
            extra,
            json!({"error": {"message": message}}).to_string(),
        )
    };
    let request = seen.body.to_string();
    if request.contains("You are the judge") {
        // A judge that checks what the rule judge checks: a click on Sign in.
        let right = request.contains(r#"click [e10] button \"Sign in\""#);
        return answer(&format!(
            "{{\"success\": {right}, \"reason\": \"the action {} Sign in\"}}",
            if right { "clicks" } else { "does not click" }
        ));
    }
    match seen.scenario.as_str() {
        "ok" | "ok-two" | "ok-new" => ok(),
        "rate-once" if n == 0 => {
            let after = if anthropic {
                httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(1))
            } else {
                "1".to_owned()
            };
            error(429, format!("retry-after: {after}\r\n"), "slow down")
        }
        "server-once" if n == 0 => error(500, String::new(), "oops"),
        "rate-once" | "server-once" => ok(),
        "rate-always" => error(429, "retry-after: 0\r\n".into(), "slow down"),
        "server-always" => error(
            if anthropic { 529 } else { 500 },
            String::new(),
            &format!("upstream failed for Bearer {SECRET}"),
        ),
        "hang" => {
            std::thread::sleep(Duration::from_secs(3));
            ok()
        }
        "malformed" => (200, String::new(), "{\"choices\": [{\"mess".into()),
        "bad-ref" => answer("{\"op\":\"click\",\"ref\":\"e999\",\"value\":null}"),
        "prose" => answer("I would click the Sign in button."),
        "schema" if seen.body.get("response_format").is_some() => error(
            400,
            String::new(),
            "Invalid parameter: response_format of type json_schema is not supported with this model.",
        ),
        "schema" => ok(),
        "reasoning" if seen.body.get("max_tokens").is_some() => error(
            400,
            String::new(),
            "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
        ),
        "reasoning" => ok(),
        "slow" => {
            std::thread::sleep(Duration::from_millis(100));
            ok()
        }
        other => error(400, String::new(), &format!("unknown scenario {other:?}")),
    }
}

// ---------------------------------------------------------------- running pagesnap

/// A suite of one task per scenario over login/initial (`ok-two` has two
/// steps; `slow#3` is scenario `slow` in a task of its own).
fn write_suite(dir: &Path, scenarios: &[&str]) -> PathBuf {
    let mut text = String::from("[suite]\nname = \"providers\"\n");
    for scenario in scenarios {
        let id = scenario.replace('#', "-");
        text.push_str(&format!(
            "\n[[task]]\nid = \"{id}\"\ninstruction = \"Click the Sign in button (scenario: {scenario})\"\n"
        ));
        let steps = if *scenario == "ok-two" { 2 } else { 1 };
        for _ in 0..steps {
            text.push_str(
                "[[task.step]]\nrecording = \"login/initial\"\nop = \"click\"\n\
                 target = { selector = \"#sign-in\" }\n",
            );
        }
    }
    let path = dir.join(format!("suite-{}.toml", scenarios.len()));
    std::fs::write(&path, text).unwrap();
    path
}

fn pagesnap(suite: &Path, out: &Path, args: &[&str]) -> Output {
    let output = Command::new(crate::support::exe())
        .current_dir(root())
        .env_remove("OPENAI_BASE_URL")
        .env_remove("ANTHROPIC_BASE_URL")
        .env("OPENAI_API_KEY", SECRET)
        .env("ANTHROPIC_API_KEY", SECRET)
        .args(["run", "--suite", suite.to_str().unwrap()])
        .args(["--fixtures", root().join("fixtures").to_str().unwrap()])
        .args(["--out", out.to_str().unwrap()])
        .args(args)
        .output()
        .expect("pagesnap runs");
    assert_no_secret(out, &output);
    output
}

/// The key is in no output file, nor on stdout or stderr.
fn assert_no_secret(out: &Path, output: &Output) {
    for stream in [&output.stdout, &output.stderr] {
        assert!(!String::from_utf8_lossy(stream).contains("SECRET123"));
    }
    // Every file of the run, the step pages under `steps/` included.
    let mut stack = vec![out.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            assert!(
                !String::from_utf8_lossy(&bytes).contains("SECRET123"),
                "the API key leaked into {}",
                path.display()
            );
        }
    }
}

/// results.jsonl rows by (task, strategy, step).
fn rows(out: &Path) -> BTreeMap<(String, String, u64), Value> {
    std::fs::read_to_string(out.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|line| {
            let row: Value = serde_json::from_str(line).unwrap();
            let key = (
                row["task"].as_str().unwrap().to_owned(),
                row["strategy"].as_str().unwrap().to_owned(),
                row["step"].as_u64().unwrap(),
            );
            (key, row)
        })
        .collect()
}

fn row<'a>(
    rows: &'a BTreeMap<(String, String, u64), Value>,
    task: &str,
    strategy: &str,
) -> &'a Value {
    &rows[&(task.to_owned(), strategy.to_owned(), 1)]
}

/// Short retries and a model timeout under the `hang` scenario's 3 s, yet long enough that an answered
/// request is never retried on a loaded machine (0.5 s was not: a CI run beside the Chromium tests timed
/// out an `ok` request once and sent one request more than the test counts).
const FAST: &[&str] = &[
    "--max-retries",
    "2",
    "--retry-base-ms",
    "5",
    "--model-timeout",
    "2",
];

// ---------------------------------------------------------------- tests

#[test]
fn openai_faults_are_counted_and_retried_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let scenarios = [
        "schema",
        "ok",
        "ok-two",
        "rate-once",
        "rate-always",
        "server-once",
        "server-always",
        "hang",
        "malformed",
        "bad-ref",
        "prose",
        "reasoning",
    ];
    let suite = write_suite(dir.path(), &scenarios);
    let prices = dir.path().join("prices.toml");
    std::fs::write(
        &prices,
        "[models.\"openai:test-model\"]\ninput = 1.0\noutput = 2.0\n",
    )
    .unwrap();
    let server = Server::start();
    let out = dir.path().join("run");
    let mut args = vec![
        "--agent",
        "openai:test-model",
        "--strategy",
        "aria",
        "--jobs",
        "1",
        "--prices",
        prices.to_str().unwrap(),
    ];
    let url = server.url();
    args.extend(["--base-url", url.as_str()]);
    args.extend(FAST);
    let output = pagesnap(&suite, &out, &args);
    assert!(output.status.success(), "{}", stderr(&output));

    // Nothing lost: one row per step.
    let rows = rows(&out);
    assert_eq!(rows.len(), scenarios.len() + 1);
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    assert_eq!(records(&csv).len(), 1 + scenarios.len() + 1);

    let count = |scenario: &str| server.requests(scenario, "aria").len();
    let expect = |task: &str, fault: Option<&str>, retries: u64, requests: usize| {
        let r = row(&rows, task, "aria");
        assert_eq!(r["fault"].as_str(), fault, "{task}: {r}");
        assert_eq!(r["retries"], retries, "{task}: {r}");
        assert_eq!(count(task), requests, "{task}: requests the server saw");
        r
    };

    // Structured output rejected once, then never asked for again.
    let r = expect("schema", None, 1, 2);
    assert_eq!(r["success"], true, "{r}");
    let seen = server.seen();
    assert!(seen[0].body.get("response_format").is_some());
    assert_eq!(
        seen[0].body["response_format"]["json_schema"]["strict"],
        true
    );
    assert!(
        seen[1..]
            .iter()
            .all(|s| s.body.get("response_format").is_none())
    );
    assert!(stderr(&output).contains("rejected response_format"));
    // A reasoning model's 400 about max_tokens: asked again with max_completion_tokens.
    let r = expect("reasoning", None, 1, 2);
    assert_eq!(r["success"], true, "{r}");
    let reasoning = server.requests("reasoning", "aria");
    assert_eq!(reasoning[1].body["max_completion_tokens"], 256);
    assert!(reasoning[1].body.get("max_tokens").is_none());

    // Success: the flat-style ref "10" is read as aria's "e10"; usage and cost.
    let r = expect("ok", None, 0, 1);
    assert_eq!(
        (r["success"].as_bool(), r["ref"].as_str()),
        (Some(true), Some("e10")),
        "{r}"
    );
    assert_eq!(
        (r["input_tokens"].as_u64(), r["output_tokens"].as_u64()),
        (Some(1000), Some(20))
    );
    assert!(
        (r["cost_usd"].as_f64().unwrap() - 0.00104).abs() < 1e-12,
        "{r}"
    );
    // A priced model: the report charts step SR against cost per step.
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<svg id=\"chart-cost\""), "no cost chart");
    assert!(html.contains("USD per step"));
    // The second step's prompt carries the first step's action.
    let two = server.requests("ok-two", "aria");
    assert_eq!(two.len(), 2);
    let user = |s: &Seen| {
        s.body["messages"][1]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert!(user(&two[0]).contains("Actions taken so far:\nnone"));
    assert!(
        user(&two[1]).contains("1. {\"op\":\"click\",\"ref\":\"e10\",\"value\":null}"),
        "{}",
        user(&two[1])
    );

    // 429 with Retry-After: 1 — retried once, after waiting the second.
    let r = expect("rate-once", None, 1, 2);
    assert_eq!(r["success"], true);
    let rate = server.requests("rate-once", "aria");
    assert!(
        rate[1].at - rate[0].at >= Duration::from_millis(950),
        "Retry-After honoured"
    );

    expect("rate-always", Some("rate_limited"), 2, 3);
    expect("server-once", None, 1, 2);
    let r = expect("server-always", Some("server"), 2, 3);
    let error = r["error"].as_str().unwrap();
    assert!(
        error.contains("HTTP 500") && error.contains("Bearer ***"),
        "{error}"
    );
    expect("hang", Some("timeout"), 2, 3);
    let r = expect("malformed", Some("malformed"), 0, 1);
    assert!(r["error"].as_str().unwrap().contains("not JSON"), "{r}");

    // A ref not in the observation is the runner's hallucination, not a fault.
    let r = expect("bad-ref", None, 0, 1);
    assert_eq!(
        (r["hallucinated"].as_bool(), r["ref"].as_str()),
        (Some(true), Some("e999"))
    );
    assert_eq!(r["success"], false);
    let r = expect("prose", None, 0, 1);
    assert_eq!(r["invalid"], true, "{r}");

    // The wire format: key as a bearer token, system + user, temperature 0, no image for aria.
    let first = &seen[0];
    assert_eq!(first.path, "/v1/chat/completions");
    assert_eq!(first.headers["authorization"], format!("Bearer {SECRET}"));
    assert_eq!(first.body["model"], "test-model");
    assert_eq!(first.body["temperature"], 0.0);
    assert_eq!(first.body["messages"][0]["role"], "system");
    let system = first.body["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("Use only refs that appear in the observation")
            && system.contains("[ref=eN]")
    );
    assert_eq!(
        first.body["messages"][1]["content"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn anthropic_wire_format_faults_and_images() {
    let dir = tempfile::tempdir().unwrap();
    let scenarios = ["ok", "rate-once", "server-always", "malformed", "bad-ref"];
    let suite = write_suite(dir.path(), &scenarios);
    let server = Server::start();
    let out = dir.path().join("run");
    let url = server.url();
    let mut args = vec![
        "--agent",
        "anthropic:claude-test",
        "--strategy",
        "aria,som",
        "--jobs",
        "2",
        "--base-url",
        url.as_str(),
    ];
    args.extend(FAST);
    let output = pagesnap(&suite, &out, &args);
    assert!(output.status.success(), "{}", stderr(&output));
    let rows = rows(&out);
    assert_eq!(rows.len(), 2 * scenarios.len());
    for strategy in ["aria", "som"] {
        let r = row(&rows, "ok", strategy);
        assert_eq!(r["success"], true, "{r}");
        assert_eq!(r["input_tokens"], 1000);
        assert_eq!(r["cost_usd"], 0.0, "unknown models cost 0");
        let r = row(&rows, "rate-once", strategy);
        assert_eq!(
            (r["retries"].as_u64(), r["success"].as_bool()),
            (Some(1), Some(true)),
            "{r}"
        );
        let r = row(&rows, "server-always", strategy);
        assert_eq!(
            (r["fault"].as_str(), r["retries"].as_u64()),
            (Some("server"), Some(2)),
            "{r}"
        );
        assert_eq!(server.requests("server-always", strategy).len(), 3);
        let r = row(&rows, "malformed", strategy);
        assert_eq!(r["fault"], "malformed", "{r}");
        let r = row(&rows, "bad-ref", strategy);
        assert_eq!(r["hallucinated"], true, "{r}");
    }
    assert!(stderr(&output).contains("no price for anthropic:claude-test"));

    for seen in server.seen() {
        assert_eq!(seen.path, "/v1/messages");
        assert_eq!(seen.headers["x-api-key"], SECRET);
        assert_eq!(seen.headers["anthropic-version"], "2023-06-01");
        assert!(!seen.headers.contains_key("authorization"));
        assert!(
            seen.body["system"]
                .as_str()
                .unwrap()
                .contains("Use only refs")
        );
        assert_eq!(seen.body["model"], "claude-test");
        let content = seen.body["messages"][0]["content"].as_array().unwrap();
        assert_eq!(content[0]["type"], "text");
        if seen.strategy == "som" {
            assert_eq!(content.len(), 2, "som sends the screenshot");
            let source = &content[1]["source"];
            assert_eq!(
                (content[1]["type"].as_str(), source["type"].as_str()),
                (Some("image"), Some("base64"))
            );
            assert_eq!(source["media_type"], "image/png");
            let png = base64::engine::general_purpose::STANDARD
                .decode(source["data"].as_str().unwrap())
                .unwrap();
            assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
        } else {
            assert_eq!(content.len(), 1, "{} sends no image", seen.strategy);
        }
    }
}

#[test]
fn concurrency_limit_holds_across_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let scenarios = ["slow#1", "slow#2", "slow#3", "slow#4", "slow#5", "slow#6"];
    let suite = write_suite(dir.path(), &scenarios);
    let server = Server::start();
    let out = dir.path().join("run");
    let url = server.url();
    let output = pagesnap(
        &suite,
        &out,
        &[
            "--agent",
            "openai:test-model",
            "--strategy",
            "flat",
            "--jobs",
            "4",
            "--concurrency",
            "1",
            "--base-url",
            &url,
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(rows(&out).len(), 6);
    assert_eq!(server.seen().len(), 6);
    assert_eq!(server.state.lock().unwrap().max_in_flight, 1);
}

/// results.csv's records (header included); it holds no wall-clock column
/// (those are in timings.csv), so equal runs give equal bytes.
fn records(csv: &str) -> Vec<csv::StringRecord> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(csv.as_bytes());
    let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let header = &records[0];
    assert!(
        !header
            .iter()
            .any(|h| h == "analysis_us" || h == "engine_us" || h == "agent_us"),
        "{header:?}"
    );
    records
}

#[test]
fn cassette_replay_reproduces_results_without_network() {
    let dir = tempfile::tempdir().unwrap();
    let scenarios = ["ok", "ok-two", "server-always", "bad-ref", "prose"];
    let suite = write_suite(dir.path(), &scenarios);
    let server = Server::start();
    let url = server.url();
    let recorded = dir.path().join("recorded");
    let mut args = vec![
        "--agent",
        "openai:test-model",
        "--strategy",
        "flat,som",
        "--jobs",
        "2",
        "--base-url",
        url.as_str(),
    ];
    args.extend(FAST);
    let mut record = args.clone();
    record.extend(["--cassette", "record"]);
    let output = pagesnap(&suite, &recorded, &record);
    assert!(output.status.success(), "{}", stderr(&output));
    let sent = server.seen().len();
    assert_eq!(
        sent,
        2 * (scenarios.len() + 1) + 2 * 2,
        "server-always retried twice per strategy"
    );

    // OpenAI's image part for som.
    for seen in server.seen() {
        let content = seen.body["messages"][1]["content"]
            .as_array()
            .unwrap()
            .clone();
        if seen.strategy == "som" {
            let url = content[1]["image_url"]["url"].as_str().unwrap();
            assert!(
                url.starts_with("data:image/png;base64,iVBORw0KGgo"),
                "{}",
                &url[..40]
            );
        } else {
            assert_eq!(content.len(), 1);
        }
    }

    // Each step's page shows the prompt exactly as the server received it.
    let first = server
        .seen()
        .into_iter()
        .find(|seen| seen.strategy == "flat")
        .unwrap();
    let user = first.body["messages"][1]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    let pages: Vec<String> = scenarios
        .iter()
        .map(|task| {
            std::fs::read_to_string(recorded.join(format!("steps/{task}/flat/step-1.html")))
                .unwrap()
        })
        .collect();
    let escaped = user
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;");
    assert!(
        pages.iter().any(|page| page.contains(&escaped)),
        "no step page holds the prompt sent:\n{user}"
    );
    assert!(pages.iter().all(|page| page.contains("id=\"system\"")));

    let cassette = recorded.join("cassette.jsonl");
    let text = std::fs::read_to_string(&cassette).unwrap();
    // One exchange per distinct request (ok-two's second step differs by its history).
    assert_eq!(text.lines().count(), 2 * (scenarios.len() + 1));
    for line in text.lines() {
        let entry: Value = serde_json::from_str(line).unwrap();
        assert_eq!(entry["key"].as_str().unwrap().len(), 64);
        assert_eq!(entry["backend"], "openai:test-model");
        assert!(
            entry["reply"].is_object() != entry["error"].is_object(),
            "{}",
            &line[..200]
        );
    }
    // No header is stored; the server's echo of the key in its 500 body is redacted.
    let lower = text.to_lowercase();
    assert!(!lower.contains("authorization") && !lower.contains("x-api-key"));
    assert!(text.contains("upstream failed for Bearer ***"));

    server.stop();
    let replayed = dir.path().join("replayed");
    let mut replay = args.clone();
    replay.extend([
        "--cassette",
        "replay",
        "--cassette-file",
        cassette.to_str().unwrap(),
    ]);
    let output = pagesnap(&suite, &replayed, &replay);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(server.seen().len(), sent, "replay sends nothing");
    let a = std::fs::read_to_string(recorded.join("results.csv")).unwrap();
    let b = std::fs::read_to_string(replayed.join("results.csv")).unwrap();
    records(&a);
    assert!(a == b, "replayed results.csv differs:\n{a}\n---\n{b}");
    assert!(
        a.contains("server"),
        "the fault row is part of the comparison"
    );
}

#[test]
fn cassette_miss_stops_the_run_loudly_and_keeps_rows() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start();
    let url = server.url();
    let recorded = dir.path().join("recorded");
    let args = [
        "--agent",
        "openai:test-model",
        "--strategy",
        "aria",
        "--jobs",
        "1",
        "--base-url",
        url.as_str(),
    ];
    let suite = write_suite(dir.path(), &["ok", "bad-ref"]);
    let mut record = args.to_vec();
    record.extend(["--cassette", "record"]);
    let output = pagesnap(&suite, &recorded, &record);
    assert!(output.status.success(), "{}", stderr(&output));
    server.stop();

    let cassette = recorded.join("cassette.jsonl");
    let bigger = write_suite(dir.path(), &["ok", "bad-ref", "ok-new"]);
    let replayed = dir.path().join("replayed");
    let mut replay = args.to_vec();
    replay.extend([
        "--cassette",
        "replay",
        "--cassette-file",
        cassette.to_str().unwrap(),
    ]);
    let output = pagesnap(&bigger, &replayed, &replay);
    assert!(!output.status.success());
    let err = stderr(&output);
    assert!(
        err.contains(&format!(
            "cassette {} has no exchange for key",
            cassette.display()
        )),
        "{err}"
    );
    let key = err.split("for key ").nth(1).unwrap();
    assert!(key.chars().take(64).all(|c| c.is_ascii_hexdigit()), "{err}");
    assert_eq!(
        rows(&replayed).len(),
        2,
        "the rows before the miss are kept"
    );

    // Replaying from a cassette that does not exist is refused up front.
    let output = pagesnap(
        &suite,
        &dir.path().join("none"),
        &[
            "--agent",
            "openai:test-model",
            "--cassette",
            "replay",
            "--cassette-file",
            "/nonexistent/c.jsonl",
        ],
    );
    assert!(
        stderr(&output).contains("cassette /nonexistent/c.jsonl does not exist"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn unknown_agents_list_the_known_forms() {
    let dir = tempfile::tempdir().unwrap();
    let suite = write_suite(dir.path(), &["ok"]);
    let output = pagesnap(&suite, &dir.path().join("run"), &["--agent", "gpt-4o"]);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains(
            "unknown agent \"gpt-4o\" (known: baseline, reader, openai:MODEL, anthropic:MODEL)"
        ),
        "{}",
        stderr(&output)
    );
    let output = pagesnap(&suite, &dir.path().join("run2"), &["--agent", "openai:"]);
    assert!(
        stderr(&output).contains("names no model"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn connection_refused_is_a_connection_fault_after_retries() {
    let dir = tempfile::tempdir().unwrap();
    let suite = write_suite(dir.path(), &["ok", "bad-ref"]);
    let server = Server::start();
    server.stop();
    let out = dir.path().join("run");
    let url = server.url();
    let mut args = vec![
        "--agent",
        "openai:test-model",
        "--strategy",
        "flat",
        "--base-url",
        url.as_str(),
    ];
    args.extend(FAST);
    let output = pagesnap(&suite, &out, &args);
    assert!(
        output.status.success(),
        "a provider fault is a row, not a crash: {}",
        stderr(&output)
    );
    let rows = rows(&out);
    assert_eq!(rows.len(), 2);
    for r in rows.values() {
        assert_eq!(
            (r["fault"].as_str(), r["retries"].as_u64()),
            (Some("connection"), Some(2)),
            "{r}"
        );
        assert_eq!(r["success"], false);
        assert!(r["error"].as_str().unwrap().contains(&url), "{r}");
    }
}

#[test]
fn llm_judge_verdicts_and_agreement_with_the_rule_judge() {
    let dir = tempfile::tempdir().unwrap();
    let suite = write_suite(dir.path(), &["ok", "ok-two", "bad-ref"]);
    let server = Server::start();
    let out = dir.path().join("run");
    let url = server.url();
    let mut args = vec![
        "--agent",
        "openai:test-model",
        "--judge",
        "llm:openai:judge-model",
        "--strategy",
        "aria",
        "--base-url",
        url.as_str(),
    ];
    args.extend(FAST);
    let output = pagesnap(&suite, &out, &args);
    assert!(output.status.success(), "{}", stderr(&output));
    let rows = rows(&out);
    assert_eq!(rows.len(), 4);
    for r in rows.values() {
        // Right clicks are judged right, the hallucinated ref wrong.
        assert_eq!(r["judge"].as_bool(), r["success"].as_bool(), "{r}");
        assert!(
            r["judge_reason"].as_str().unwrap().contains("Sign in"),
            "{r}"
        );
    }
    // Task verdicts sit on each task's last step only.
    let task_verdicts: Vec<(String, u64, Option<bool>)> = rows
        .iter()
        .map(|((task, _, step), r)| (task.clone(), *step, r["task_judge"].as_bool()))
        .collect();
    assert_eq!(
        task_verdicts,
        vec![
            ("bad-ref".to_owned(), 1, Some(false)),
            ("ok".to_owned(), 1, Some(true)),
            ("ok-two".to_owned(), 1, None),
            ("ok-two".to_owned(), 2, Some(true)),
        ]
    );
    // Agent calls (4) + step judge calls (4) + task judge calls (3).
    let seen = server.seen();
    let judged = seen
        .iter()
        .filter(|s| s.body.to_string().contains("You are the judge"))
        .count();
    assert_eq!((seen.len(), judged), (11, 7));
    assert!(seen.iter().any(|s| s.body["model"] == "judge-model"));
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let aria = &summary["strategies"][0];
    assert_eq!(aria["judge"]["steps"], 4, "{aria}");
    assert_eq!(aria["judge"]["accuracy"], 1.0, "{aria}");
    assert_eq!(aria["judge"]["kappa"], 1.0, "{aria}");
    assert_eq!(aria["task_judge"]["steps"], 3, "{aria}");
    // The confusion matrix behind the kappa: the fake judge approves exactly
    // the steps the rule passes.
    let confusion = &aria["judge"]["confusion"];
    let passed = rows
        .values()
        .filter(|r| r["strategy"] == "aria" && r["success"] == true)
        .count() as u64;
    assert_eq!(confusion["both_success"].as_u64(), Some(passed), "{aria}");
    assert_eq!(
        confusion["both_failure"].as_u64(),
        Some(4 - passed),
        "{aria}"
    );
    assert_eq!(
        (
            confusion["judge_only"].as_u64(),
            confusion["rule_only"].as_u64()
        ),
        (Some(0), Some(0))
    );
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("LLM judge agreement"), "{report}");
    assert!(
        report.contains(&format!(
            "| aria | 4 | 1.000 | 1.000 | {passed} | 0 | 0 | {} |",
            4 - passed
        )),
        "{report}"
    );

    let bad = pagesnap(&suite, &dir.path().join("bad"), &["--judge", "gpt"]);
    assert!(!bad.status.success());
    assert!(
        stderr(&bad).contains("unknown judge \"gpt\""),
        "{}",
        stderr(&bad)
    );
}

/// Cassette lines whose request asks the task judge ("Do these actions
/// complete the task?"), and the others.
fn split_task_judge_lines(cassette: &Path) -> (Vec<String>, Vec<String>) {
    std::fs::read_to_string(cassette)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .partition(|line| line.contains("Do these actions complete the task?"))
}

/// Issue 17: on `--resume` the task judge's prompt lost the element names of
/// the steps already done (`click [e10]` instead of `click [e10] button "Sign
/// in"`), and a cassette miss in the judge was swallowed (`task_judge` null,
/// exit 0). The names are recomputed for resumed steps, so a resumed replay
/// asks exactly what the recorded run asked; a judge miss stops the run.
#[test]
fn resume_keeps_the_task_judges_element_names_and_a_judge_miss_stops_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let suite = write_suite(dir.path(), &["ok", "ok-two"]);
    let server = Server::start();
    let url = server.url();
    let recorded = dir.path().join("recorded");
    let args = [
        "--agent",
        "openai:test-model",
        "--judge",
        "llm:openai:judge-model",
        "--strategy",
        "aria",
        "--jobs",
        "1",
        "--base-url",
        url.as_str(),
    ];
    let mut record = args.to_vec();
    record.extend(["--cassette", "record"]);
    let output = pagesnap(&suite, &recorded, &record);
    assert!(output.status.success(), "{}", stderr(&output));
    server.stop();
    let cassette = recorded.join("cassette.jsonl");
    let (task_lines, _) = split_task_judge_lines(&cassette);
    assert_eq!(task_lines.len(), 2, "one task verdict per task");
    assert!(
        task_lines
            .iter()
            .all(|l| l.contains(r#"1. click [e10] button \"Sign in\""#)),
        "{task_lines:?}"
    );

    // The run cut after ok-two's first step, resumed from the cassette.
    let resumed = dir.path().join("resumed");
    std::fs::create_dir(&resumed).unwrap();
    std::fs::copy(recorded.join("run.json"), resumed.join("run.json")).unwrap();
    let kept: Vec<String> = std::fs::read_to_string(recorded.join("results.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| !(l.contains(r#""task":"ok-two""#) && l.contains(r#""step":2"#)))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(kept.len(), 2);
    std::fs::write(resumed.join("results.jsonl"), kept.concat()).unwrap();
    let mut replay = args.to_vec();
    replay.extend([
        "--cassette",
        "replay",
        "--cassette-file",
        cassette.to_str().unwrap(),
        "--resume",
    ]);
    let output = pagesnap(&suite, &resumed, &replay);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("resumed: 2 steps"),
        "{}",
        stderr(&output)
    );
    let ok_two = &rows(&resumed)[&("ok-two".to_owned(), "aria".to_owned(), 2)];
    assert_eq!(ok_two["task_judge"], true, "{ok_two}");
    assert_eq!(
        std::fs::read_to_string(recorded.join("results.csv")).unwrap(),
        std::fs::read_to_string(resumed.join("results.csv")).unwrap()
    );

    // A cassette without the task judge's exchanges: the miss is an error
    // naming the judge, the cassette and the key, not a silent null.
    let (_, others) = split_task_judge_lines(&cassette);
    let partial = dir.path().join("partial.jsonl");
    std::fs::write(&partial, others.join("\n") + "\n").unwrap();
    let mut replay = args.to_vec();
    replay.extend([
        "--cassette",
        "replay",
        "--cassette-file",
        partial.to_str().unwrap(),
    ]);
    let output = pagesnap(&suite, &dir.path().join("missed"), &replay);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "the LLM judge failed: cassette {} has no exchange for key",
            partial.display()
        )) && err.contains("(openai:judge-model)"),
        "{err}"
    );
}

// ---------------------------------------------------------------- planted secrets

/// The planted-secrets corpus (`fixtures/sites/planted_secrets/secrets.txt`),
/// each secret and, for the long ones, a 12-character piece of its middle:
/// a secret cut short still leaks.
fn planted_needles() -> Vec<String> {
    let list =
        std::fs::read_to_string(root().join("fixtures/sites/planted_secrets/secrets.txt")).unwrap();
    let mut out = Vec::new();
    for secret in list.lines().filter(|l| !l.is_empty()) {
        out.push(secret.to_owned());
        if secret.len() >= 24 {
            let mid = secret.len() / 2;
            out.push(secret[mid - 6..mid + 6].to_owned());
        }
    }
    assert!(out.len() > 30);
    out
}

/// Every file under `dir` (recursively), by path.
fn files_under(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
                out.push((path, text));
            }
        }
    }
    out.sort();
    out
}

/// Issue 14: one credential of each common format on one page
/// (`fixtures/planted_secrets/initial`), run through every strategy with an
/// OpenAI-compatible agent and an LLM judge, the exchanges recorded to a
/// cassette. No secret is in any request body the server received, in any
/// file of the run (reports, step pages, cassette), or on stdout/stderr;
/// what is not secret still reaches the model.
#[test]
fn planted_secrets_reach_no_request_report_or_cassette() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("planted.toml");
    std::fs::write(
        &suite,
        "[suite]\nname = \"planted\"\n\n[[task]]\nid = \"rotate\"\n\
         instruction = \"Rotate the keys (scenario: ok)\"\n\
         [[task.step]]\nrecording = \"planted_secrets/initial\"\nop = \"click\"\n\
         target = { selector = \"#rotate\" }\n",
    )
    .unwrap();
    let server = Server::start();
    let url = server.url();
    let out = dir.path().join("run");
    let strategies: Vec<&str> = pagesnap_engine::strategy::STRATEGIES
        .iter()
        .map(|s| s.name())
        .collect();
    let strategies = strategies.join(",");
    let mut args = vec![
        "--agent",
        "openai:test-model",
        "--judge",
        "llm:openai:test-model",
        "--strategy",
        strategies.as_str(),
        "--full-page",
        "--base-url",
        url.as_str(),
        "--cassette",
        "record",
    ];
    args.extend(FAST);
    let output = pagesnap(&suite, &out, &args);
    assert!(output.status.success(), "{}", stderr(&output));
    let needles = planted_needles();
    let leaks = |what: &str, text: &str| {
        for needle in &needles {
            assert!(!text.contains(needle.as_str()), "{what} leaks {needle:?}");
        }
    };
    leaks("stdout", &String::from_utf8_lossy(&output.stdout));
    leaks("stderr", &String::from_utf8_lossy(&output.stderr));

    let seen = server.seen();
    let asked: Vec<&Seen> = seen
        .iter()
        .filter(|s| !s.body.to_string().contains("You are the judge"))
        .collect();
    assert_eq!(asked.len(), 6, "one request per strategy");
    assert!(
        seen.len() > asked.len(),
        "the LLM judge was asked too: {}",
        seen.len()
    );
    for request in &seen {
        let body = request.body.to_string();
        leaks(&format!("the request for {}", request.strategy), &body);
    }
    // What is not secret still reaches the model: the controls in every
    // strategy, the page's text in those that print it.
    for request in &asked {
        let body = request.body.to_string();
        for kept in ["Open my profile", "Rotate keys"] {
            assert!(
                body.contains(kept),
                "{}: {kept} is missing",
                request.strategy
            );
        }
        if ["flat", "aria", "html", "html-pruned"].contains(&request.strategy.as_str()) {
            for kept in [
                "Card on file",
                "db.internal.example.com",
                "AWS secret access key",
            ] {
                assert!(
                    body.contains(kept),
                    "{}: {kept} is missing",
                    request.strategy
                );
            }
        }
    }
    let files = files_under(&out);
    let names: Vec<String> = files
        .iter()
        .map(|(p, _)| p.strip_prefix(&out).unwrap().display().to_string())
        .collect();
    for must in [
        "cassette.jsonl",
        "results.jsonl",
        "results.csv",
        "report.md",
        "report.html",
    ] {
        assert!(names.iter().any(|n| n == must), "no {must} in {names:?}");
    }
    assert!(names.iter().any(|n| n.starts_with("steps/")), "{names:?}");
    for (path, text) in &files {
        leaks(&path.display().to_string(), text);
    }
}
