//! The FZM archive container.
pub mod fzm;
