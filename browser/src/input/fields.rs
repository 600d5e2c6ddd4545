//! Fields: typing into a text field (click, select its content, key by key), choosing a `<select>`'s option, and filling several fields at once — each field set as a user sets it.

use crate::error::Result;

use super::Input;
use super::act::failure;
use crate::action::{Failure, Outcome};

/// Prepares `this` for typing: `{ok}` after selecting its content, or `{error}`.
const EDITABLE_JS: &str = r#"function () {
  const el = this;
  const doc = el.ownerDocument;
  const active = (() => { let a = doc.activeElement; while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement; return a; })();
  const target = (el.isContentEditable || el.matches('input, textarea')) ? el : active;
  if (!target) return { error: 'not-editable' };
  const textual = /^(|text|search|email|url|tel|password|number|date|time|datetime-local|month|week)$/;
  if (target.tagName === 'INPUT' && !textual.test((target.getAttribute('type') || '').toLowerCase())) return { error: 'not-editable' };
  if (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA') {
    if (target.disabled || target.readOnly) return { error: 'not-editable' };
    if (doc.activeElement !== target && !(target.getRootNode().activeElement === target)) target.focus();
    try { target.select(); } catch (e) { /* number inputs cannot select; set below */ }
    if (target.type === 'number') { target.value = ''; }
    // A date or time field types segment by segment from the first: the
    // click put the caret on the segment under it, a fresh focus puts it on
    // the first (as a user clicking the month would).
    if (/^(date|time|datetime-local|month|week)$/.test(target.type)) { target.value = ''; target.blur(); target.focus(); }
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
}"#;

/// Refuses, before any click, an element typing cannot go into: a button, a
/// select, a disabled or read-only field, a non-text input (`{error}`), so
/// that `type` on a button never clicks it. Anything else (a label, a
/// container that focuses a field when clicked) is `{ok}` and decided after
/// the click by [`EDITABLE_JS`].
const TYPEABLE_JS: &str = r#"function () {
  const el = this;
  if (!el.isConnected) return { error: 'stale' };
  if (el.nodeType !== 1 || el.isContentEditable) return { ok: true };
  const tag = el.tagName;
  if (tag === 'BUTTON' || tag === 'SELECT' || tag === 'OPTION') return { error: 'not-editable' };
  if (tag === 'INPUT') {
    const textual = /^(|text|search|email|url|tel|password|number|date|time|datetime-local|month|week)$/;
    if (!textual.test((el.getAttribute('type') || '').trim().toLowerCase())) return { error: 'not-editable' };
  }
  if ((tag === 'INPUT' || tag === 'TEXTAREA') && (el.disabled || el.readOnly)) return { error: 'not-editable' };
  return { ok: true };
}"#;

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
        let point = match self.point_of(backend_id).await? {
            Ok(point) => point,
            Err(failed) => return Ok(failed),
        };
        self.mouse().click(point).await?;
        let answer = self.call_on(backend_id, EDITABLE_JS, Vec::new()).await?;
        if let Some(failed) = failure(&answer) {
            return Ok(failed);
        }
        if let Some(delete) = super::keys::named_key("Delete").filter(|_| text.is_empty()) {
            // Typing nothing clears the field: delete the selected content.
            self.keyboard().key(delete).await?;
        }
        for c in text.chars() {
            self.keyboard().type_char(c).await?;
        }
        Ok(Outcome::ok())
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
        Ok(failure(&answer).unwrap_or_else(Outcome::ok))
    }

    /// Types `text` key by key into whatever has the focus.
    pub(super) async fn type_at_focus(&self, text: &str) -> Result<Outcome> {
        for c in text.chars() {
            self.keyboard().type_char(c).await?;
        }
        Ok(Outcome::ok())
    }

    pub(super) async fn fill(&self, fields: &[(u64, String)]) -> Result<Outcome> {
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
                        self.click(*backend_id).await?
                    }
                }
                _ => self.type_into(*backend_id, value).await?,
            };
            if let Outcome::Failed { .. } = outcome {
                return Ok(numbered(n, outcome));
            }
        }
        Ok(Outcome::ok())
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
