//! pagesnap patch: a CDP message parsed straight into what it is, without a buffered copy.
//!
//! `Message` is an untagged enum: serde reads the whole message into a
//! buffer of its own (every string copied), then tries each variant on the
//! buffer. A `DOMSnapshot.captureSnapshot` answer of a few megabytes was so
//! copied twice (the buffer, then the response's `result` value) on the
//! thread every other answer waits on. Chromium writes a response's `id`
//! first and an event's `method` first: such a message is parsed as that
//! variant directly. Anything else is parsed as the untagged enum does, a
//! response else an event, with the same outcome and the same error (an
//! event carries no top-level `id`, which alone would make the enum read it
//! as a response), and a message whose event parse failed is then tried as a
//! response only; each parse runs at most once. All from the text: the enum's own
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
    // A response's `id` comes first, so the order below (a response, else an event) tries it
    // first already; an event's `method` first is tried as an event first, and not again.
    let event_tried = head.starts_with("\"method\"");
    if event_tried {
        if let Ok(message) = event() {
            return Ok(message);
        }
    }
    let unmatched =
        || serde_json::Error::custom("data did not match any variant of untagged enum Message");
    match response() {
        Ok(message) => Ok(message),
        // Not JSON at all: the enum's error is the parser's.
        Err(err) if err.is_syntax() || err.is_eof() => Err(err),
        Err(_) if event_tried => Err(unmatched()),
        Err(_) => event().map_err(|_| unmatched()),
    }
}

#[cfg(test)]
mod tests {
    use chromiumoxide_cdp::cdp::CdpEventMessage;
    use chromiumoxide_types::Message;

    /// What the untagged enum made of a message: the variant, or the error's text.
    fn outcome(parsed: serde_json::Result<Message<CdpEventMessage>>) -> String {
        match parsed {
            Ok(Message::Response(response)) => format!("response {:?}", response.id),
            Ok(Message::Event(event)) => format!("event {:?}", event.method),
            Err(err) => format!("error {err}"),
        }
    }

    #[test]
    fn every_message_parses_as_the_untagged_enum_did() {
        let messages = [
            r#"{"id":7,"result":{"frameTree":{}}}"#,
            r#"{"id":8,"error":{"code":-32000,"message":"No node with given id found"}}"#,
            r#"{"result":{},"id":9}"#,
            r#"{"method":"Page.loadEventFired","params":{"timestamp":1.5}}"#,
            r#"{"params":{"timestamp":1.5},"method":"Page.loadEventFired"}"#,
            r#"{"method":"Page.loadEventFired","params":{"timestamp":"late"}}"#,
            r#"{"method":"Unknown.domainEvent","params":{"x":1},"sessionId":"S"}"#,
            r#"{"id":"seven","result":{}}"#,
            r#"{"id":7,"result":{"#,
            r#"{"method":"Page.loadEventFired","params":{"timestamp":1.5}"#,
            r#"not json"#,
            r#"{}"#,
            r#"[]"#,
        ];
        for message in messages {
            assert_eq!(
                outcome(super::message(message)),
                outcome(serde_json::from_str(message)),
                "{message}"
            );
        }
    }
}
