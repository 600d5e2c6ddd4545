//! Cassettes: record every model exchange of a run to a JSONL file, and replay a run from it without network.
//!
//! # Format
//!
//! One JSON object per line (`<out>/cassette.jsonl` unless `--cassette-file`):
//!
//! ```json
//! {"key":"<sha256 hex>","backend":"openai:gpt-4o-mini","request":{…ChatRequest…},
//!  "reply":{"text":"…","input_tokens":812,"output_tokens":14,"latency_us":503211,"retries":0}}
//! {"key":"…","backend":"…","request":{…},
//!  "error":{"kind":"server","message":"…","retries":4,"latency_us":7012345}}
//! ```
//!
//! `key` is the SHA-256 (hex) of the canonical JSON (object keys sorted, no
//! spaces) of `{"backend": LABEL, "request": CHAT_REQUEST}`: model, system
//! prompt, user parts (the PNG included), max_tokens, temperature and schema.
//! The base URL and API key are not part of it, and no key or header is ever
//! stored: a [`ChatRequest`] holds none.
//!
//! A failed call is recorded too (`error`), so a replay reproduces the fault
//! rows. Replayed replies keep their recorded tokens, latency and retries, so a
//! replayed run's results equal the recorded run's.
//!
//! # Modes
//!
//! - **record**: the first exchange for a key wins. A request whose key is
//!   already in the cassette (an earlier line of the file, or an identical
//!   request earlier in the run) is answered from it, so the recorded run and
//!   its replay see the same answers; a cassette can therefore be extended by
//!   `--resume`.
//! - **replay**: answers from the file only; a request not in it is a
//!   [`FaultKind::CassetteMiss`] naming the key and the file, which the LLM
//!   agent turns into an error that stops the run.
//!
//! # One writer per file
//!
//! The agent and the LLM judge each wrap their backend in a cassette, often
//! on the same file, and several workers call them at once. Every recording
//! cassette on one file in this process shares one [`Tape`] — one open
//! file, one map of entries, one lock — and each entry is appended whole,
//! line and newline in a single `write_all` on an `O_APPEND` file. (Two
//! handles each writing the line and then the newline interleaved into
//! lines no reader could parse.)

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::backend::{Backend, CallError, ChatReply, ChatRequest, FaultKind};

/// What a cassette does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// Call the model and store each exchange.
    Record,
    /// Answer from the stored exchanges only; a miss stops the run.
    Replay,
}

/// One line of a cassette.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Entry {
    key: String,
    backend: String,
    request: ChatRequest,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reply: Option<ChatReply>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<RecordedError>,
}

/// A [`CallError`] as stored.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct RecordedError {
    kind: FaultKind,
    message: String,
    retries: u32,
    latency_us: u64,
}

/// A backend that records to, or replays from, a cassette file.
pub struct Cassette {
    label: String,
    /// The model; `None` when replaying.
    inner: Option<Box<dyn Backend>>,
    tape: Arc<Tape>,
}

/// A cassette file and its entries, shared by every [`Cassette`] of this
/// process that records to it (see the module documentation).
struct Tape {
    path: PathBuf,
    state: Mutex<State>,
}

struct State {
    entries: BTreeMap<String, Entry>,
    /// Open for appending when recording.
    file: Option<File>,
}

/// The recording tapes open in this process, by canonical path; a tape
/// closes when its last cassette is dropped, and is reloaded from the file
/// when opened again.
static RECORDING: Mutex<BTreeMap<PathBuf, Weak<Tape>>> = Mutex::new(BTreeMap::new());

impl Tape {
    /// The tape recording to `path`: the one already open in this process,
    /// or a new one holding the file's entries.
    fn recording(path: &Path) -> Result<Arc<Tape>> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("could not create {}", parent.display()))?;
        }
        let mut open = lock(&RECORDING);
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("could not open cassette {}", path.display()))?;
        let real = std::fs::canonicalize(path)
            .with_context(|| format!("could not resolve cassette {}", path.display()))?;
        if let Some(tape) = open.get(&real).and_then(Weak::upgrade) {
            return Ok(tape);
        }
        let tape = Arc::new(Tape {
            path: path.to_owned(),
            state: Mutex::new(State {
                entries: load(path)?,
                file: Some(file),
            }),
        });
        open.retain(|_, tape| tape.strong_count() > 0);
        open.insert(real, Arc::downgrade(&tape));
        Ok(tape)
    }
}

impl Cassette {
    /// Records `inner`'s exchanges to `path` (kept entries of an existing file
    /// are reused), through the one tape this process keeps for that file.
    pub fn record(inner: Box<dyn Backend>, path: &Path) -> Result<Cassette> {
        Ok(Cassette {
            label: inner.label(),
            inner: Some(inner),
            tape: Tape::recording(path)?,
        })
    }

    /// Replays the exchanges of `label` stored in `path`.
    pub fn replay(label: &str, path: &Path) -> Result<Cassette> {
        if !path.exists() {
            bail!(
                "cassette {} does not exist (record one with --cassette record)",
                path.display()
            );
        }
        Ok(Cassette {
            label: label.to_owned(),
            inner: None,
            tape: Arc::new(Tape {
                path: path.to_owned(),
                state: Mutex::new(State {
                    entries: load(path)?,
                    file: None,
                }),
            }),
        })
    }
}

impl Backend for Cassette {
    fn label(&self) -> String {
        self.label.clone()
    }

    fn complete(&self, request: &ChatRequest) -> Result<ChatReply, CallError> {
        let key = key(&self.label, request);
        if let Some(entry) = lock(&self.tape.state).entries.get(&key) {
            return answer(entry);
        }
        let Some(inner) = &self.inner else {
            return Err(CallError {
                kind: FaultKind::CassetteMiss,
                message: format!(
                    "cassette {} has no exchange for key {key} ({})",
                    self.tape.path.display(),
                    self.label
                ),
                retries: 0,
                latency_us: 0,
            });
        };
        let result = inner.complete(request);
        let entry = Entry {
            key: key.clone(),
            backend: self.label.clone(),
            request: request.clone(),
            reply: result.as_ref().ok().cloned(),
            error: result.as_ref().err().map(|e| RecordedError {
                kind: e.kind,
                message: e.message.clone(),
                retries: e.retries,
                latency_us: e.latency_us,
            }),
        };
        let mut state = lock(&self.tape.state);
        // Another thread may have recorded the same request meanwhile: the
        // first one stays, so this run answers as its replay will.
        if let Some(first) = state.entries.get(&key) {
            return answer(first);
        }
        if let Some(file) = state.file.as_mut() {
            // The whole line in one write: never half a line in the file.
            let written = serde_json::to_string(&entry)
                .map_err(std::io::Error::other)
                .and_then(|mut line| {
                    line.push('\n');
                    file.write_all(line.as_bytes())
                });
            if let Err(err) = written {
                // Not recording is a broken cassette: stop the run like a miss.
                return Err(CallError {
                    kind: FaultKind::CassetteMiss,
                    message: format!(
                        "could not append to cassette {}: {err}",
                        self.tape.path.display()
                    ),
                    retries: 0,
                    latency_us: 0,
                });
            }
        }
        state.entries.insert(key, entry);
        result
    }
}

fn answer(entry: &Entry) -> Result<ChatReply, CallError> {
    match (&entry.reply, &entry.error) {
        (Some(reply), _) => Ok(reply.clone()),
        (None, Some(e)) => Err(CallError {
            kind: e.kind,
            message: e.message.clone(),
            retries: e.retries,
            latency_us: e.latency_us,
        }),
        (None, None) => Err(CallError {
            kind: FaultKind::Malformed,
            message: format!("cassette entry {} has neither reply nor error", entry.key),
            retries: 0,
            latency_us: 0,
        }),
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // The map and file are updated in one critical section, and a panic
    // cannot leave half a line: the state stays consistent when poisoned.
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The cassette key of a request to `label`.
pub fn key(label: &str, request: &ChatRequest) -> String {
    let value = serde_json::json!({"backend": label, "request": request});
    let digest = Sha256::digest(canonical(&value).as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// JSON with object keys sorted and no whitespace.
fn canonical(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let sorted: BTreeMap<&String, &Value> = map.iter().collect();
            let fields: Vec<String> = sorted
                .into_iter()
                .map(|(k, v)| format!("{}:{}", Value::String(k.clone()), canonical(v)))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(canonical).collect();
            format!("[{}]", items.join(","))
        }
        other => other.to_string(),
    }
}

/// The entries of a cassette file; the first line of a key wins.
fn load(path: &Path) -> Result<BTreeMap<String, Entry>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("could not read cassette {}", path.display()))?;
    let mut entries = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let entry: Entry = serde_json::from_str(line)
            .with_context(|| format!("{}:{}: not a cassette entry", path.display(), n + 1))?;
        entries.entry(entry.key.clone()).or_insert(entry);
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::backend::Part;

    fn request(text: &str) -> ChatRequest {
        ChatRequest {
            system: "s".into(),
            user: vec![Part::Text { text: text.into() }],
            max_tokens: 256,
            temperature: 0.0,
            schema: Some(serde_json::json!({"b": 1, "a": [true, null]})),
        }
    }

    #[test]
    fn keys_are_canonical_and_cover_label_and_request() {
        assert_eq!(
            canonical(&serde_json::json!({"z": {"b": 1, "a": "x"}, "a": [1.5, null]})),
            r#"{"a":[1.5,null],"z":{"a":"x","b":1}}"#
        );
        let k = key("openai:m", &request("hi"));
        assert_eq!(k.len(), 64);
        assert_eq!(k, key("openai:m", &request("hi")));
        assert_ne!(k, key("openai:other", &request("hi")));
        assert_ne!(k, key("openai:m", &request("ho")));
    }

    struct Counting(Mutex<u32>);

    impl Backend for Counting {
        fn label(&self) -> String {
            "openai:count".into()
        }
        fn complete(&self, request: &ChatRequest) -> Result<ChatReply, CallError> {
            *lock(&self.0) += 1;
            let Part::Text { text } = &request.user[0] else {
                unreachable!()
            };
            if text == "fail" {
                return Err(CallError {
                    kind: FaultKind::Server,
                    message: "HTTP 500".into(),
                    retries: 2,
                    latency_us: 30,
                });
            }
            Ok(ChatReply {
                text: format!("echo {text}"),
                input_tokens: 5,
                output_tokens: 2,
                latency_us: 10,
                retries: 1,
            })
        }
    }

    #[test]
    fn records_then_replays_replies_and_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.jsonl");
        let recorder = Cassette::record(Box::new(Counting(Mutex::new(0))), &path).unwrap();
        let ok = recorder.complete(&request("a")).unwrap();
        assert_eq!(
            recorder.complete(&request("a")).unwrap(),
            ok,
            "answered from the cassette"
        );
        let err = recorder.complete(&request("fail")).unwrap_err();
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 2);

        let player = Cassette::replay("openai:count", &path).unwrap();
        assert_eq!(player.complete(&request("a")).unwrap(), ok);
        assert_eq!(player.complete(&request("fail")).unwrap_err(), err);
        let miss = player.complete(&request("new")).unwrap_err();
        assert_eq!(miss.kind, FaultKind::CassetteMiss);
        assert!(miss.message.contains(&key("openai:count", &request("new"))));
        assert!(miss.message.contains(&path.display().to_string()));
        // Another model's exchanges do not answer.
        let other = Cassette::replay("openai:other", &path).unwrap();
        assert_eq!(
            other.complete(&request("a")).unwrap_err().kind,
            FaultKind::CassetteMiss
        );
    }

    /// Answers every request with a long text, as a model judging a large
    /// observation would; `label` tells the agent's backend from the judge's.
    struct Echo(&'static str);

    impl Backend for Echo {
        fn label(&self) -> String {
            self.0.into()
        }
        fn complete(&self, request: &ChatRequest) -> Result<ChatReply, CallError> {
            let Part::Text { text } = &request.user[0] else {
                unreachable!()
            };
            Ok(ChatReply {
                text: text.repeat(4),
                input_tokens: 1,
                output_tokens: 1,
                latency_us: 1,
                retries: 0,
            })
        }
    }

    /// Issue 17: the agent and the judge recorded to one cassette through two
    /// handles, and concurrent appends interleaved into unreadable lines
    /// (`cassette.jsonl:159: not a cassette entry: trailing characters`).
    #[test]
    fn concurrent_agent_and_judge_writers_keep_every_line_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.jsonl");
        let agent = Cassette::record(Box::new(Echo("openai:agent")), &path).unwrap();
        let judge = Cassette::record(Box::new(Echo("openai:judge")), &path).unwrap();
        let (threads, calls) = (8, 40);
        std::thread::scope(|scope| {
            for t in 0..threads {
                let (agent, judge) = (&agent, &judge);
                scope.spawn(move || {
                    for c in 0..calls {
                        let text = format!("{t}-{c}-{}", "x".repeat(20_000));
                        agent.complete(&request(&text)).unwrap();
                        judge.complete(&request(&text)).unwrap();
                    }
                });
            }
        });
        let entries = load(&path).unwrap();
        assert_eq!(entries.len(), 2 * threads * calls);
        let lines = std::fs::read_to_string(&path).unwrap().lines().count();
        assert_eq!(lines, 2 * threads * calls);
        drop((agent, judge));
        // Opened again once every cassette is gone: the file's entries answer.
        let again = Cassette::record(Box::new(Echo("openai:agent")), &path).unwrap();
        let text = format!("0-0-{}", "x".repeat(20_000));
        again.complete(&request(&text)).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap().lines().count(),
            lines
        );
    }
}
