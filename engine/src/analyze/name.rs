//! Accessible names and descriptions per accname 1.2 and HTML-AAM, with their source and strength.

use super::{Role, Visibility};
use crate::page::Page;

/// Where a name came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NameSource {
    /// Name from content.
    Text,
    /// `aria-label`.
    AriaLabel,
    /// `aria-labelledby`.
    AriaLabelledby,
    /// A native label: `<label>`, `<legend>`, `<caption>`, `<figcaption>`.
    Label,
    /// `title`.
    Title,
    /// `placeholder`.
    Placeholder,
    /// `alt`.
    Alt,
    /// A button's `value` or a default label (`Submit`, `Reset`).
    Value,
    /// No name.
    Unknown,
}

/// How far a name can be trusted for exact claims (aimount `nameStatus`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Strength {
    /// Author-given, specific.
    Strong,
    /// A fallback source (title, placeholder, …) or a name that says little.
    Weak,
    /// No name.
    Unknown,
}

/// A computed accessible name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccName {
    /// The name, whitespace-normalised.
    pub text: String,
    /// Its source.
    pub source: NameSource,
    /// Its strength.
    pub strength: Strength,
}

/// Names and descriptions per node.
pub(crate) fn compute(
    page: &Page,
    roles: &[Option<Role>],
    visibility: &[Visibility],
) -> (Vec<Option<AccName>>, Vec<Option<String>>) {
    let _ = (roles, visibility);
    (vec![None; page.len()], vec![None; page.len()])
}
