//! What strategies share, owned by none of them: the document-order walk, text normalisation, HTML markup, and the meta every observation carries.
//!
//! A strategy imports from here, never from another strategy.

pub(crate) mod markup;
pub(crate) mod meta;
pub(crate) mod text;
pub(crate) mod walk;
