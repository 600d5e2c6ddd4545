//! Keys as `press` and typing send them: the named keys (US layout), their forgiving names, combinations with modifiers (`Control+A`, `Shift+Tab`), and one character typed.

use crate::error::Result;
use chromiumoxide::cdp::browser_protocol::input::{DispatchKeyEventParams, DispatchKeyEventType};

use crate::tab::TabHandle;

/// A key's CDP description: `key`, `code`, Windows virtual key code, and the text it types.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Key {
    key: &'static str,
    code: &'static str,
    key_code: i64,
    text: Option<&'static str>,
}

/// The named keys `press` accepts (US layout), spelled as `KeyboardEvent.key`.
const KEYS: &[Key] = &[
    Key {
        key: "Enter",
        code: "Enter",
        key_code: 13,
        text: Some("\r"),
    },
    Key {
        key: "Tab",
        code: "Tab",
        key_code: 9,
        text: None,
    },
    Key {
        key: "Escape",
        code: "Escape",
        key_code: 27,
        text: None,
    },
    Key {
        key: "Backspace",
        code: "Backspace",
        key_code: 8,
        text: None,
    },
    Key {
        key: "Delete",
        code: "Delete",
        key_code: 46,
        text: None,
    },
    Key {
        key: " ",
        code: "Space",
        key_code: 32,
        text: Some(" "),
    },
    Key {
        key: "ArrowUp",
        code: "ArrowUp",
        key_code: 38,
        text: None,
    },
    Key {
        key: "ArrowDown",
        code: "ArrowDown",
        key_code: 40,
        text: None,
    },
    Key {
        key: "ArrowLeft",
        code: "ArrowLeft",
        key_code: 37,
        text: None,
    },
    Key {
        key: "ArrowRight",
        code: "ArrowRight",
        key_code: 39,
        text: None,
    },
    Key {
        key: "Home",
        code: "Home",
        key_code: 36,
        text: None,
    },
    Key {
        key: "End",
        code: "End",
        key_code: 35,
        text: None,
    },
    Key {
        key: "PageUp",
        code: "PageUp",
        key_code: 33,
        text: None,
    },
    Key {
        key: "PageDown",
        code: "PageDown",
        key_code: 34,
        text: None,
    },
    Key {
        key: "Control",
        code: "ControlLeft",
        key_code: 17,
        text: None,
    },
    Key {
        key: "Shift",
        code: "ShiftLeft",
        key_code: 16,
        text: None,
    },
    Key {
        key: "Alt",
        code: "AltLeft",
        key_code: 18,
        text: None,
    },
    Key {
        key: "Meta",
        code: "MetaLeft",
        key_code: 91,
        text: None,
    },
];

/// The named key `name` (case-insensitive; `Esc`, `Return`, `Space`, `Up`, `Down`, … accepted).
pub(crate) fn named_key(name: &str) -> Option<&'static Key> {
    let lower = name.trim().to_ascii_lowercase();
    let canonical = match lower.as_str() {
        "return" => "enter",
        "esc" => "escape",
        "space" | "spacebar" => " ",
        "up" => "arrowup",
        "down" => "arrowdown",
        "left" => "arrowleft",
        "right" => "arrowright",
        "del" => "delete",
        other => other,
    };
    KEYS.iter()
        .find(|k| k.key.to_ascii_lowercase() == canonical)
}

/// Every key name `press` accepts, for messages.
pub fn key_names() -> String {
    KEYS.iter()
        .map(|k| if k.key == " " { "Space" } else { k.key })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The modifier keys, CDP's bit and name each: Alt 1, Control 2, Meta 4, Shift 8.
pub(crate) const MODIFIERS: [(i64, &str); 4] =
    [(2, "Control"), (1, "Alt"), (4, "Meta"), (8, "Shift")];

/// The CDP bit of the modifier key `name` (forgiving: `ctrl`, `cmd`).
pub(crate) fn modifier(name: &str) -> Option<i64> {
    modifier_bit(name).map(|(bit, _)| bit)
}

/// CDP's modifier bits: Alt 1, Control 2, Meta 4, Shift 8.
fn modifier_bit(name: &str) -> Option<(i64, &'static str)> {
    Some(match name.trim().to_ascii_lowercase().as_str() {
        "alt" | "option" => (1, "Alt"),
        "control" | "ctrl" => (2, "Control"),
        "meta" | "command" | "cmd" | "super" => (4, "Meta"),
        "shift" => (8, "Shift"),
        _ => return None,
    })
}

/// What a key press names: a named key or one character, with the modifier
/// keys held for it (`Control+A`, `Shift+Tab`, `Control+Shift+ArrowLeft`).
#[derive(Debug, PartialEq)]
pub(crate) struct Chord {
    /// The modifier keys, in the order they are pressed.
    modifiers: Vec<&'static Key>,
    /// Their CDP bits, together.
    mask: i64,
    /// The key itself.
    key: Pressed,
}

#[derive(Debug, PartialEq)]
enum Pressed {
    Named(&'static Key),
    Char(char),
}

/// The chord `name` names, if every part is known (`+` alone, or as the
/// last part after a `+`, is the plus key).
pub(crate) fn chord(name: &str) -> Option<Chord> {
    let name = name.trim();
    let (held, last) = match name.strip_suffix("++") {
        Some(held) => (held, "+"),
        None => match name.rsplit_once('+') {
            Some((held, last)) if !held.is_empty() && !last.is_empty() => (held, last),
            _ => ("", name),
        },
    };
    let mut modifiers = Vec::new();
    let mut mask = 0;
    for part in held.split('+').filter(|p| !p.is_empty()) {
        let (bit, key) = modifier_bit(part)?;
        if mask & bit == 0 {
            mask |= bit;
            modifiers.push(named_key(key)?);
        }
    }
    let mut chars = last.chars();
    let key = match (named_key(last), chars.next(), chars.next()) {
        (Some(key), _, _) => Pressed::Named(key),
        (None, Some(c), None) => Pressed::Char(c),
        _ => return None,
    };
    Some(Chord {
        modifiers,
        mask,
        key,
    })
}

/// The keyboard of one tab.
pub(crate) struct Keyboard<'a> {
    tab: &'a TabHandle,
}

impl<'a> Keyboard<'a> {
    /// The keyboard of `tab`.
    pub(crate) fn new(tab: &'a TabHandle) -> Keyboard<'a> {
        Keyboard { tab }
    }
}

impl Keyboard<'_> {
    /// Presses a chord: its modifiers down, the key with them held, the
    /// modifiers up. A character with Control, Alt or Meta types nothing
    /// (the page sees the key, as `Control+A` selects all).
    pub(crate) async fn press_chord(&self, chord: &Chord) -> Result<()> {
        if chord.modifiers.is_empty() {
            return match chord.key {
                Pressed::Named(key) => self.key(key).await,
                Pressed::Char(c) => self.type_char(c).await,
            };
        }
        let mut held = 0;
        for modifier in &chord.modifiers {
            held |= modifier_bit(modifier.key).map_or(0, |(bit, _)| bit);
            let mut down = key_event(modifier, DispatchKeyEventType::RawKeyDown);
            down.modifiers = Some(held);
            self.tab
                .call("Input.dispatchKeyEvent", self.tab.page().execute(down))
                .await?;
        }
        let commanded = chord.mask & !8 != 0;
        let (down, up) = match chord.key {
            Pressed::Named(key) => {
                let kind = if key.text.is_some() && !commanded {
                    DispatchKeyEventType::KeyDown
                } else {
                    DispatchKeyEventType::RawKeyDown
                };
                let mut down = key_event(key, kind);
                if commanded {
                    down.text = None;
                    down.unmodified_text = None;
                }
                let up = key_event(key, DispatchKeyEventType::KeyUp);
                (down, up)
            }
            Pressed::Char(c) => {
                let shown = if chord.mask & 8 != 0 {
                    c.to_uppercase().to_string()
                } else {
                    c.to_string()
                };
                let typed = (!commanded).then(|| (shown.as_str(), c.to_string()));
                let mut down = char_down(c, &shown, typed);
                if let Some(code) = down.windows_virtual_key_code {
                    down.native_virtual_key_code = Some(code);
                }
                let up = up_of(&down);
                (down, up)
            }
        };
        let (mut down, mut up) = (down, up);
        down.modifiers = Some(chord.mask);
        up.modifiers = Some(chord.mask);
        self.key_pair(down, up).await?;
        for modifier in chord.modifiers.iter().rev() {
            held &= !modifier_bit(modifier.key).map_or(0, |(bit, _)| bit);
            let mut up = key_event(modifier, DispatchKeyEventType::KeyUp);
            up.modifiers = Some(held);
            self.tab
                .call("Input.dispatchKeyEvent", self.tab.page().execute(up))
                .await?;
        }
        Ok(())
    }

    /// Presses the modifier keys of `mask` (CDP's bits) and keeps them
    /// down, in [`MODIFIERS`]' order.
    pub(crate) async fn hold(&self, mask: i64) -> Result<()> {
        let mut held = 0;
        for (bit, name) in MODIFIERS.into_iter().filter(|(bit, _)| mask & bit != 0) {
            let Some(key) = named_key(name) else { continue };
            held |= bit;
            let mut down = key_event(key, DispatchKeyEventType::RawKeyDown);
            down.modifiers = Some(held);
            self.tab
                .call("Input.dispatchKeyEvent", self.tab.page().execute(down))
                .await?;
        }
        Ok(())
    }

    /// Releases the modifier keys of `mask`, in the reverse order.
    pub(crate) async fn release(&self, mask: i64) -> Result<()> {
        let mut held = mask;
        for (bit, name) in MODIFIERS
            .into_iter()
            .rev()
            .filter(|(bit, _)| mask & bit != 0)
        {
            let Some(key) = named_key(name) else { continue };
            held &= !bit;
            let mut up = key_event(key, DispatchKeyEventType::KeyUp);
            up.modifiers = Some(held);
            self.tab
                .call("Input.dispatchKeyEvent", self.tab.page().execute(up))
                .await?;
        }
        Ok(())
    }

    /// Presses and releases a named key.
    pub(crate) async fn key(&self, key: &Key) -> Result<()> {
        let kind = if key.text.is_some() {
            DispatchKeyEventType::KeyDown
        } else {
            DispatchKeyEventType::RawKeyDown
        };
        self.key_pair(
            key_event(key, kind),
            key_event(key, DispatchKeyEventType::KeyUp),
        )
        .await
    }

    /// Types one character as a key press carrying its text (`\n` is Enter).
    pub(crate) async fn type_char(&self, c: char) -> Result<()> {
        if c == '\n'
            && let Some(enter) = named_key("Enter")
        {
            return self.key(enter).await;
        }
        let text = c.to_string();
        let down = char_down(c, &text, Some((&text, text.clone())));
        let up = up_of(&down);
        self.key_pair(down, up).await
    }

    /// Sends a key's down and up events.
    async fn key_pair(
        &self,
        down: DispatchKeyEventParams,
        up: DispatchKeyEventParams,
    ) -> Result<()> {
        self.tab
            .call("Input.dispatchKeyEvent", self.tab.page().execute(down))
            .await?;
        self.tab
            .call("Input.dispatchKeyEvent", self.tab.page().execute(up))
            .await?;
        Ok(())
    }
}

/// The key down of character `c`, shown as `key`, typing `typed` (the
/// text and its unmodified text) if any, with its US-layout code when it
/// is a letter or digit.
fn char_down(c: char, key: &str, typed: Option<(&str, String)>) -> DispatchKeyEventParams {
    let mut down = DispatchKeyEventParams::new(if typed.is_some() {
        DispatchKeyEventType::KeyDown
    } else {
        DispatchKeyEventType::RawKeyDown
    });
    down.key = Some(key.to_owned());
    if let Some((text, unmodified)) = typed {
        down.text = Some(text.to_owned());
        down.unmodified_text = Some(unmodified);
    }
    if c.is_ascii_alphanumeric() {
        let upper = c.to_ascii_uppercase();
        down.code = Some(if c.is_ascii_digit() {
            format!("Digit{c}")
        } else {
            format!("Key{upper}")
        });
        down.windows_virtual_key_code = Some(i64::from(upper as u8));
    }
    down
}

/// The key up of a key down: the same key, no text.
fn up_of(down: &DispatchKeyEventParams) -> DispatchKeyEventParams {
    let mut up = down.clone();
    up.r#type = DispatchKeyEventType::KeyUp;
    up.text = None;
    up.unmodified_text = None;
    up
}

/// The event of `kind` for a named key (its text only on a key down).
fn key_event(key: &Key, kind: DispatchKeyEventType) -> DispatchKeyEventParams {
    let typing = kind == DispatchKeyEventType::KeyDown;
    let mut event = DispatchKeyEventParams::new(kind);
    event.key = Some(key.key.to_owned());
    event.code = Some(key.code.to_owned());
    event.windows_virtual_key_code = Some(key.key_code);
    event.native_virtual_key_code = Some(key.key_code);
    if typing {
        event.text = key.text.map(str::to_owned);
        event.unmodified_text = key.text.map(str::to_owned);
    }
    event
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chords_name_their_modifiers_and_key() {
        let select_all = chord("Control+A").unwrap();
        assert_eq!(select_all.mask, 2);
        assert_eq!(select_all.key, Pressed::Char('A'));
        let back = chord("shift+tab").unwrap();
        assert_eq!(back.mask, 8);
        assert_eq!(back.key, Pressed::Named(named_key("Tab").unwrap()));
        assert_eq!(chord("Ctrl+Shift+ArrowLeft").unwrap().mask, 10);
        assert_eq!(chord("Control++").unwrap().key, Pressed::Char('+'));
        assert_eq!(chord("+").unwrap().key, Pressed::Char('+'));
        assert_eq!(chord("Enter").unwrap().mask, 0);
        assert!(chord("Hyper+A").is_none());
        assert!(chord("Control+Banana").is_none());
    }

    #[test]
    fn key_names_are_forgiving() {
        assert_eq!(named_key("enter").map(|k| k.code), Some("Enter"));
        assert_eq!(named_key("Return").map(|k| k.code), Some("Enter"));
        assert_eq!(named_key("esc").map(|k| k.code), Some("Escape"));
        assert_eq!(named_key("Space").map(|k| k.code), Some("Space"));
        assert_eq!(named_key("down").map(|k| k.code), Some("ArrowDown"));
        assert!(named_key("Hyper").is_none());
        assert!(key_names().contains("Enter, Tab, Escape"));
    }
}
