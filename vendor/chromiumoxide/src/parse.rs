//! pagesnap patch: a CDP message parsed straight into what it is, without a buffered copy.
//!
//! `Message` is an untagged enum: serde reads the whole message into a
//! buffer of its own (every string copied), then tries each variant on the
//! buffer. A `DOMSnapshot.captureSnapshot` answer of a few megabytes was so
//! copied twice (the buffer, then the response's `result` value) on the
//! thread every other answer waits on. Chromium writes a response's `id`
//! first and an event's `method` first: such a message is parsed as that
//! variant directly, and anything else (or a fast parse that fails) as the
//! untagged enum does, so the outcome and the error are the same (an event
//! carries no top-level `id`, which alone would make the enum read it as a
//! response).

use chromiumoxide_types::{EventMessage, Message, Response};

/// Parses one CDP message.
pub(crate) fn message<T: EventMessage>(text: &str) -> serde_json::Result<Message<T>> {
    let head = text
        .trim_start()
        .strip_prefix('{')
        .map(str::trim_start)
        .unwrap_or_default();
    let fast = if head.starts_with("\"id\"") {
        serde_json::from_str::<Response>(text)
            .ok()
            .map(Message::Response)
    } else if head.starts_with("\"method\"") {
        serde_json::from_str::<T>(text).ok().map(Message::Event)
    } else {
        None
    };
    match fast {
        Some(message) => Ok(message),
        None => serde_json::from_str::<Message<T>>(text),
    }
}
