//! Helpers that several test modules share, each written independently of the code it checks.

pub mod desingular;
pub mod hand_written_gait;
