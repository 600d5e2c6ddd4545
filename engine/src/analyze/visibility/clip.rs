//! Clip regions: what the overflow clips of a node's ancestors let show of its box ([`Clip`], [`Cut`]), and per element what they leave of it ([`Clips`]).

use crate::geom::Rect;
use crate::page::NodeId;

/// An axis-aligned clip region; infinite edges where nothing clips.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Clip {
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

impl Clip {
    pub(super) const NONE: Clip = Clip {
        x0: f64::NEG_INFINITY,
        y0: f64::NEG_INFINITY,
        x1: f64::INFINITY,
        y1: f64::INFINITY,
    };
    const EMPTY: Clip = Clip {
        x0: 0.0,
        y0: 0.0,
        x1: 0.0,
        y1: 0.0,
    };

    /// Whether nothing shows through: an axis that clips has no extent.
    pub(super) fn is_empty(&self) -> bool {
        self.x1 <= self.x0 || self.y1 <= self.y0
    }

    /// Whether some of `rect` shows through (non-empty intersection).
    pub(super) fn shows(&self, rect: &Rect) -> bool {
        rect.x < self.x1 && self.x0 < rect.right() && rect.y < self.y1 && self.y0 < rect.bottom()
    }

    /// Narrows the clip to `rect` on the axes that clip.
    fn narrow(self, rect: &Rect, x: bool, y: bool) -> Clip {
        let mut clip = self;
        if x {
            clip.x0 = clip.x0.max(rect.x);
            clip.x1 = clip.x1.min(rect.right()).max(clip.x0);
        }
        if y {
            clip.y0 = clip.y0.max(rect.y);
            clip.y1 = clip.y1.min(rect.bottom()).max(clip.y0);
        }
        clip
    }
}

/// The clips on a box: `all` of them, and the `hard` ones a person cannot
/// scroll (`overflow: hidden | clip`). A box outside `all` but inside `hard`
/// is scrolled out of a scroll container: there, reached by scrolling it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Cut {
    pub(super) all: Clip,
    pub(super) hard: Clip,
}

impl Cut {
    pub(super) const NONE: Cut = Cut {
        all: Clip::NONE,
        hard: Clip::NONE,
    };
    pub(super) const EMPTY: Cut = Cut {
        all: Clip::EMPTY,
        hard: Clip::EMPTY,
    };

    /// Narrows to `rect` on the axes that clip (`x`, `y`), the hard clip on
    /// those a person cannot scroll (`hard_x`, `hard_y`).
    pub(super) fn narrow(
        self,
        rect: &Rect,
        (x, y): (bool, bool),
        (hard_x, hard_y): (bool, bool),
    ) -> Cut {
        Cut {
            all: self.all.narrow(rect, x, y),
            hard: self.hard.narrow(rect, hard_x, hard_y),
        }
    }
}

/// What ancestors' overflow clips leave of each element's box: the region
/// its box is cut to (empty for pages without layout: nothing is cut).
#[derive(Debug, Default)]
pub(crate) struct Clips(pub(super) Vec<Clip>);

impl Clips {
    /// The part of `rect` (a box of element `id`) its ancestors let show;
    /// `None` when nothing shows.
    pub(crate) fn visible_part(&self, id: NodeId, rect: Rect) -> Option<Rect> {
        let Some(clip) = self.0.get(id.index()) else {
            return Some(rect);
        };
        if *clip == Clip::NONE {
            return Some(rect);
        }
        if !clip.shows(&rect) {
            return None;
        }
        let x0 = rect.x.max(clip.x0);
        let y0 = rect.y.max(clip.y0);
        let x1 = rect.right().min(clip.x1);
        let y1 = rect.bottom().min(clip.y1);
        Some(Rect {
            x: x0,
            y: y0,
            width: x1 - x0,
            height: y1 - y0,
        })
    }
}
