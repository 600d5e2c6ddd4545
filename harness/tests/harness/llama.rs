//! Opt-in: the smoke suite through a real local LLM (llama.cpp's llama-server with Gemma 3 270M), agent and judge, then replayed from its cassette.
//!
//! Set-up: `scripts/llm-setup` (builds llama-server, fetches the GGUF into
//! `$PAGESNAP_LLM_DIR`, default `~/.cache/pagesnap/llm`). Run:
//! `cargo test -p pagesnap-harness --test harness llama:: -- --ignored --nocapture`
//! (about 15 minutes on 2 cores). It is `#[ignore]`d in the plain test run (the
//! reason says how to run it); run without the server and model, it fails
//! naming what is missing.
//! The model is a weak base model: this proves the wire path end to end
//! (structured output, usage, judge, cassette); its accuracy is not a claim.

use crate::support::root;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Kills llama-server when the test ends, passing or not.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn llm_dir() -> PathBuf {
    std::env::var_os("PAGESNAP_LLM_DIR").map_or_else(
        || Path::new(&std::env::var_os("HOME").expect("HOME is set")).join(".cache/pagesnap/llm"),
        PathBuf::from,
    )
}

fn healthy(port: u16) -> bool {
    use std::io::{Read, Write};
    let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let request = "GET /health HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n";
    if stream.write_all(request.as_bytes()).is_err() {
        return false;
    }
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer.starts_with("HTTP/1.1 200")
}

#[test]
#[ignore = "needs a local llama-server and model: run scripts/llm-setup, then `cargo test -p pagesnap-harness --test harness llama:: -- --ignored`"]
fn smoke_suite_through_llama_server_agent_judge_and_cassette() {
    let dir = llm_dir();
    let (binary, model) = (dir.join("bin/llama-server"), dir.join("model.gguf"));
    assert!(
        binary.exists() && model.exists(),
        "{} or {} is missing: run scripts/llm-setup first",
        binary.display(),
        model.display()
    );
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let port_text = port.to_string();
    let server = Server(
        Command::new(&binary)
            .args(["-m", model.to_str().unwrap(), "--host", "127.0.0.1"])
            .args(["--port", &port_text, "-c", "8192", "--parallel", "1"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("llama-server starts"),
    );
    let started = Instant::now();
    while !healthy(port) {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "llama-server did not become healthy in 120 s"
        );
        std::thread::sleep(Duration::from_millis(250));
    }

    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("live");
    let cassette = work.path().join("cassette.jsonl");
    let url = format!("http://127.0.0.1:{port}");
    let common = [
        "run",
        "--suite",
        "suites/smoke.toml",
        "--agent",
        "openai:gemma-3-270m",
        "--judge",
        "llm:openai:gemma-3-270m",
        "--strategy",
        "flat,aria",
        "--jobs",
        "1",
        "--quiet",
        "--cassette-file",
        cassette.to_str().unwrap(),
    ];
    let live = Command::new(crate::support::exe())
        .current_dir(root())
        .args(common)
        .args([
            "--cassette",
            "record",
            "--base-url",
            &url,
            "--timeout",
            "120",
        ])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        live.status.success(),
        "{}",
        String::from_utf8_lossy(&live.stderr)
    );
    eprintln!("{}", String::from_utf8_lossy(&live.stdout));

    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    for strategy in summary["strategies"].as_array().unwrap() {
        let name = strategy["strategy"].as_str().unwrap();
        assert_eq!(strategy["steps"], 66, "{name}");
        assert_eq!(
            strategy["faults"],
            serde_json::json!({}),
            "{name}: a healthy local server gives no faults"
        );
        // The provider counted the tokens (usage), and the judge answered.
        assert!(strategy["mean_input_tokens"].as_f64().unwrap() > 100.0);
        assert!(strategy["mean_output_tokens"].as_f64().unwrap() > 0.0);
        assert!(strategy["judge"]["steps"].as_u64().unwrap() > 0, "{name}");
        assert!(strategy["task_judge"]["steps"].as_u64().unwrap() > 0);
        eprintln!(
            "{name}: element accuracy {}, step SR {}, invalid {}, judge {}, task judge {}",
            strategy["element_accuracy"],
            strategy["step_success"],
            strategy["invalid_rate"],
            strategy["judge"],
            strategy["task_judge"]
        );
    }

    // The cassette replays the whole run without the server, to the byte.
    drop(server);
    let replayed = work.path().join("replayed");
    let replay = Command::new(crate::support::exe())
        .current_dir(root())
        .args(common)
        .args(["--cassette", "replay"])
        .arg("--out")
        .arg(&replayed)
        .output()
        .unwrap();
    assert!(
        replay.status.success(),
        "{}",
        String::from_utf8_lossy(&replay.stderr)
    );
    let a = std::fs::read(out.join("results.csv")).unwrap();
    let b = std::fs::read(replayed.join("results.csv")).unwrap();
    assert!(a == b, "replayed results.csv differs from the live run's");
}
