//! pagesnap's benches: criterion for wall-clock (`benches/engine.rs`) and `pagesnap-instructions`, the instruction-count gate CI runs ([`instructions`]).

pub mod instructions;
