//! States: disabled, checked, selected, expanded, pressed, level, required, readonly, invalid, value, focused.

use super::Role;
use crate::page::Page;

/// A tri-state value (`aria-checked`, `aria-pressed`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checked {
    /// Checked / pressed.
    True,
    /// Not checked.
    False,
    /// `mixed` / indeterminate.
    Mixed,
}

/// States of one node.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct States {
    /// Disabled (native, inherited from a disabled fieldset, or `aria-disabled`).
    pub disabled: bool,
    /// Checkedness of checkboxes, radios, switches, menuitemcheckbox…
    pub checked: Option<Checked>,
    /// Selected (options, tabs, rows).
    pub selected: Option<bool>,
    /// Expanded / collapsed.
    pub expanded: Option<bool>,
    /// Toggle buttons.
    pub pressed: Option<Checked>,
    /// Heading level, tree item level.
    pub level: Option<u32>,
    /// Required.
    pub required: bool,
    /// Read-only.
    pub readonly: bool,
    /// Invalid.
    pub invalid: bool,
    /// Current value of textboxes, sliders, comboboxes, spinbuttons.
    pub value: Option<String>,
    /// Has focus.
    pub focused: bool,
}

/// States per node.
pub(crate) fn compute(page: &Page, roles: &[Option<Role>]) -> Vec<States> {
    let _ = roles;
    vec![States::default(); page.len()]
}
