//! The judgement layer: roles, names, states, visibility, interactivity, occlusion, modal layer, scrolling.
//!
//! [`Analysis::new`] computes every fact once per page, in linear (or
//! near-linear) passes; strategies only read these facts and never re-derive
//! them. Every per-node fact is a `Vec` indexed by [`NodeId::index`].

mod backdrop;
mod clipping;
pub(crate) mod dom;
mod grid;
mod interactive;
mod legibility;
mod modal;
mod name;
mod occlusion;
mod role;
mod scroll;
mod skipped;
mod states;
mod value;
mod visibility;
pub(crate) mod whitespace;

pub use dom::{Display, Dom, input_type, is_labelable, tabindex};
pub use interactive::{InteractiveReason, is_widget_role};
pub use legibility::{MIN_CONTRAST, MIN_FONT_PX, MIN_TEXT_ALPHA};
pub use modal::{ModalKind, ModalLayer};
pub use name::{AccName, NameSource, Strength};
pub use role::{Role, chromium_role_matches, is_chromium_text_role, is_valid_role};
pub use scroll::{PagePosition, ScrollContainer};
pub use states::{Checked, Invalid, States};
pub use visibility::{Hidden, Visibility};

use crate::page::{NodeId, Page};

/// A page with its analysis: built once per page state, then handed to every
/// strategy, so analysis runs once however many strategies render the page.
#[derive(Clone, Debug)]
pub struct Analyzed {
    page: Page,
    analysis: Analysis,
}

impl Analyzed {
    /// Analyses the page and keeps both together.
    pub fn new(page: Page) -> Analyzed {
        let analysis = Analysis::new(&page);
        Analyzed { page, analysis }
    }

    /// The page.
    pub fn page(&self) -> &Page {
        &self.page
    }

    /// The facts computed about it.
    pub fn analysis(&self) -> &Analysis {
        &self.analysis
    }

    /// Gives the page back.
    pub fn into_page(self) -> Page {
        self.page
    }
}

/// All facts about one page.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// Trees, ids, labels and display classes.
    pub dom: Dom,
    /// Role per node (`None`: not an element, or excluded from the accessibility tree
    /// such as `<script>`, `<head>`, `<template>`).
    pub roles: Vec<Option<Role>>,
    /// Per node: the role is the author's, taken from the `role` attribute.
    pub explicit_roles: Vec<bool>,
    /// Visibility per node.
    pub visibility: Vec<Visibility>,
    /// Accessible name per node (`None` for nodes without a role).
    pub names: Vec<Option<AccName>>,
    /// Accessible description (`aria-describedby`, `title` fallback) per node.
    pub descriptions: Vec<Option<String>>,
    /// States per node.
    pub states: Vec<States>,
    /// Why the node is interactive, if it is.
    pub interactive: Vec<Option<InteractiveReason>>,
    /// Covered by later-painted opaque boxes at every point that matters:
    /// a click would land on something else.
    pub occluded: Vec<bool>,
    /// Covered by later-painted opaque backgrounds at every point that
    /// matters: a person does not see it.
    pub covered: Vec<bool>,
    /// Outside the top-most reliable modal (`ModalKind::Reliable` only).
    pub obscured: Vec<bool>,
    /// The modal layer.
    pub modal: ModalLayer,
    /// Scroll containers with overflowing content, in document order.
    pub scroll_containers: Vec<ScrollContainer>,
    /// Where the viewport is on the page.
    pub position: PagePosition,
}

impl Analysis {
    /// Analyses a page.
    pub fn new(page: &Page) -> Analysis {
        let dom = Dom::new(page);
        let (roles, explicit_roles) = role::compute(page, &dom);
        let (mut visibility, clips) = visibility::compute(page, &dom);
        let occlusion::Occlusion {
            occluded,
            covered,
            opacity,
        } = occlusion::compute(page, &visibility, &clips);
        legibility::compute(page, &mut visibility, &clips, &covered, &opacity);
        let (names, descriptions) = name::compute(page, &dom, &roles, &visibility);
        let states = states::compute(page, &roles);
        let interactive = interactive::compute(page, &dom, &roles, &visibility, &states);
        let (modal, obscured) = modal::compute(page, &roles, &visibility);
        let (scroll_containers, position) = scroll::compute(page, &visibility);
        Analysis {
            dom,
            roles,
            explicit_roles,
            visibility,
            names,
            descriptions,
            states,
            interactive,
            occluded,
            covered,
            obscured,
            modal,
            scroll_containers,
            position,
        }
    }

    /// The role of a node.
    pub fn role(&self, id: NodeId) -> Option<Role> {
        self.roles[id.index()]
    }

    /// The accessible name of a node.
    pub fn name(&self, id: NodeId) -> Option<&AccName> {
        self.names[id.index()].as_ref()
    }

    /// Whether an agent may act on the node: visible, interactive, not
    /// occluded, not obscured by a modal. (Disabled controls stay actionable
    /// candidates; their `disabled` state is reported.)
    pub fn is_actionable(&self, id: NodeId) -> bool {
        let i = id.index();
        self.visibility[i].is_visible()
            && self.interactive[i].is_some()
            && !self.occluded[i]
            && !self.obscured[i]
    }
}
