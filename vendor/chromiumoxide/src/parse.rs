//! pagesnap patch: a CDP message parsed straight into what it is, without a buffered copy.
//!
//! `Message` is an untagged enum: serde reads the whole message into a
//! buffer of its own (every string copied), then tries each variant on the
//! buffer. A `DOMSnapshot.captureSnapshot` answer of a few megabytes was so
//! copied twice (the buffer, then the response's `result` value) on the
//! thread every other answer waits on. Chromium writes a response's `id`
//! first and an event's `method` first: such a message is parsed as that
//! variant directly. Anything else (or a fast parse that fails) is parsed as
//! the untagged enum does, a response else an event, with the same outcome
//! and the same error (an event carries no top-level `id`, which alone would
//! make the enum read it as a response), but from the text: the enum's own
//! `Deserialize` is never instantiated, so the event type's (every CDP event,
//! hundreds of types) is compiled for one deserializer, not two.

use chromiumoxide_types::{EventMessage, Message, Response};
use serde::de::Error as _;

/// Parses one CDP message.
pub(crate) fn message<T: EventMessage>(text: &str) -> serde_json::Result<Message<T>> {
    let head = text
        .trim_start()
        .strip_prefix('{')
        .map(str::trim_start)
        .unwrap_or_default();
    let response = || serde_json::from_str::<Response>(text).map(Message::Response);
    let event = || serde_json::from_str::<T>(text).map(Message::Event);
    if head.starts_with("\"id\"") {
        if let Ok(message) = response() {
            return Ok(message);
        }
    } else if head.starts_with("\"method\"") {
        if let Ok(message) = event() {
            return Ok(message);
        }
    }
    match response() {
        Ok(message) => Ok(message),
        // Not JSON at all: the enum's error is the parser's.
        Err(err) if err.is_syntax() || err.is_eof() => Err(err),
        Err(_) => event().map_err(|_| {
            serde_json::Error::custom("data did not match any variant of untagged enum Message")
        }),
    }
}
