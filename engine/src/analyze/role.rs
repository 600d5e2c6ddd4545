//! Roles: implicit roles per HTML-AAM, explicit `role` tokens, presentational conflict resolution.

use crate::page::Page;

/// An ARIA role name as Chromium and Playwright spell it (`button`, `generic`, `heading`, …).
pub type Role = &'static str;

/// Whether `token` is a valid, non-abstract ARIA role.
pub fn is_valid_role(token: &str) -> bool {
    let _ = token;
    false
}

/// Role per node.
pub(crate) fn compute(page: &Page) -> Vec<Option<Role>> {
    vec![None; page.len()]
}
