//! Typed controls — `date`, `time`, `datetime-local`, `month`, `week`, `color` and `range` inputs — and the values they hold in their standard formats: a value is checked here, before the page is touched, and refused by name when the control cannot hold it (a displayed date such as `12/24/2026` is refused naming its ISO form).
//!
//! Typing into such a control key by key goes into its segments (month, day,
//! year), and a date typed as `2026-12-24` arrives as `61224-02-02`; these
//! controls are set by value instead, as their own picker sets them
//! (`fields.rs`).

use super::Input;
use super::act::{Answer, failure};
use super::readback::{self, Field};
use crate::action::{Failure, Outcome};
use crate::error::Result;

/// An `<input>` whose value is set whole, as its picker sets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Control {
    /// `YYYY-MM-DD`.
    Date,
    /// `HH:MM`, `HH:MM:SS` or `HH:MM:SS.sss` (24-hour).
    Time,
    /// `YYYY-MM-DDTHH:MM` (a space for the `T` is taken).
    DatetimeLocal,
    /// `YYYY-MM`.
    Month,
    /// `YYYY-Www`.
    Week,
    /// `#rrggbb` (`#rgb` is taken).
    Color,
    /// A number; the control's min, max and step are checked on the page.
    Range,
}

impl Control {
    /// Every control, in the order the docs list them.
    pub(crate) const ALL: [Control; 7] = [
        Control::Date,
        Control::Time,
        Control::DatetimeLocal,
        Control::Month,
        Control::Week,
        Control::Color,
        Control::Range,
    ];

    /// The control an input's `type` makes (as the page's script reports
    /// it, lower case), if it is one.
    pub(crate) fn of_type(input_type: &str) -> Option<Control> {
        Control::ALL
            .into_iter()
            .find(|c| c.input_type() == input_type)
    }

    /// The input `type` of the control.
    pub(crate) fn input_type(self) -> &'static str {
        match self {
            Control::Date => "date",
            Control::Time => "time",
            Control::DatetimeLocal => "datetime-local",
            Control::Month => "month",
            Control::Week => "week",
            Control::Color => "color",
            Control::Range => "range",
        }
    }

    /// What the control holds, as an error names it (`… is not a date`).
    fn noun(self) -> &'static str {
        match self {
            Control::Date => "a date",
            Control::Time => "a time",
            Control::DatetimeLocal => "a date and time",
            Control::Month => "a month",
            Control::Week => "a week",
            Control::Color => "a colour",
            Control::Range => "a number",
        }
    }

    /// The format the control takes, as an error names it.
    pub(crate) fn format(self) -> &'static str {
        match self {
            Control::Date => "YYYY-MM-DD",
            Control::Time => "HH:MM, 24-hour",
            Control::DatetimeLocal => "YYYY-MM-DDTHH:MM",
            Control::Month => "YYYY-MM",
            Control::Week => "YYYY-Www",
            Control::Color => "#rrggbb",
            Control::Range => "a number within the slider's min, max and step",
        }
    }

    /// The value as the control holds it (`2026-12-24`, `09:30`,
    /// `#ff8800`), or why it cannot hold it, naming the format. An empty
    /// value empties the control (a range cannot be empty).
    pub(crate) fn value_of(self, value: &str) -> Result<String, String> {
        let value = value.trim();
        if value.is_empty() && self != Control::Range {
            return Ok(String::new());
        }
        let held = match self {
            Control::Date => date(value).map(|(y, m, d)| format!("{y:04}-{m:02}-{d:02}")),
            Control::Time => time(value),
            Control::DatetimeLocal => value
                .split_once(['T', 't', ' '])
                .and_then(|(day, at)| Some((date(day)?, time(at.trim())?)))
                .map(|((y, m, d), at)| format!("{y:04}-{m:02}-{d:02}T{at}")),
            Control::Month => value.split_once('-').and_then(|(y, m)| {
                let (y, m) = (year(y)?, number(m, 2)?);
                (1..=12).contains(&m).then(|| format!("{y:04}-{m:02}"))
            }),
            Control::Week => value.split_once(['-']).and_then(|(y, w)| {
                let y = year(y)?;
                let w = number(w.strip_prefix(['W', 'w'])?, 2)?;
                (1..=weeks_in(y))
                    .contains(&w)
                    .then(|| format!("{y:04}-W{w:02}"))
            }),
            Control::Color => color(value),
            Control::Range => value
                .parse::<f64>()
                .ok()
                .filter(|n| n.is_finite())
                .map(|_| value.to_owned()),
        };
        held.ok_or_else(|| self.refusal(value))
    }

    /// Why `value` is refused: the format to give, and the ISO form of a
    /// displayed date (`12/24/2026`) where it has one reading.
    fn refusal(self, value: &str) -> String {
        let mut message = format!("{value} is not {} (give {})", self.noun(), self.format());
        if matches!(self, Control::Date | Control::DatetimeLocal)
            && let Some(iso) = displayed_date(value)
        {
            message = format!(
                "{value} is not {} in the form the control takes: give {} ({iso}?)",
                self.noun(),
                self.format()
            );
        }
        message
    }
}

/// Sets `this` (an `<input>`; anything else: the field that has the focus)
/// to `value` as its picker would: the value is first tried on a copy, where
/// the control's own sanitizing and its min, max and step say whether it
/// can hold it (`{error: 'bad-value', held, min, max, step}`, nothing
/// fired); then the prototype's value setter (so a framework's field sees
/// it), `input` and `change`; answers `{held}`, what it holds after the
/// page's handlers ran.
const SET_CONTROL_JS: &str = r#"function (value) {
  let el = this;
  if (!el.isConnected) return { error: 'stale' };
  const doc = el.ownerDocument;
  if (el.tagName !== 'INPUT') { el = doc.activeElement; while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement; }
  if (!el || el.tagName !== 'INPUT') return { error: 'not-editable' };
  if (el.disabled || el.readOnly) return { error: 'not-editable' };
  const probe = el.cloneNode(false);
  probe.value = value;
  const v = probe.validity;
  const fits = el.type === 'range' ? Number(probe.value) === Number(value) : probe.value === value;
  if (!fits || (value !== '' && (v.rangeUnderflow || v.rangeOverflow || v.stepMismatch))) {
    return { error: 'bad-value', held: probe.value, min: el.min, max: el.max, step: el.step };
  }
  if (el.getRootNode().activeElement !== el) el.focus();
  const win = doc.defaultView;
  const setter = Object.getOwnPropertyDescriptor(win.HTMLInputElement.prototype, 'value').set;
  setter.call(el, value);
  el.dispatchEvent(new win.Event('input', { bubbles: true, composed: true }));
  el.dispatchEvent(new win.Event('change', { bubbles: true }));
  return { held: el.value };
}"#;

impl Input<'_> {
    /// Sets the control `backend_id` names (none: the one that has the
    /// focus) to `value`, checked first ([`Control::value_of`]), read back
    /// after.
    pub(super) async fn set_control(
        &self,
        backend_id: Option<u64>,
        control: Control,
        value: &str,
    ) -> Result<Outcome> {
        let held = match control.value_of(value) {
            Ok(held) => held,
            Err(refused) => return Ok(Outcome::failed(Failure::BadValue, refused)),
        };
        let args = vec![serde_json::Value::from(held.as_str())];
        let answer = match backend_id {
            Some(id) => self.call_on(id, SET_CONTROL_JS, args).await?,
            None => self.call_on_document(SET_CONTROL_JS, &args).await?,
        };
        if answer.error == Some(Failure::BadValue) {
            return Ok(Outcome::failed(
                Failure::BadValue,
                out_of_bounds(control, value, &answer),
            ));
        }
        if let Some(failed) = failure(&answer) {
            return Ok(failed);
        }
        let field = Field {
            numeric: control == Control::Range,
            ..Field::default()
        };
        let now = answer.held.unwrap_or_default();
        Ok(readback::outcome(&held, &now, field, false))
    }
}

/// Why a well-formed value does not fit the control: its bounds and step,
/// and what it would have held instead.
fn out_of_bounds(control: Control, value: &str, answer: &Answer) -> String {
    let bounds: Vec<String> = [
        ("min", &answer.min),
        ("max", &answer.max),
        ("step", &answer.step),
    ]
    .into_iter()
    .filter_map(|(name, v)| {
        v.as_deref()
            .filter(|v| !v.is_empty())
            .map(|v| format!("{name} {v}"))
    })
    .collect();
    let bounds = if bounds.is_empty() {
        String::new()
    } else {
        format!(" ({})", bounds.join(", "))
    };
    let instead = match answer.held.as_deref() {
        Some(held) if !held.is_empty() && held != value => format!("; it would hold {held}"),
        _ => String::new(),
    };
    format!(
        "{value} is not {} this {} control takes{bounds}{instead}",
        control.noun(),
        control.input_type()
    )
}

/// `YYYY-MM-DD` of a real day.
fn date(value: &str) -> Option<(u32, u32, u32)> {
    let mut parts = value.split('-');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let (y, m, d) = (year(y)?, number(m, 2)?, number(d, 2)?);
    ((1..=12).contains(&m) && (1..=days_in(y, m)).contains(&d)).then_some((y, m, d))
}

/// A year of at least four digits, from 1 (as HTML's dates are).
fn year(value: &str) -> Option<u32> {
    (value.len() >= 4)
        .then(|| number(value, value.len()))
        .flatten()
        .filter(|&y| y > 0)
}

/// Exactly `digits` ASCII digits.
fn number(value: &str, digits: usize) -> Option<u32> {
    (value.len() == digits && value.bytes().all(|b| b.is_ascii_digit()))
        .then(|| value.parse().ok())
        .flatten()
}

/// `HH:MM`, `HH:MM:SS` or `HH:MM:SS.sss` (one hour digit is taken and
/// written as two).
fn time(value: &str) -> Option<String> {
    let mut parts = value.split(':');
    let (h, m) = (parts.next()?, parts.next()?);
    let s = parts.next();
    if parts.next().is_some() {
        return None;
    }
    let h = match h.len() {
        1 => number(h, 1)?,
        _ => number(h, 2)?,
    };
    let m = number(m, 2)?;
    if h > 23 || m > 59 {
        return None;
    }
    let seconds = match s {
        None => String::new(),
        Some(s) => {
            let (whole, fraction) = s.split_once('.').unwrap_or((s, ""));
            if number(whole, 2)? > 59 {
                return None;
            }
            if fraction.is_empty() && s.contains('.')
                || fraction.len() > 3
                || !fraction.bytes().all(|b| b.is_ascii_digit())
            {
                return None;
            }
            format!(":{s}")
        }
    };
    Some(format!("{h:02}:{m:02}{seconds}"))
}

/// `#rrggbb` in lower case (`#rgb` doubled).
fn color(value: &str) -> Option<String> {
    let hex = value.strip_prefix('#')?;
    if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let hex = hex.to_ascii_lowercase();
    match hex.len() {
        6 => Some(format!("#{hex}")),
        3 => Some(hex.chars().fold(String::from("#"), |mut s, c| {
            s.push(c);
            s.push(c);
            s
        })),
        _ => None,
    }
}

fn leap(y: u32) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

fn days_in(y: u32, m: u32) -> u32 {
    match m {
        2 if leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The weekday of 1 January of `y`, 0 = Monday (Gauss's formula).
fn new_year_weekday(y: u32) -> u32 {
    let p = y - 1;
    // 1 January of year 1 was a Monday (proleptic Gregorian).
    (p + p / 4 - p / 100 + p / 400) % 7
}

/// ISO weeks in `y`: 53 when the year starts on a Thursday, or on a
/// Wednesday in a leap year.
fn weeks_in(y: u32) -> u32 {
    match new_year_weekday(y) {
        3 => 53,
        2 if leap(y) => 53,
        _ => 52,
    }
}

/// The ISO form of a displayed date `A/B/YYYY` (or `.`/`-` separated, the
/// year last) when exactly one of month-first and day-first is a real day.
fn displayed_date(value: &str) -> Option<String> {
    let date_part = value.split([' ', 'T']).next()?;
    let parts: Vec<&str> = date_part.split(['/', '.', '-']).collect();
    let [a, b, y] = parts[..] else { return None };
    let (a, b, y) = (a.parse::<u32>().ok()?, b.parse::<u32>().ok()?, year(y)?);
    let real = |m: u32, d: u32| (1..=12).contains(&m) && (1..=days_in(y, m)).contains(&d);
    match (real(a, b), real(b, a)) {
        (true, false) => Some(format!("{y:04}-{a:02}-{b:02}")),
        (false, true) => Some(format!("{y:04}-{b:02}-{a:02}")),
        (true, true) if a == b => Some(format!("{y:04}-{a:02}-{b:02}")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_control_is_found_by_its_input_type() {
        for control in Control::ALL {
            assert_eq!(Control::of_type(control.input_type()), Some(control));
        }
        assert_eq!(Control::of_type("text"), None);
        assert_eq!(Control::of_type("checkbox"), None);
    }

    #[test]
    fn dates_are_held_in_iso_form_and_impossible_days_refused() {
        let date = |v: &str| Control::Date.value_of(v);
        assert_eq!(date("2026-12-24").unwrap(), "2026-12-24");
        assert_eq!(date(" 2024-02-29 ").unwrap(), "2024-02-29");
        assert_eq!(date("").unwrap(), "", "empty empties the control");
        for bad in [
            "2026-13-40",
            "2025-02-29",
            "1900-02-29",
            "2026-1-5",
            "26-12-24",
            "tomorrow",
        ] {
            let refused = date(bad).unwrap_err();
            assert!(refused.contains("give YYYY-MM-DD"), "{bad}: {refused}");
            assert!(refused.starts_with(bad), "{bad}: {refused}");
        }
        assert_eq!(date("2000-02-29").unwrap(), "2000-02-29");
    }

    #[test]
    fn a_displayed_date_is_refused_naming_its_iso_form() {
        let refused = Control::Date.value_of("12/24/2026").unwrap_err();
        assert!(refused.contains("2026-12-24?"), "{refused}");
        let refused = Control::Date.value_of("24.12.2026").unwrap_err();
        assert!(refused.contains("2026-12-24?"), "{refused}");
        // Both readings are real days: no guess.
        let refused = Control::Date.value_of("03/04/2026").unwrap_err();
        assert!(!refused.contains('?'), "{refused}");
        assert!(refused.contains("give YYYY-MM-DD"), "{refused}");
    }

    #[test]
    fn times_months_weeks_and_datetimes_take_their_standard_forms() {
        assert_eq!(Control::Time.value_of("14:30").unwrap(), "14:30");
        assert_eq!(Control::Time.value_of("9:05").unwrap(), "09:05");
        assert_eq!(Control::Time.value_of("23:59:59.5").unwrap(), "23:59:59.5");
        for bad in ["24:00", "2:30 PM", "12:60", "12", "12:00:00."] {
            let refused = Control::Time.value_of(bad).unwrap_err();
            assert!(refused.contains("HH:MM"), "{bad}: {refused}");
        }
        assert_eq!(
            Control::DatetimeLocal.value_of("2026-12-24 08:15").unwrap(),
            "2026-12-24T08:15"
        );
        assert!(Control::DatetimeLocal.value_of("2026-12-24").is_err());
        assert_eq!(Control::Month.value_of("2026-02").unwrap(), "2026-02");
        assert!(Control::Month.value_of("2026-13").is_err());
        assert_eq!(Control::Week.value_of("2026-w05").unwrap(), "2026-W05");
        // 2026 starts on a Thursday: it has a week 53; 2025 does not.
        assert_eq!(Control::Week.value_of("2026-W53").unwrap(), "2026-W53");
        assert!(Control::Week.value_of("2025-W53").is_err());
        assert!(Control::Week.value_of("2025-W00").is_err());
    }

    #[test]
    fn iso_years_with_53_weeks_are_known() {
        // The years of the 400-year cycle's first century that have 53 ISO weeks.
        let long: Vec<u32> = (2001..=2040).filter(|&y| weeks_in(y) == 53).collect();
        assert_eq!(long, [2004, 2009, 2015, 2020, 2026, 2032, 2037]);
    }

    #[test]
    fn colours_are_hex_and_ranges_are_numbers() {
        assert_eq!(Control::Color.value_of("#FF8800").unwrap(), "#ff8800");
        assert_eq!(Control::Color.value_of("#f80").unwrap(), "#ff8800");
        for bad in ["red", "#ff88", "rgb(1,2,3)", "ff8800"] {
            let refused = Control::Color.value_of(bad).unwrap_err();
            assert!(refused.contains("#rrggbb"), "{bad}: {refused}");
        }
        assert_eq!(Control::Range.value_of("70").unwrap(), "70");
        assert_eq!(Control::Range.value_of("-2.5").unwrap(), "-2.5");
        for bad in ["", "seventy", "NaN", "inf"] {
            assert!(Control::Range.value_of(bad).is_err(), "{bad}");
        }
    }
}
