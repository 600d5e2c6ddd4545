//! Fields: typing into a text field (click, select its content, key by key), choosing a `<select>`'s option, and filling several fields at once — each field set as a user sets it.

use crate::error::Result;

use super::Input;
use super::act::{Answer, failure};
use super::controls::Control;
use super::readback::{self, Field};
use crate::action::{Failure, Outcome};

/// A script `function () {…}` whose body may test `TEXTUAL` (the input types
/// typed key by key) and `CONTROLS` (those set whole by value: every
/// [`Control`], a test holds them equal).
macro_rules! with_types {
    ($body:literal) => {
        concat!(
            "function () {\n",
            "  const TEXTUAL = /^(|text|search|email|url|tel|password|number)$/;\n",
            "  const CONTROLS = /^(date|time|datetime-local|month|week|color|range)$/;\n",
            $body
        )
    };
}

/// Prepares `this` for typing: `{ok}` after selecting its content,
/// `{control}` when the field is set whole by value ([`Control`]), or
/// `{error}`.
const EDITABLE_JS: &str = with_types!(
    r#"
  const el = this;
  const doc = el.ownerDocument;
  const active = (() => { let a = doc.activeElement; while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement; return a; })();
  const target = (el.isContentEditable || el.matches('input, textarea')) ? el : active;
  if (!target) return { error: 'not-editable' };
  if (target.tagName === 'INPUT' && CONTROLS.test(target.type)) return { control: target.type };
  if (target.tagName === 'INPUT' && !TEXTUAL.test((target.getAttribute('type') || '').toLowerCase())) return { error: 'not-editable' };
  if (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA') {
    if (target.disabled || target.readOnly) return { error: 'not-editable' };
    if (doc.activeElement !== target && !(target.getRootNode().activeElement === target)) target.focus();
    try { target.select(); } catch (e) { /* number inputs cannot select; set below */ }
    if (target.type === 'number') { target.value = ''; }
    return { ok: true };
  }
  if (target.isContentEditable) {
    target.focus();
    const range = doc.createRange();
    range.selectNodeContents(target);
    const sel = doc.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    return { ok: true };
  }
  return { error: 'not-editable' };
}"#
);

/// Refuses, before any click, an element typing cannot go into: a button, a
/// select, a disabled or read-only field, a non-text input (`{error}`), so
/// that `type` on a button never clicks it; a control set by value is
/// `{control}`, a custom slider `{slider}`. Anything else (a label, a container that focuses a field
/// when clicked) is `{ok}` and decided after the click by [`EDITABLE_JS`].
const TYPEABLE_JS: &str = with_types!(
    r#"
  const el = this;
  if (!el.isConnected) return { error: 'stale' };
  if (el.nodeType !== 1 || el.isContentEditable) return { ok: true };
  const tag = el.tagName;
  if (tag === 'BUTTON' || tag === 'SELECT' || tag === 'OPTION') return { error: 'not-editable' };
  if ((tag === 'INPUT' || tag === 'TEXTAREA') && (el.disabled || el.readOnly)) return { error: 'not-editable' };
  if (el.getAttribute('role') === 'slider' && tag !== 'INPUT') return { slider: true };
  if (tag === 'INPUT') {
    if (CONTROLS.test(el.type)) return { control: el.type };
    if (!TEXTUAL.test((el.getAttribute('type') || '').trim().toLowerCase())) return { error: 'not-editable' };
  }
  return { ok: true };
}"#
);

/// Reads back the field `this` is (or, when it is none — a label, a
/// container, the document — the field that has the focus, through shadow
/// roots and same-origin frames): `{held, secret, numeric, own, maxLength,
/// control}`, or `{}` when no field has the focus.
const READ_BACK_JS: &str = with_types!(
    r#"
  const el = this;
  if (!el.isConnected) return { error: 'stale' };
  const field = (n) => n && (n.isContentEditable || (n.matches && n.matches('input, textarea')));
  let t = field(el) && el !== el.ownerDocument.documentElement ? el : null;
  if (!t) {
    t = el.ownerDocument.activeElement;
    for (;;) {
      if (t && t.shadowRoot && t.shadowRoot.activeElement) t = t.shadowRoot.activeElement;
      else if (t && t.tagName === 'IFRAME' && t.contentDocument && t.contentDocument.activeElement) t = t.contentDocument.activeElement;
      else break;
    }
  }
  if (!field(t)) return {};
  const own = t === el;
  if (t.tagName === 'INPUT' && CONTROLS.test(t.type)) return { held: t.value, control: t.type, own };
  if (t.isContentEditable) return { held: t.innerText.replace(/\s+/g, ' ').trim(), own };
  const limit = t.maxLength >= 0 ? t.maxLength : undefined;
  return { held: t.value, secret: t.type === 'password', numeric: t.type === 'number', maxLength: limit, own };
}"#
);

/// Chooses option `value` of `this` (a `<select>` or an `<option>` in one).
const SELECT_JS: &str = r#"function (want) {
  let el = this;
  if (el.tagName === 'OPTION' && el.closest('select')) { el = el.closest('select'); want = want || this.label; }
  if (el.tagName !== 'SELECT') return { error: 'not-select' };
  if (el.disabled) return { error: 'not-editable' };
  const norm = (s) => String(s).replace(/\s+/g, ' ').trim();
  const options = [...el.options];
  const exact = options.find((o) => o.value === want || norm(o.label) === norm(want) || norm(o.text) === norm(want));
  const loose = exact || options.find((o) => norm(o.text).toLowerCase() === norm(want).toLowerCase() || o.value.toLowerCase() === norm(want).toLowerCase());
  if (!loose) return { error: 'no-option', options: options.slice(0, 20).map((o) => norm(o.text)) };
  if (loose.disabled) return { error: 'no-option', options: [] };
  el.focus();
  el.value = loose.value;
  el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  el.dispatchEvent(new Event('change', { bubbles: true }));
  // Read back: a page that puts its select back is not answered done.
  if (el.value !== loose.value) return { error: 'value-mismatch', held: norm((el.selectedOptions[0] || {}).text || ''), want: norm(loose.text) };
  return { ok: true };
}"#;

/// What a fill does with `this`: `{kind: 'select'}`, `{kind: 'check',
/// checked, radio}` or `{kind: 'text'}`.
const FIELD_KIND_JS: &str = r#"function () {
  const el = this;
  if (!el.isConnected) return { error: 'stale' };
  if (el.tagName === 'SELECT') return { kind: 'select' };
  if (el.tagName === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio')) return { kind: 'check', checked: el.checked, radio: el.type === 'radio' };
  const role = el.getAttribute && el.getAttribute('role');
  if (role === 'checkbox' || role === 'switch' || role === 'radio') return { kind: 'check', checked: el.getAttribute('aria-checked') === 'true', radio: role === 'radio' };
  return { kind: 'text' };
}"#;

impl Input<'_> {
    pub(super) async fn type_into(&self, backend_id: u64, text: &str) -> Result<Outcome> {
        let answer = self.call_on(backend_id, TYPEABLE_JS, Vec::new()).await?;
        if let Some(failed) = failure(&answer) {
            return Ok(failed);
        }
        if answer.slider {
            return self.set_slider(backend_id, text).await;
        }
        let point = match self.point_of(backend_id).await? {
            Ok(point) => point,
            Err(failed) => return Ok(failed),
        };
        if let Some(control) = control_of(&answer) {
            return self.set_control(Some(backend_id), control, text).await;
        }
        self.mouse().click(point).await?;
        let answer = self.call_on(backend_id, EDITABLE_JS, Vec::new()).await?;
        if let Some(failed) = failure(&answer) {
            return Ok(failed);
        }
        if let Some(control) = control_of(&answer) {
            // A label or container that put the focus on a control.
            return self.set_control(Some(backend_id), control, text).await;
        }
        if let Some(delete) = super::keys::named_key("Delete").filter(|_| text.is_empty()) {
            // Typing nothing clears the field: delete the selected content.
            self.keyboard().key(delete).await?;
        }
        for c in text.chars() {
            self.keyboard().type_char(c).await?;
        }
        // Read back before anything else runs (no readiness wait yet).
        let answer = self.call_on(backend_id, READ_BACK_JS, Vec::new()).await?;
        Ok(read_back(text, &answer, false, None))
    }

    pub(super) async fn select(&self, backend_id: u64, value: &str) -> Result<Outcome> {
        let answer = self
            .call_on(
                backend_id,
                SELECT_JS,
                vec![serde_json::Value::String(value.to_owned())],
            )
            .await?;
        if answer.error == Some(Failure::NoOption) {
            let known = if answer.options.is_empty() {
                String::new()
            } else {
                format!(" (options: {})", answer.options.join(" | "))
            };
            return Ok(Outcome::failed(
                Failure::NoOption,
                format!("the select has no enabled option {value:?}{known}"),
            ));
        }
        if answer.error == Some(Failure::ValueMismatch) {
            return Ok(Outcome::failed(
                Failure::ValueMismatch,
                format!(
                    "the select shows {:?}, not {:?}: the page put it back",
                    answer.held.as_deref().unwrap_or_default(),
                    answer.want.as_deref().unwrap_or(value)
                ),
            ));
        }
        Ok(failure(&answer).unwrap_or_else(Outcome::ok))
    }

    /// Types `text` key by key into whatever has the focus (a control that
    /// has it is set by value), then reads the field back: it must have
    /// changed and hold the text; focus on no field is not checked (a
    /// widget that takes keys).
    pub(super) async fn type_at_focus(&self, text: &str) -> Result<Outcome> {
        let before = self.call_on_document(READ_BACK_JS, &[]).await?;
        if let Some(control) = control_of(&before) {
            return self.set_control(None, control, text).await;
        }
        for c in text.chars() {
            self.keyboard().type_char(c).await?;
        }
        let after = self.call_on_document(READ_BACK_JS, &[]).await?;
        Ok(read_back(text, &after, true, before.held.as_deref()))
    }

    /// Sets each field in turn, each read back as it is set; then reads
    /// every typed field back once more, since leaving a field may have
    /// rewritten it (a script on blur). The notes of every field are kept.
    pub(super) async fn fill(&self, fields: &[(u64, String)]) -> Result<Outcome> {
        let mut notes = Vec::new();
        let mut typed = Vec::new();
        for (n, (backend_id, value)) in fields.iter().enumerate() {
            let kind = self.call_on(*backend_id, FIELD_KIND_JS, Vec::new()).await?;
            if let Some(failed) = failure(&kind) {
                return Ok(numbered(n, failed));
            }
            let outcome = match kind.kind.as_deref() {
                Some("select") => self.select(*backend_id, value).await?,
                Some("check") => {
                    let want = matches!(
                        value.trim().to_ascii_lowercase().as_str(),
                        "true" | "checked" | "on" | "yes" | "1"
                    );
                    if kind.checked == Some(want) {
                        Outcome::ok()
                    } else if !want && kind.radio == Some(true) {
                        Outcome::failed(
                            Failure::NotEditable,
                            "a radio button cannot be unchecked; check another of its group",
                        )
                    } else {
                        match self.click(*backend_id).await? {
                            Outcome::Done { .. } => self.checked(*backend_id, want).await?,
                            failed => failed,
                        }
                    }
                }
                _ => {
                    typed.push((n, *backend_id, value));
                    self.type_into(*backend_id, value).await?
                }
            };
            match outcome {
                Outcome::Failed { .. } => return Ok(numbered(n, outcome)),
                Outcome::Done { note: Some(note) } => {
                    notes.push(format!("field {}: {note}", n + 1))
                }
                Outcome::Done { note: None } => {}
            }
        }
        for (n, backend_id, value) in typed {
            let answer = self.call_on(backend_id, READ_BACK_JS, Vec::new()).await?;
            if !answer.own || answer.control.is_some() {
                continue;
            }
            match read_back(value, &answer, false, None) {
                Outcome::Failed { kind, message } => {
                    let message = format!("after the fill moved on, {message}");
                    return Ok(numbered(n, Outcome::Failed { kind, message }));
                }
                Outcome::Done { note: Some(note) } => {
                    let note = format!("field {}: {note}", n + 1);
                    if !notes.contains(&note) {
                        notes.push(note);
                    }
                }
                Outcome::Done { note: None } => {}
            }
        }
        let note = (!notes.is_empty()).then(|| notes.join("; "));
        Ok(Outcome::Done { note })
    }

    /// Whether the checkbox or radio `backend_id` is now `want`, after a
    /// click meant to make it so.
    async fn checked(&self, backend_id: u64, want: bool) -> Result<Outcome> {
        let now = self.call_on(backend_id, FIELD_KIND_JS, Vec::new()).await?;
        if let Some(failed) = failure(&now) {
            return Ok(failed);
        }
        Ok(match now.checked {
            Some(checked) if checked != want => Outcome::failed(
                Failure::ValueMismatch,
                format!(
                    "the box is still {} after the click",
                    if checked { "checked" } else { "unchecked" }
                ),
            ),
            _ => Outcome::ok(),
        })
    }
}

/// A failure of a fill's `n`th field (from 0), its message saying which.
fn numbered(n: usize, outcome: Outcome) -> Outcome {
    match outcome {
        Outcome::Failed { kind, message } => Outcome::Failed {
            kind,
            message: format!("field {} of the fill: {message}", n + 1),
        },
        done => done,
    }
}

/// The control a script's answer names, if the field is set by value.
fn control_of(answer: &Answer) -> Option<Control> {
    answer.control.as_deref().and_then(Control::of_type)
}

/// The outcome of typing `typed`, from the read-back's answer: no field
/// read (the focus is on a widget, not a field) is done; `within`, the text
/// was typed at the focus into what the field held `before`, which must
/// have changed.
fn read_back(typed: &str, answer: &Answer, within: bool, before: Option<&str>) -> Outcome {
    if let Some(failed) = failure(answer) {
        return failed;
    }
    let Some(held) = answer.held.as_deref() else {
        return Outcome::ok();
    };
    let field = Field {
        secret: answer.secret,
        numeric: answer.numeric,
        max_length: answer.max_length,
    };
    if within && !typed.trim().is_empty() && before == Some(held) {
        return Outcome::failed(
            Failure::ValueMismatch,
            "the field that has the focus did not change: the keys went elsewhere",
        );
    }
    readback::outcome(typed, held, field, within)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scripts' `CONTROLS` are the input types of every [`Control`].
    #[test]
    fn the_scripts_set_by_value_exactly_the_controls() {
        let (_, rest) = TYPEABLE_JS.split_once("const CONTROLS = /^(").unwrap();
        let (listed, _) = rest.split_once(")$/").unwrap();
        let listed: Vec<&str> = listed.split('|').collect();
        let known: Vec<&str> = Control::ALL.iter().map(|c| c.input_type()).collect();
        assert_eq!(listed, known);
    }
}
