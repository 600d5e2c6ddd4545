//! The `aria` strategy: Playwright-compatible ARIA snapshot YAML with refs, `[obscured]` under a modal and a viewport comment on top.
//!
//! Built the way Playwright's `packages/injected/src/ariaSnapshot.ts` builds
//! `locator.ariaSnapshot()`: one walk turns the page into a small model tree
//! (*build*), string children are merged and whitespace-normalised
//! (*distill*), and the model is printed as YAML (*render*). The facts come
//! from the page's analysis and the shared passes; nothing is re-derived.
//!
//! Rendering rules kept from Playwright (default mode):
//! - Elements without a role (`div`, `span`, unnamed `section`, `none` /
//!   `presentation`) add no node: their children are hoisted into the
//!   parent. Block-level elements surround their content with a space so
//!   adjacent texts do not run together.
//! - Text is merged per parent and normalised (`normalizeWhiteSpace`, which
//!   also collapses non-breaking spaces); a node whose only child is text
//!   equal to its name drops the text.
//! - States in `createKey` order, `[invalid]` (`[invalid=grammar|spelling]`)
//!   included for the roles Playwright prints it on.
//! - `input`/`textarea` (not checkbox, radio, file) carry their value as a
//!   text child; links carry `/url`, textboxes a `/placeholder` differing
//!   from the name.
//! - Keys and values are YAML-escaped exactly as Playwright's `yaml.ts`.
//! - Nodes hidden from the accessibility tree (`display: none`,
//!   `visibility: hidden`, `hidden`, `aria-hidden`, `inert`) are omitted
//!   with their subtrees; merely invisible content (opacity 0, clipped
//!   screen-reader text, empty boxes) is kept, as Playwright keeps it, but
//!   never carries a ref.
//!
//! Additions for agents: `[ref=eN]` on targets (plus `[new]`), `[obscured]`
//! on interactive nodes with a role outside a reliable modal (an obscured
//! clickable `div` stays transparent, its text kept), ref'd role-less
//! elements (clickable `div`s) rendered as nodes — `- text [ref=e5]: Open`
//! when they hold only text, so that without the ref the line is
//! Playwright's, else `- generic [ref=e5]:` with the children —, same-origin
//! iframe documents and shadow trees rendered in place, `[active]` on the
//! focused element (Playwright's `mode: 'ai'` prints it, the default mode
//! does not), and `# ` comment lines on top.
//!
//! Known differences from Playwright's default mode, on purpose (measured by
//! `harness/tests/playwright_aria.rs`): rows are not named from their cells
//! (Chromium names only grid rows; Playwright's `ai` mode drops such names
//! too), `inert` subtrees are omitted, password values are never shown, and
//! facts follow the engine's Chromium-validated analysis (a `<fieldset
//! disabled>` group is `[disabled]`, `<optgroup>`s in a `<select>` are kept).

mod build;
mod render;
mod yaml;

use self::build::build;
use self::render::render;
use super::Strategy;
use super::shared::meta;
use crate::analyze::{Analyzed, ModalKind};
use crate::observation::Observation;
use crate::passes::budget::{self, Line};
use crate::passes::{Context, ObserveError, Options, viewport};

#[doc = include_str!("aria.md")]
pub struct Aria;

impl Strategy for Aria {
    fn name(&self) -> &'static str {
        "aria"
    }

    fn summary(&self) -> &'static str {
        "Playwright-compatible ARIA snapshot YAML with [ref=eN], [obscured] under a modal, viewport comments"
    }

    fn explain(&self) -> &'static str {
        include_str!("aria.md")
    }

    fn observe(
        &self,
        analyzed: &Analyzed,
        options: &Options<'_>,
    ) -> Result<Observation, ObserveError> {
        let ctx = Context::new(analyzed, options, self.full_page_by_default())?;
        let mut lines = header(&ctx);
        let tree = build(&ctx);
        render(&ctx, &tree, &mut lines);
        let fitted = budget::fit_tree(lines, options.max_tokens);
        Ok(meta::text_observation(
            &ctx,
            self.name(),
            options,
            fitted,
            |n| format!("e{n}"),
        ))
    }
}

/// The `# ` comment lines: modal, page position (seed 003, parts A–C).
fn header(ctx: &Context<'_>) -> Vec<Line> {
    let mut lines = Vec::new();
    match ctx.analysis.modal.kind {
        ModalKind::Reliable => {
            lines.push(Line::pinned(
                "# A modal is open. Only modal elements have refs.".to_owned(),
            ));
        }
        ModalKind::Suspected => {
            lines.push(Line::pinned(
                "# Warning: an overlay may cover the page.".to_owned(),
            ));
        }
        ModalKind::None => {}
    }
    for line in viewport::position_lines(ctx.analysis) {
        lines.push(Line::pinned(["# ", &line].concat()));
    }
    if !ctx.full_page && viewport::interactive_below(ctx.page, ctx.analysis) > 0 {
        lines.push(Line::pinned(
            "# There are interactive elements below the viewport not shown in detail. Scroll down to see them."
                .to_owned(),
        ));
    }
    lines
}
