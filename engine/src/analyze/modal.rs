//! The modal layer: reliable modals (aria-modal dialogs, `<dialog>` opened modal) obscure the rest; heuristic overlays only warn.

use super::{Role, Visibility};
use crate::page::{NodeId, Page};

/// What kind of modal layer is present.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ModalKind {
    /// No modal.
    #[default]
    None,
    /// `role=dialog|alertdialog` + `aria-modal="true"`, or `<dialog>` open as modal.
    Reliable,
    /// A heuristic overlay (large fixed/absolute high-z box): a warning only.
    Suspected,
}

/// The modal layer of a page.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModalLayer {
    /// Kind.
    pub kind: ModalKind,
    /// The top-most modal or suspected overlay.
    pub node: Option<NodeId>,
}

/// The modal layer and, per node, whether it is obscured (outside a reliable modal).
pub(crate) fn compute(
    page: &Page,
    roles: &[Option<Role>],
    visibility: &[Visibility],
) -> (ModalLayer, Vec<bool>) {
    let _ = (roles, visibility);
    (ModalLayer::default(), vec![false; page.len()])
}
