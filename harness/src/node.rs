//! Where the Node.js folders `scripts/setup` installs live: `scripts/playwright` (playwright-core, the bench helpers and the `ext:playwright-*` adapters) and `scripts/mcp` (the MCP TypeScript SDK and Playwright MCP).
//!
//! Each is found through its environment variable, then under the working
//! directory, then in the repository the binary was built in.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

/// The playwright-core folder (`$PAGESNAP_PLAYWRIGHT`, `scripts/playwright`),
/// checked to hold its helper script and the installed package.
pub fn playwright_dir() -> Result<PathBuf> {
    const MARKER: &str = "bench-aria.mjs";
    let candidates = candidates("PAGESNAP_PLAYWRIGHT", "scripts/playwright");
    for dir in &candidates {
        if dir.join(MARKER).is_file() {
            if !dir
                .join("node_modules/playwright-core/package.json")
                .is_file()
            {
                bail!(
                    "{}: playwright-core is not installed; run `npm ci --prefix {}` \
                     (scripts/setup installs Node.js; no browser is downloaded)",
                    dir.display(),
                    dir.display()
                );
            }
            return Ok(dir.clone());
        }
    }
    bail!(
        "the Playwright helper {MARKER} was not found in {} (set PAGESNAP_PLAYWRIGHT to scripts/playwright)",
        shown(&candidates)
    )
}

/// Playwright MCP's `cli.js`: `$PAGESNAP_PLAYWRIGHT_MCP`, or the copy
/// `scripts/setup` installs into `scripts/mcp/node_modules` (absolute, so a
/// server started in another folder finds it).
pub fn playwright_mcp_cli() -> Result<PathBuf> {
    mcp_script(
        "Playwright MCP",
        "PAGESNAP_PLAYWRIGHT_MCP",
        "node_modules/@playwright/mcp/cli.js",
    )
}

/// Chrome DevTools MCP's server script: `$PAGESNAP_CHROME_DEVTOOLS_MCP`, or
/// the copy in `scripts/mcp/node_modules`.
pub fn chrome_devtools_mcp_cli() -> Result<PathBuf> {
    mcp_script(
        "Chrome DevTools MCP",
        "PAGESNAP_CHROME_DEVTOOLS_MCP",
        "node_modules/chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js",
    )
}

/// agent-browser's binary for this platform (the npm package holds one per
/// platform): `$PAGESNAP_AGENT_BROWSER`, or the copy in `scripts/mcp/node_modules`.
pub fn agent_browser_bin() -> Result<PathBuf> {
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        other => other,
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    };
    let exe = if os == "win32" { ".exe" } else { "" };
    mcp_script(
        "agent-browser",
        "PAGESNAP_AGENT_BROWSER",
        &format!("node_modules/agent-browser/bin/agent-browser-{os}-{arch}{exe}"),
    )
}

/// A tool server's script `relative` to `scripts/mcp` (or `$variable`), absolute.
fn mcp_script(name: &str, variable: &str, relative: &str) -> Result<PathBuf> {
    let mut candidates = Vec::new();
    if let Some(script) = std::env::var_os(variable) {
        candidates.push(PathBuf::from(script));
    }
    candidates.extend(
        candidates_in("scripts/mcp")
            .into_iter()
            .map(|dir| dir.join(relative)),
    );
    if let Some(script) = candidates
        .iter()
        .find(|path| path.is_file())
        .and_then(|path| path.canonicalize().ok())
    {
        return Ok(script);
    }
    bail!(
        "{name} is not installed (looked for {}): run scripts/setup \
         (npm ci --prefix scripts/mcp) or set {variable} to its script",
        shown(&candidates)
    )
}

fn candidates(variable: &str, relative: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(dir) = std::env::var_os(variable) {
        out.push(PathBuf::from(dir));
    }
    out.extend(candidates_in(relative));
    out
}

fn candidates_in(relative: &str) -> Vec<PathBuf> {
    vec![
        PathBuf::from(relative),
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(relative),
    ]
}

fn shown(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
