//! The HTTP layer shared by the model backends: per-attempt timeout, retries with backoff and jitter, `Retry-After`, a per-provider concurrency limit, secret redaction.
//!
//! One [`Http`] posts JSON to one provider. An attempt that ends in HTTP 429,
//! a 5xx status, a timeout or a connection error is retried up to
//! `max_retries` times; the wait before retry `n` (from 0) is the server's
//! `Retry-After` (delta seconds or an HTTP date, RFC 9110 §10.2.3) when it
//! sent one, else `base · 2ⁿ` with full jitter in `[base · 2ⁿ / 2, base · 2ⁿ]`,
//! both capped at [`MAX_WAIT`]. Other statuses (400, 401, 404, …) are not
//! retried. Attempts to one base URL share a counting semaphore across every
//! thread (and every backend, the LLM judge's included), so `--concurrency`
//! bounds the requests in flight per provider; the permit is not held while
//! waiting to retry.
//!
//! API keys are sent as headers and never returned: every message that leaves
//! this module passes through [`Http::redact`].

use std::collections::BTreeMap;
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime};

use super::backend::{CallError, FaultKind};

/// The longest wait before a retry, whatever `Retry-After` asks.
pub const MAX_WAIT: Duration = Duration::from_secs(60);

/// How much of an error body is kept in a message.
const BODY_SNIPPET: usize = 300;

/// Timeouts, retries and concurrency of one provider.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// Timeout of one attempt (connect, send, receive).
    pub timeout: Duration,
    /// Attempts beyond the first.
    pub max_retries: u32,
    /// Backoff base: the first retry waits up to this long.
    pub retry_base: Duration,
    /// Requests in flight to one provider, across threads.
    pub concurrency: usize,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            timeout: Duration::from_secs(60),
            max_retries: 4,
            retry_base: Duration::from_millis(500),
            concurrency: 4,
        }
    }
}

/// A 2xx answer.
#[derive(Debug)]
pub struct Success {
    /// The body.
    pub body: String,
    /// Attempts beyond the first.
    pub retries: u32,
    /// Wall time, retries included, in µs.
    pub latency_us: u64,
}

/// A call that failed after its retries.
#[derive(Debug)]
pub struct Failure {
    /// The last HTTP status, if the server answered.
    pub status: Option<u16>,
    /// The last body (redacted), if the server answered.
    pub body: String,
    /// The fault, with a redacted message.
    pub error: CallError,
}

/// A JSON poster for one provider.
pub struct Http {
    agent: ureq::Agent,
    options: HttpOptions,
    permits: Arc<Semaphore>,
    /// Values that must never appear in a message (API keys).
    secrets: Vec<String>,
}

impl Http {
    /// A poster for the provider at `base_url`, never leaking `secrets`.
    pub fn new(base_url: &str, options: HttpOptions, secrets: Vec<String>) -> Http {
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(options.timeout))
            .http_status_as_error(false)
            .build();
        Http {
            agent: config.into(),
            permits: semaphore_for(base_url, options.concurrency),
            options,
            secrets: secrets.into_iter().filter(|s| !s.is_empty()).collect(),
        }
    }

    /// Replaces every secret in `text` with `***`.
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for secret in &self.secrets {
            out = out.replace(secret.as_str(), "***");
        }
        out
    }

    /// POSTs `body` as JSON with `headers`, retrying as the module doc says.
    pub fn post_json(
        &self,
        url: &str,
        headers: &[(&str, String)],
        body: &serde_json::Value,
    ) -> Result<Success, Failure> {
        let started = Instant::now();
        let payload = body.to_string();
        let mut retries = 0;
        loop {
            let attempt = {
                let _permit = self.permits.acquire();
                self.attempt(url, headers, &payload)
            };
            let elapsed = || u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
            let (kind, status, text, retry_after) = match attempt {
                Attempt::Answered { status, body, .. } if (200..300).contains(&status) => {
                    return Ok(Success {
                        body,
                        retries,
                        latency_us: elapsed(),
                    });
                }
                Attempt::Answered {
                    status,
                    body,
                    retry_after,
                } => {
                    let kind = match status {
                        429 => FaultKind::RateLimited,
                        500..=599 => FaultKind::Server,
                        _ => FaultKind::Http,
                    };
                    let snippet: String = body.chars().take(BODY_SNIPPET).collect();
                    let text = format!("HTTP {status}: {}", snippet.trim());
                    (kind, Some(status), text, retry_after)
                }
                Attempt::Failed { kind, message } => (kind, None, message, None),
            };
            let retryable = matches!(
                kind,
                FaultKind::RateLimited
                    | FaultKind::Server
                    | FaultKind::Timeout
                    | FaultKind::Connection
            );
            if !retryable || retries >= self.options.max_retries {
                let text = self.redact(&text);
                return Err(Failure {
                    status,
                    body: if status.is_some() {
                        text.clone()
                    } else {
                        String::new()
                    },
                    error: CallError {
                        kind,
                        message: format!("POST {}: {text}", self.redact(url)),
                        retries,
                        latency_us: elapsed(),
                    },
                });
            }
            std::thread::sleep(wait(self.options.retry_base, retries, retry_after));
            retries += 1;
        }
    }

    fn attempt(&self, url: &str, headers: &[(&str, String)], payload: &str) -> Attempt {
        let mut request = self
            .agent
            .post(url)
            .header("content-type", "application/json");
        for (name, value) in headers {
            request = request.header(*name, value.as_str());
        }
        match request.send(payload) {
            Ok(mut response) => {
                let status = response.status().as_u16();
                let retry_after = response
                    .headers()
                    .get("retry-after")
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| parse_retry_after(v, SystemTime::now()));
                match response.body_mut().read_to_string() {
                    Ok(body) => Attempt::Answered {
                        status,
                        body,
                        retry_after,
                    },
                    Err(err) => failed(&err),
                }
            }
            Err(err) => failed(&err),
        }
    }
}

enum Attempt {
    Answered {
        status: u16,
        body: String,
        retry_after: Option<Duration>,
    },
    Failed {
        kind: FaultKind,
        message: String,
    },
}

fn failed(err: &ureq::Error) -> Attempt {
    use std::io::ErrorKind;
    let kind = match err {
        ureq::Error::Timeout(_) => FaultKind::Timeout,
        ureq::Error::Io(io) if matches!(io.kind(), ErrorKind::TimedOut | ErrorKind::WouldBlock) => {
            FaultKind::Timeout
        }
        ureq::Error::Io(_)
        | ureq::Error::ConnectionFailed
        | ureq::Error::HostNotFound
        | ureq::Error::Protocol(_) => FaultKind::Connection,
        _ => FaultKind::Http,
    };
    Attempt::Failed {
        kind,
        message: err.to_string(),
    }
}

/// The wait before retry number `retry` (from 0).
pub fn wait(base: Duration, retry: u32, retry_after: Option<Duration>) -> Duration {
    if let Some(after) = retry_after {
        return after.min(MAX_WAIT);
    }
    let ceiling = base
        .saturating_mul(2u32.saturating_pow(retry))
        .min(MAX_WAIT);
    // Full jitter over the upper half, so concurrent workers spread out.
    ceiling.mul_f64(0.5 + fastrand::f64() * 0.5)
}

/// `Retry-After` as delta seconds or an HTTP date (a date in the past is 0).
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    if let Ok(seconds) = value.parse::<f64>()
        && seconds.is_finite()
        && seconds >= 0.0
    {
        return Some(Duration::from_secs_f64(seconds.min(MAX_WAIT.as_secs_f64())));
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

/// A counting semaphore.
struct Semaphore {
    free: Mutex<usize>,
    freed: Condvar,
}

struct Permit<'a>(&'a Semaphore);

impl Semaphore {
    fn acquire(&self) -> Permit<'_> {
        let mut free = lock(&self.free);
        while *free == 0 {
            free = self
                .freed
                .wait(free)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        *free -= 1;
        Permit(self)
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        *lock(&self.0.free) += 1;
        self.0.freed.notify_one();
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // The guarded values are plain counters and maps: always consistent.
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The semaphore of the provider at `base_url`, made with `limit` permits on
/// first use in this process.
fn semaphore_for(base_url: &str, limit: usize) -> Arc<Semaphore> {
    static PROVIDERS: OnceLock<Mutex<BTreeMap<String, Arc<Semaphore>>>> = OnceLock::new();
    let providers = PROVIDERS.get_or_init(|| Mutex::new(BTreeMap::new()));
    lock(providers)
        .entry(base_url.trim_end_matches('/').to_owned())
        .or_insert_with(|| {
            Arc::new(Semaphore {
                free: Mutex::new(limit.max(1)),
                freed: Condvar::new(),
            })
        })
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_seconds_and_dates() {
        let now = httpdate::parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        assert_eq!(parse_retry_after("7", now), Some(Duration::from_secs(7)));
        assert_eq!(
            parse_retry_after(" 0.25 ", now),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:40 GMT", now),
            Some(Duration::from_secs(3))
        );
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("-3", now), None);
    }

    #[test]
    fn waits_grow_and_are_capped() {
        let base = Duration::from_millis(100);
        for retry in 0..4 {
            let ceiling = base * 2u32.pow(retry);
            let w = wait(base, retry, None);
            assert!(w >= ceiling / 2 && w <= ceiling, "{retry}: {w:?}");
        }
        assert!(wait(base, 30, None) <= MAX_WAIT);
        assert_eq!(
            wait(base, 0, Some(Duration::from_secs(3600))),
            MAX_WAIT,
            "Retry-After is capped"
        );
        assert_eq!(
            wait(base, 3, Some(Duration::from_secs(2))),
            Duration::from_secs(2),
            "Retry-After wins over backoff"
        );
    }

    #[test]
    fn redacts_every_secret() {
        let http = Http::new(
            "http://127.0.0.1:9",
            HttpOptions::default(),
            vec!["sk-abc".into(), String::new()],
        );
        assert_eq!(http.redact("bad key sk-abc (sk-abc)"), "bad key *** (***)");
    }
}
