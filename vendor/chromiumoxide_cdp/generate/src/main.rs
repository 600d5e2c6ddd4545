//! Writes `src/cdp.rs` of the vendored chromiumoxide_cdp from its trimmed `pdl/`, as upstream generates it.
//!
//! The same generator and settings as the crates.io release of 0.9.1: given
//! upstream's whole PDL it writes that release's `cdp.rs` byte for byte
//! (checked when this was vendored; PAGESNAP.md).

use std::io;
use std::path::Path;

fn main() -> io::Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let pdl = root.join("pdl");
    let out = root.join("src");
    let mut generator = chromiumoxide_pdl::build::Generator::default();
    generator
        .out_dir(&out)
        // Upstream keeps this one deprecated command: chromiumoxide's network manager sends it.
        .allowed_deprecated_type("emulateNetworkConditions");
    generator.compile_pdls(&[pdl.join("js_protocol.pdl"), pdl.join("browser_protocol.pdl")])?;
    chromiumoxide_pdl::build::generator::fmt(&out);
    Ok(())
}
