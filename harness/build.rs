//! Embeds every agent prompt note `prompts/strategy/NAME.md`, keyed by NAME, so no list of strategy names is kept by hand (a test checks the notes against the engine's `STRATEGIES`).

use std::fmt::Write as _;
use std::io;
use std::path::PathBuf;

fn main() -> io::Result<()> {
    let var = |name: &str| {
        std::env::var_os(name)
            .map(PathBuf::from)
            .ok_or_else(|| io::Error::other(format!("{name} is not set")))
    };
    let dir = var("CARGO_MANIFEST_DIR")?.join("prompts").join("strategy");
    println!("cargo::rerun-if-changed={}", dir.display());
    let mut notes = Vec::new();
    for entry in std::fs::read_dir(&dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|ext| ext == "md")
            && let Some(name) = path.file_stem().and_then(|s| s.to_str())
        {
            notes.push((name.to_owned(), path.clone()));
        }
    }
    notes.sort();
    let mut table = String::from("&[\n");
    for (name, path) in &notes {
        let _ = writeln!(
            table,
            "    ({name:?}, include_str!({:?})),",
            path.display().to_string()
        );
    }
    table.push_str("]\n");
    std::fs::write(var("OUT_DIR")?.join("strategy_notes.rs"), table)
}
