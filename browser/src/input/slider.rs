//! Custom sliders (`role="slider"` with `aria-valuenow`), set as a person sets them: the arrow keys first, as many presses as the value needs; where the keys do not move it, a drag of the thumb to where the value lies along its track; then the value read back.

use chromiumoxide::cdp::browser_protocol::input::DispatchMouseEventType;
use serde::Deserialize;

use super::Input;
use super::controls::Control;
use crate::action::{Failure, Outcome};
use crate::error::Result;

/// At most this many key presses set one value (a slider of 0–1000 by 1
/// is dragged instead).
const MAX_PRESSES: u32 = 200;

/// Mouse moves of a thumb's drag.
const DRAG_STEPS: u32 = 8;

/// What `this` slider shows: `{now, min, max, vertical, centre, track}`
/// (its thumb's centre and its track's box in its frame's viewport: the
/// nearest ancestor at least three thumbs long), or `{error}`.
const SLIDER_JS: &str = r#"function () {
  const el = this;
  if (!el.isConnected) return { error: 'stale' };
  if (el.getAttribute('aria-disabled') === 'true') return { error: 'not-editable' };
  const num = (name, fallback) => { const v = parseFloat(el.getAttribute(name)); return Number.isFinite(v) ? v : fallback; };
  const vertical = el.getAttribute('aria-orientation') === 'vertical';
  const r = el.getBoundingClientRect();
  let track = r;
  for (let p = el.parentElement; p && (vertical ? track.height < 3 * r.height : track.width < 3 * r.width); p = p.parentElement) track = p.getBoundingClientRect();
  return {
    now: num('aria-valuenow', null), min: num('aria-valuemin', 0), max: num('aria-valuemax', 100), vertical,
    centre: [r.left + r.width / 2, r.top + r.height / 2], track: [track.left, track.top, track.width, track.height],
  };
}"#;

/// A slider as [`SLIDER_JS`] reads it.
#[derive(Debug, Deserialize)]
struct Slider {
    now: Option<f64>,
    min: f64,
    max: f64,
    vertical: bool,
    centre: [f64; 2],
    track: [f64; 4],
}

impl Slider {
    /// Where along the track `value` lies, in the slider's frame's viewport.
    fn point_of(&self, value: f64) -> (f64, f64) {
        let [left, top, width, height] = self.track;
        let share = if self.max > self.min {
            ((value - self.min) / (self.max - self.min)).clamp(0.0, 1.0)
        } else {
            0.0
        };
        if self.vertical {
            (self.centre[0], top + height * (1.0 - share))
        } else {
            (left + width * share, self.centre[1])
        }
    }
}

impl Input<'_> {
    /// Sets the custom slider `backend_id` to `value` (see the module docs).
    pub(super) async fn set_slider(&self, backend_id: u64, value: &str) -> Result<Outcome> {
        let target = match Control::Range.value_of(value) {
            Ok(number) => number.parse::<f64>().unwrap_or(f64::NAN),
            Err(refused) => return Ok(Outcome::failed(Failure::BadValue, refused)),
        };
        let slider = match self.slider(backend_id).await? {
            Ok(slider) => slider,
            Err(failed) => return Ok(failed),
        };
        let Some(start) = slider.now else {
            return Ok(Outcome::failed(
                Failure::NotEditable,
                "the slider says no value (no aria-valuenow)",
            ));
        };
        if !(slider.min..=slider.max).contains(&target) {
            return Ok(Outcome::failed(
                Failure::BadValue,
                format!(
                    "{value} is outside the slider's range {}–{}",
                    slider.min, slider.max
                ),
            ));
        }
        if start == target {
            return Ok(Outcome::ok());
        }
        let focused = self.focus(backend_id).await?;
        if let Outcome::Failed { .. } = focused {
            return Ok(focused);
        }
        let up = target > start;
        let key = match (slider.vertical, up) {
            (false, true) => "ArrowRight",
            (false, false) => "ArrowLeft",
            (true, true) => "ArrowUp",
            (true, false) => "ArrowDown",
        };
        let now = self.press_slider(backend_id, key, 1).await?;
        let moved = now
            .map(|now| now - start)
            .filter(|d| d.abs() > 0.0 && (*d > 0.0) == up);
        let mut now = now.unwrap_or(start);
        if let Some(step) = moved {
            let presses = ((target - now) / step).round();
            if presses > 0.0 && presses <= f64::from(MAX_PRESSES) {
                now = self
                    .press_slider(backend_id, key, presses as u32)
                    .await?
                    .unwrap_or(now);
            }
        }
        if now != target && moved.is_none() {
            now = self.drag_slider(backend_id, &slider, target).await?;
        }
        if now == target {
            return Ok(Outcome::ok());
        }
        Ok(Outcome::failed(
            Failure::ValueMismatch,
            format!("the slider holds {now}, not {target}"),
        ))
    }

    /// The slider as its script reads it, or the failure a person would meet.
    async fn slider(&self, backend_id: u64) -> Result<std::result::Result<Slider, Outcome>> {
        self.call_typed(Some(backend_id), SLIDER_JS, &[]).await
    }

    /// Presses `key` `times` times; the slider's value after.
    async fn press_slider(&self, backend_id: u64, key: &str, times: u32) -> Result<Option<f64>> {
        let Some(key) = super::keys::named_key(key) else {
            return Ok(None);
        };
        for _ in 0..times {
            self.keyboard().key(key).await?;
        }
        Ok(match self.slider(backend_id).await? {
            Ok(slider) => slider.now,
            Err(_) => None,
        })
    }

    /// Drags the thumb from its centre to where `target` lies on the track;
    /// the slider's value after.
    async fn drag_slider(&self, backend_id: u64, slider: &Slider, target: f64) -> Result<f64> {
        let start = match self.point_of(backend_id).await? {
            Ok(point) => point,
            Err(_) => return Ok(slider.now.unwrap_or(f64::NAN)),
        };
        // The thumb's centre as its frame sees it, and where the value lies:
        // the same offset from the point the page was found at.
        let fresh = match self.slider(backend_id).await? {
            Ok(fresh) => fresh,
            Err(_) => return Ok(slider.now.unwrap_or(f64::NAN)),
        };
        let (x, y) = fresh.point_of(target);
        let end = (start.0 + x - fresh.centre[0], start.1 + y - fresh.centre[1]);
        let mouse = self.mouse();
        mouse
            .event(DispatchMouseEventType::MouseMoved, start, 0)
            .await?;
        mouse
            .event(DispatchMouseEventType::MousePressed, start, 1)
            .await?;
        for step in 1..=DRAG_STEPS {
            let t = f64::from(step) / f64::from(DRAG_STEPS);
            let point = (
                start.0 + (end.0 - start.0) * t,
                start.1 + (end.1 - start.1) * t,
            );
            mouse
                .event(DispatchMouseEventType::MouseMoved, point, 1)
                .await?;
        }
        mouse
            .event(DispatchMouseEventType::MouseReleased, end, 1)
            .await?;
        Ok(match self.slider(backend_id).await? {
            Ok(after) => after.now.unwrap_or(f64::NAN),
            Err(_) => f64::NAN,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_lies_along_the_track_in_proportion() {
        let slider = Slider {
            now: Some(50.0),
            min: 0.0,
            max: 100.0,
            vertical: false,
            centre: [110.0, 20.0],
            track: [10.0, 15.0, 200.0, 10.0],
        };
        assert_eq!(slider.point_of(70.0), (150.0, 20.0));
        assert_eq!(slider.point_of(0.0), (10.0, 20.0));
        assert_eq!(
            slider.point_of(500.0),
            (210.0, 20.0),
            "clamped to the track"
        );
        let upright = Slider {
            vertical: true,
            ..slider
        };
        assert_eq!(upright.point_of(25.0), (110.0, 15.0 + 10.0 * 0.75));
    }
}
