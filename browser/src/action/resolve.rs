//! The resolution of an agent's argument strings: an op, a ref and a value read into a [`UserAction`] on an observation's items ([`resolve`]), and the parsers of each op's value.

use std::time::Duration;

use pagesnap_engine::observation::Item;

use super::{
    Axis, Button, ClickWith, Drop, MAX_WAIT, Motion, ScrollBy, Unrunnable, UserAction, Wait,
};
use crate::op::Op;

/// A click's value: a button (`left`, `right`, `middle`) and the modifier
/// keys held (`Control`, `Shift`, `Alt`, `Meta`), joined by `+` in any
/// order (`Control+right`, `Shift`); empty: a plain left click.
pub fn click_of(value: &str) -> Result<ClickWith, Unrunnable> {
    let refused = || {
        Unrunnable::Incomplete(format!(
            "a click's value is one button (left, right, middle) and the keys held \
             (Control, Shift, Alt, Meta), as Control+right; not {value:?}"
        ))
    };
    let mut with = ClickWith::default();
    let mut button = None;
    for part in value.split('+').map(str::trim).filter(|p| !p.is_empty()) {
        let lower = part.to_ascii_lowercase();
        if let Some(named) = Button::ALL.into_iter().find(|b| b.name() == lower) {
            if button.replace(named).is_some() {
                return Err(refused());
            }
        } else {
            with.modifiers |= crate::input::modifier_bit(part).ok_or_else(refused)?;
        }
    }
    with.button = button.unwrap_or_default();
    Ok(with)
}

/// An op on an observation's element, resolved to what the actuator runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Resolved<'o> {
    /// What to run.
    pub action: UserAction,
    /// The element the ref names, if the op names one.
    pub item: Option<&'o Item>,
}

/// The one resolver from an op, a ref and a value to a [`UserAction`] on
/// the observation's `items`: a ref it does not hold is hallucinated; one it
/// holds without a live node, a missing ref or value, or a scroll value that
/// is no direction or distance is incomplete.
pub fn resolve<'o>(
    op: Op,
    reference: Option<&str>,
    value: Option<&str>,
    items: &'o [Item],
) -> Result<Resolved<'o>, Unrunnable> {
    let item = match reference {
        Some(reference) => Some(live_item(items, reference, "ref")?),
        None => None,
    };
    let backend_id = item.map(|i| i.backend_id);
    let element =
        || backend_id.ok_or_else(|| Unrunnable::Incomplete(format!("{} needs a ref", op.name())));
    let value = || {
        value
            .map(str::to_owned)
            .ok_or_else(|| Unrunnable::Incomplete(format!("op {} needs a value", op.name())))
    };
    let action = match op {
        Op::Done => {
            return Err(Unrunnable::Incomplete(
                "done is not a page action".to_owned(),
            ));
        }
        Op::Click => UserAction::Click {
            backend_id: element()?,
            with: click_of(value().as_deref().unwrap_or_default())?,
        },
        Op::Hover => UserAction::Hover {
            backend_id: element()?,
        },
        Op::Type => UserAction::Type {
            backend_id,
            text: value()?,
        },
        Op::Select => UserAction::Select {
            backend_id: element()?,
            value: value()?,
        },
        Op::Scroll => {
            let (axis, by) = scroll_of(value().as_deref().unwrap_or_default())?;
            UserAction::Scroll {
                backend_id,
                axis,
                by,
                motion: Motion::Wheel,
            }
        }
        Op::Press => {
            let key = value()?;
            if key.trim().is_empty() {
                return Err(Unrunnable::Incomplete(
                    "press needs a key as its value (Enter, Tab, Escape, …)".to_owned(),
                ));
            }
            UserAction::Press { backend_id, key }
        }
        Op::Dialog => dialog_of(value().as_deref().unwrap_or("accept")),
        Op::Dblclick => UserAction::DoubleClick {
            backend_id: element()?,
        },
        Op::Focus => UserAction::Focus {
            backend_id: element()?,
        },
        Op::Clear => UserAction::Clear {
            backend_id: element()?,
        },
        Op::Drag => {
            let backend_id = element()?;
            let value = value()?;
            let to = match point_of(&value) {
                Some((x, y)) => Drop::Point(x, y),
                None => Drop::Element(live_item(items, value.trim(), "drop target")?.backend_id),
            };
            UserAction::Drag { backend_id, to }
        }
        Op::Upload => UserAction::Upload {
            backend_id: element()?,
            paths: paths_of(&value()?),
        },
        Op::SelectText => {
            let text = value().ok().filter(|t| !t.trim().is_empty());
            if backend_id.is_none() && text.is_none() {
                return Err(Unrunnable::Incomplete(
                    "select_text needs a ref, or the text to select as its value".to_owned(),
                ));
            }
            UserAction::SelectText { backend_id, text }
        }
        Op::ClickAt => {
            let point = value()?;
            match point_of(&point) {
                Some((x, y)) => UserAction::ClickAt { x, y },
                None => {
                    return Err(Unrunnable::Incomplete(format!(
                        "click_at needs a point X,Y in viewport CSS pixels, not {point:?}"
                    )));
                }
            }
        }
        Op::Wait => match backend_id {
            Some(id) => UserAction::Wait(Wait::Gone(id)),
            None => UserAction::Wait(wait_of(&value()?)),
        },
    };
    Ok(Resolved { action, item })
}

/// A point `X,Y` (or `X Y`) of finite numbers.
fn point_of(value: &str) -> Option<(f64, f64)> {
    let parsed: Vec<Option<f64>> = value
        .split([',', ' '])
        .filter(|p| !p.is_empty())
        .map(|p| p.trim().parse().ok())
        .collect();
    match parsed[..] {
        [Some(x), Some(y)] if x.is_finite() && y.is_finite() => Some((x, y)),
        _ => None,
    }
}

/// The item of `items` whose ref is `reference` (`what` names it in the
/// error): a ref it does not hold is hallucinated, one without a live node
/// incomplete.
fn live_item<'o>(items: &'o [Item], reference: &str, what: &str) -> Result<&'o Item, Unrunnable> {
    match items.iter().find(|i| i.reference == reference) {
        Some(item) if item.backend_id != 0 => Ok(item),
        Some(_) => Err(Unrunnable::Incomplete(format!(
            "{what} {reference:?} has no node on the live page"
        ))),
        None => Err(Unrunnable::Hallucinated(reference.to_owned())),
    }
}

/// How far and which way a scroll's value asks: `down` (or nothing), `up`,
/// `left`, `right` ([`ScrollBy::STEP`] screens), or a number of pixels down
/// (negative: up).
pub fn scroll_of(value: &str) -> Result<(Axis, ScrollBy), Unrunnable> {
    let how = value.trim().to_lowercase();
    let step = |axis, sign: f64| Ok((axis, ScrollBy::Screens(sign * ScrollBy::STEP)));
    match how.as_str() {
        "" | "down" => step(Axis::Vertical, 1.0),
        "up" => step(Axis::Vertical, -1.0),
        "right" => step(Axis::Horizontal, 1.0),
        "left" => step(Axis::Horizontal, -1.0),
        other => match other.trim_end_matches("px").parse::<f64>() {
            Ok(px) if px.is_finite() => Ok((Axis::Vertical, ScrollBy::Pixels(px))),
            _ => Err(Unrunnable::Incomplete(format!(
                "scroll value {other:?} is not up, down, left, right or a number of pixels"
            ))),
        },
    }
}

/// The files an upload's value names: comma-separated paths, trimmed.
pub fn paths_of(value: &str) -> Vec<String> {
    value
        .split(',')
        .map(|p| p.trim().to_owned())
        .filter(|p| !p.is_empty())
        .collect()
}

/// What a wait's value asks for: a delay (`1500`, `1500ms`, `2s`, capped
/// at [`MAX_WAIT`]) or a text to appear.
pub fn wait_of(value: &str) -> Wait {
    let trimmed = value.trim();
    let seconds = trimmed
        .strip_suffix("ms")
        .and_then(|ms| ms.trim().parse::<f64>().ok().map(|ms| ms / 1000.0))
        .or_else(|| {
            trimmed
                .strip_suffix('s')
                .and_then(|s| s.trim().parse::<f64>().ok())
        })
        .or_else(|| trimmed.parse::<f64>().ok().map(|ms| ms / 1000.0));
    match seconds {
        Some(s) if s.is_finite() && s >= 0.0 => {
            Wait::Delay(Duration::from_secs_f64(s.min(MAX_WAIT.as_secs_f64())))
        }
        _ => Wait::Text(trimmed.to_owned()),
    }
}

/// The answer a dialog op's value asks for: `accept` (a prompt: its default
/// text), `dismiss`, or any other text: accept a prompt with that text.
pub fn dialog_of(value: &str) -> UserAction {
    match value.trim().to_ascii_lowercase().as_str() {
        "accept" | "" => UserAction::Dialog {
            accept: true,
            text: None,
        },
        "dismiss" => UserAction::Dialog {
            accept: false,
            text: None,
        },
        _ => UserAction::Dialog {
            accept: true,
            text: Some(value.to_owned()),
        },
    }
}

/// An element as an action's result names it: `button "Submit"`.
pub fn label(item: &Item) -> String {
    format!("{} {:?}", item.role, item.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A click's value names one button and any keys held, in any order
    /// and case; anything else is refused naming the value.
    #[test]
    fn a_click_value_names_a_button_and_the_keys_held() {
        assert!(click_of("").unwrap().is_plain());
        assert!(click_of("left").unwrap().is_plain());
        let right = click_of("right").unwrap();
        assert_eq!((right.button, right.modifiers), (Button::Right, 0));
        let chord = click_of("shift + Ctrl + middle").unwrap();
        assert_eq!((chord.button, chord.modifiers), (Button::Middle, 2 | 8));
        assert_eq!(chord.modifier_names(), ["Control", "Shift"]);
        for bad in ["left+right", "banana", "Control+Banana"] {
            let refused = click_of(bad).unwrap_err().to_string();
            assert!(refused.contains(&format!("{bad:?}")), "{refused}");
        }
        let items = [item("e1", 7)];
        let resolved = resolve(Op::Click, Some("e1"), Some("Control"), &items).unwrap();
        assert_eq!(
            resolved.action,
            UserAction::Click {
                backend_id: 7,
                with: ClickWith {
                    button: Button::Left,
                    modifiers: 2
                }
            }
        );
    }

    fn item(reference: &str, backend_id: u64) -> Item {
        Item {
            reference: reference.to_owned(),
            backend_id,
            role: "button".to_owned(),
            name: "Go".to_owned(),
            ..Item::default()
        }
    }

    #[test]
    fn dialog_values_accept_dismiss_or_give_a_prompt_its_text() {
        let answer = |value| resolve(Op::Dialog, None, value, &[]).map(|r| r.action);
        let accept = UserAction::Dialog {
            accept: true,
            text: None,
        };
        assert_eq!(answer(None), Ok(accept.clone()));
        assert_eq!(answer(Some(" Accept ")), Ok(accept));
        assert_eq!(
            answer(Some("dismiss")),
            Ok(UserAction::Dialog {
                accept: false,
                text: None
            })
        );
        assert_eq!(
            answer(Some("Ada Lovelace")),
            Ok(UserAction::Dialog {
                accept: true,
                text: Some("Ada Lovelace".to_owned())
            })
        );
    }

    #[test]
    fn ops_resolve_on_the_observations_refs() {
        let items = [item("e1", 7), item("e2", 0)];
        let resolved = resolve(Op::Click, Some("e1"), None, &items).unwrap();
        assert_eq!(
            resolved.action,
            UserAction::Click {
                backend_id: 7,
                with: ClickWith::default()
            }
        );
        assert_eq!(label(resolved.item.unwrap()), "button \"Go\"");
        assert_eq!(
            resolve(Op::Type, Some("e1"), Some("hi"), &items)
                .unwrap()
                .action,
            UserAction::Type {
                backend_id: Some(7),
                text: "hi".into()
            }
        );
        assert_eq!(
            resolve(Op::Scroll, None, Some("-120px"), &items)
                .unwrap()
                .action,
            UserAction::scroll(None, ScrollBy::Pixels(-120.0))
        );
        assert_eq!(
            resolve(Op::Scroll, None, None, &items).unwrap().action,
            UserAction::scroll(None, ScrollBy::Screens(ScrollBy::STEP))
        );
        assert_eq!(
            resolve(Op::Scroll, Some("e1"), Some("Left"), &items)
                .unwrap()
                .action,
            UserAction::Scroll {
                backend_id: Some(7),
                axis: Axis::Horizontal,
                by: ScrollBy::Screens(-ScrollBy::STEP),
                motion: Motion::Wheel,
            }
        );
        assert_eq!(
            resolve(Op::Press, None, Some("Enter"), &items)
                .unwrap()
                .action,
            UserAction::Press {
                backend_id: None,
                key: "Enter".into()
            }
        );
        let refused = |op, reference, value| resolve(op, reference, value, &items).unwrap_err();
        assert_eq!(
            refused(Op::Click, Some("e9"), None),
            Unrunnable::Hallucinated("e9".into())
        );
        assert_eq!(
            refused(Op::Click, Some("e2"), None).to_string(),
            "ref \"e2\" has no node on the live page"
        );
        assert_eq!(
            refused(Op::Hover, None, None).to_string(),
            "hover needs a ref"
        );
        assert_eq!(
            refused(Op::Select, Some("e1"), None).to_string(),
            "op select needs a value"
        );
        assert!(
            refused(Op::Press, None, Some(" "))
                .to_string()
                .starts_with("press needs a key")
        );
        assert!(
            refused(Op::Scroll, None, Some("sideways"))
                .to_string()
                .contains("\"sideways\"")
        );
    }
}
