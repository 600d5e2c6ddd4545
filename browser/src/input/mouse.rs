//! The mouse: events at viewport points, dispatched as a user's (`Input.dispatchMouseEvent`).

use chromiumoxide::cdp::browser_protocol::input::{
    DispatchMouseEventParams, DispatchMouseEventType, MouseButton,
};

use crate::action::{Button, ClickWith};
use crate::error::Result;
use crate::tab::TabHandle;

/// The mouse of one tab.
pub(crate) struct Mouse<'a> {
    tab: &'a TabHandle,
}

impl<'a> Mouse<'a> {
    /// The mouse of `tab`.
    pub(crate) fn new(tab: &'a TabHandle) -> Mouse<'a> {
        Mouse { tab }
    }

    /// A left click (move, press, release) at viewport point `(x, y)`.
    pub(crate) async fn click(&self, point: (f64, f64)) -> Result<()> {
        self.event(DispatchMouseEventType::MouseMoved, point, 0)
            .await?;
        self.press(point, 1).await
    }

    /// A click of `with`'s button, its modifier keys marked held on each
    /// event (the keys themselves are pressed by the caller).
    pub(crate) async fn click_with(&self, point: (f64, f64), with: ClickWith) -> Result<()> {
        if with.is_plain() {
            return self.click(point).await;
        }
        let (button, bit) = match with.button {
            Button::Left => (MouseButton::Left, 1),
            Button::Right => (MouseButton::Right, 2),
            Button::Middle => (MouseButton::Middle, 4),
        };
        for kind in [
            DispatchMouseEventType::MouseMoved,
            DispatchMouseEventType::MousePressed,
            DispatchMouseEventType::MouseReleased,
        ] {
            let mut params = DispatchMouseEventParams::new(kind.clone(), point.0, point.1);
            params.modifiers = Some(with.modifiers);
            if kind != DispatchMouseEventType::MouseMoved {
                params.button = Some(button.clone());
                params.buttons = Some(if kind == DispatchMouseEventType::MousePressed {
                    bit
                } else {
                    0
                });
                params.click_count = Some(1);
            }
            self.tab
                .call("Input.dispatchMouseEvent", self.tab.page().execute(params))
                .await?;
        }
        Ok(())
    }

    /// The left button pressed and released at `point`, the `count`th click
    /// of a series (2: the second click of a double click).
    pub(crate) async fn press(&self, point: (f64, f64), count: i64) -> Result<()> {
        self.event(DispatchMouseEventType::MousePressed, point, count)
            .await?;
        self.event(DispatchMouseEventType::MouseReleased, point, count)
            .await
    }

    /// One mouse event at viewport point `(x, y)`; a press or release is of
    /// the left button, the `count`th click of a series.
    pub(crate) async fn event(
        &self,
        kind: DispatchMouseEventType,
        (x, y): (f64, f64),
        count: i64,
    ) -> Result<()> {
        let mut params = DispatchMouseEventParams::new(kind.clone(), x, y);
        match kind {
            DispatchMouseEventType::MousePressed | DispatchMouseEventType::MouseReleased => {
                params.button = Some(MouseButton::Left);
                params.buttons = Some(i64::from(kind == DispatchMouseEventType::MousePressed));
                params.click_count = Some(count);
            }
            _ if count > 0 => {
                // A move with the button held (a drag).
                params.button = Some(MouseButton::Left);
                params.buttons = Some(1);
            }
            _ => {}
        }
        self.tab
            .call("Input.dispatchMouseEvent", self.tab.page().execute(params))
            .await?;
        Ok(())
    }
}
