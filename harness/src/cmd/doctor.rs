//! `pagesnap doctor`: what this machine gives pagesnap — the browser search and what it found (with its version), Node.js, the MCP SDK venv the tests use, a writable temp folder, and each command's network default.

use std::path::Path;
use std::process::{Command, ExitCode};

use anyhow::Result;
use pagesnap_browser::BrowserCommand;
use pagesnap_browser::discover::{self, BROWSER_VAR, Os, Probe, System};

/// Arguments of `pagesnap doctor`.
#[derive(clap::Args)]
pub struct Args {
    /// List every place the browser search looks at, not only those that hold a file.
    #[arg(long)]
    all: bool,
    /// Print only the command line a launch runs, as JSON (`{"executable": …, "flags": […]}`, the flags of an
    /// offline launch), for scripts and tests that start the same browser themselves.
    #[arg(long, conflicts_with = "all")]
    launch: bool,
}

/// Prints the checks; exit 1 when no browser is found.
pub fn run(args: Args) -> Result<ExitCode> {
    if args.launch {
        println!("{}", BrowserCommand::new(false)?.to_json());
        return Ok(ExitCode::SUCCESS);
    }
    let os = Os::current();
    let probe = System;
    println!("browser search ({os:?}; the first found is used):");
    let candidates = discover::candidates(os, &probe);
    if probe.var(BROWSER_VAR).is_none_or(|v| v.is_empty()) {
        println!("  ${BROWSER_VAR}: not set");
    }
    let mut shown = 0;
    // Where each found place leads (symlinks followed): /bin and /usr/bin are one folder on merged-/usr systems.
    let mut files: Vec<(std::path::PathBuf, &Path)> = Vec::new();
    for candidate in &candidates {
        let found = probe.is_file(&candidate.path);
        if found || args.all {
            let file = found
                .then(|| std::fs::canonicalize(&candidate.path).ok())
                .flatten();
            let same = file
                .as_ref()
                .and_then(|file| files.iter().find(|(seen, _)| seen == file))
                .map(|(_, first)| format!(" (the same file as {})", first.display()));
            println!(
                "  {} {}: {}{}",
                if found { "found" } else { "-    " },
                candidate.source.name(),
                candidate.path.display(),
                same.unwrap_or_default()
            );
            if let Some(file) = file {
                files.push((file, &candidate.path));
            }
            shown += 1;
        }
    }
    if shown < candidates.len() {
        println!(
            "  ({} more places hold no browser; --all lists them)",
            candidates.len() - shown
        );
    }
    let browser = match discover::find(os, &probe) {
        Ok(path) => {
            let version =
                version_of(&path, "--version").unwrap_or_else(|| "version unknown".into());
            println!("browser: {} ({version})", path.display());
            true
        }
        Err(err) => {
            println!("browser: none\n{err}");
            false
        }
    };
    match version_of(Path::new("node"), "--version") {
        Some(version) => println!(
            "node: {version} (for the Playwright adapters, ext: strategies and peers' tool servers)"
        ),
        None => println!(
            "node: not found (needed only for ext: strategies, mcp: peers and --vs-playwright)"
        ),
    }
    let venv = std::env::var_os("HOME")
        .map(|home| Path::new(&home).join(".cache/pagesnap/mcp-venv/bin/python"));
    match venv.filter(|python| python.is_file()) {
        Some(python) => println!(
            "MCP SDK venv: {} (the tests' Python MCP client)",
            python.display()
        ),
        None => {
            println!("MCP SDK venv: not installed (scripts/setup makes it; only the tests use it)")
        }
    }
    let temp = std::env::temp_dir();
    let writable = tempfile::tempdir_in(&temp).is_ok();
    println!(
        "temp folder: {} ({})",
        temp.display(),
        if writable {
            "writable: browser profiles go there"
        } else {
            "NOT writable: no browser can start"
        }
    );
    println!(
        "network: mcp and snapshot reach the web unless --offline; record, live, bench-live and \
         bench-mcp are offline (127.0.0.1 and localhost only) unless --network"
    );
    Ok(if browser && writable {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The first line `program flag` prints, if it runs.
fn version_of(program: &Path, flag: &str) -> Option<String> {
    let output = Command::new(program).arg(flag).output().ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&output.stdout);
    text.lines().next().map(|l| l.trim().to_owned())
}
