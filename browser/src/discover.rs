//! Finding the user's Chrome or Chromium: `$PAGESNAP_CHROMIUM`, then browsers on `PATH`, the usual install folders of Linux, macOS and Windows, then Playwright's and Puppeteer's browser caches (newest first).
//!
//! The search reads the environment and the file system through [`Probe`],
//! so that it is tested against a fake file system for all three systems;
//! [`System`] is the real one.

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

/// The environment variable naming the browser to use, looked at first.
pub const BROWSER_VAR: &str = "PAGESNAP_CHROMIUM";

/// An operating system the search knows the folders of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Os {
    /// Linux (and the BSDs, which keep the same folders).
    Linux,
    /// macOS.
    MacOs,
    /// Windows.
    Windows,
}

impl Os {
    /// The system this program runs on.
    pub fn current() -> Os {
        if cfg!(target_os = "macos") {
            Os::MacOs
        } else if cfg!(windows) {
            Os::Windows
        } else {
            Os::Linux
        }
    }
}

/// Where a candidate comes from, in the order they are tried.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Source {
    /// `$PAGESNAP_CHROMIUM`.
    Variable,
    /// A browser command on `PATH`.
    PathCommand,
    /// A usual install folder of the system.
    Installed,
    /// Playwright's browser cache (`npx playwright install chromium`).
    Playwright,
    /// Puppeteer's browser cache (`npx @puppeteer/browsers install chrome`).
    Puppeteer,
}

impl Source {
    /// How `doctor` and the not-found error name it.
    pub fn name(self) -> &'static str {
        match self {
            Source::Variable => "$PAGESNAP_CHROMIUM",
            Source::PathCommand => "PATH",
            Source::Installed => "installed",
            Source::Playwright => "Playwright cache",
            Source::Puppeteer => "Puppeteer cache",
        }
    }
}

/// One place the search looks at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// Where it comes from.
    pub source: Source,
    /// The browser binary it would be.
    pub path: PathBuf,
}

/// What the search reads: environment variables and files.
pub trait Probe {
    /// An environment variable.
    fn var(&self, name: &str) -> Option<OsString>;
    /// Whether `path` is a file (a browser binary).
    fn is_file(&self, path: &Path) -> bool;
    /// The folders directly inside `dir` (none when it cannot be read).
    fn folders(&self, dir: &Path) -> Vec<PathBuf>;
}

/// The real environment and file system.
pub struct System;

impl Probe for System {
    fn var(&self, name: &str) -> Option<OsString> {
        std::env::var_os(name)
    }

    fn is_file(&self, path: &Path) -> bool {
        path.is_file()
    }

    fn folders(&self, dir: &Path) -> Vec<PathBuf> {
        std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .filter_map(|entry| entry.ok().map(|e| e.path()))
                    .filter(|p| p.is_dir())
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// No browser was found: every place looked at, and what to do.
#[derive(Debug)]
pub struct NotFound {
    /// `$PAGESNAP_CHROMIUM` named a file that is not there.
    pub named: Option<PathBuf>,
    /// Every place looked at, in order.
    pub looked: Vec<Candidate>,
}

impl fmt::Display for NotFound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(named) = &self.named {
            return write!(
                f,
                "{BROWSER_VAR} names {}, which is not a file: point it at a Chrome or Chromium binary, \
                 or unset it to let pagesnap search",
                named.display()
            );
        }
        writeln!(
            f,
            "no Chrome or Chromium found; looked at {} places (pagesnap doctor lists them):",
            self.looked.len()
        )?;
        for candidate in self.looked.iter().take(12) {
            writeln!(
                f,
                "  {}: {}",
                candidate.source.name(),
                candidate.path.display()
            )?;
        }
        if self.looked.len() > 12 {
            writeln!(f, "  … and {} more", self.looked.len() - 12)?;
        }
        write!(
            f,
            "install one (Debian/Ubuntu: `sudo apt-get install -y chromium`; or Google Chrome; or \
             `npx playwright install chromium`), or set {BROWSER_VAR} to a Chrome or Chromium binary"
        )
    }
}

impl std::error::Error for NotFound {}

/// The browser to launch: `$PAGESNAP_CHROMIUM` when set (it must exist),
/// else the first candidate that is a file.
pub fn find(os: Os, probe: &dyn Probe) -> Result<PathBuf, NotFound> {
    if let Some(named) = probe.var(BROWSER_VAR).filter(|v| !v.is_empty()) {
        let named = PathBuf::from(named);
        return if probe.is_file(&named) {
            Ok(named)
        } else {
            Err(NotFound {
                named: Some(named),
                looked: Vec::new(),
            })
        };
    }
    let looked = candidates(os, probe);
    match looked.iter().find(|c| probe.is_file(&c.path)) {
        Some(found) => Ok(found.path.clone()),
        None => Err(NotFound {
            named: None,
            looked,
        }),
    }
}

/// Every place the search looks at, in order (`$PAGESNAP_CHROMIUM` first when set).
pub fn candidates(os: Os, probe: &dyn Probe) -> Vec<Candidate> {
    let mut out = Vec::new();
    let mut add = |source, path: PathBuf| {
        if !out.iter().any(|c: &Candidate| c.path == path) {
            out.push(Candidate { source, path });
        }
    };
    if let Some(named) = probe.var(BROWSER_VAR).filter(|v| !v.is_empty()) {
        add(Source::Variable, PathBuf::from(named));
    }
    let commands: &[&str] = match os {
        Os::Windows => &["chrome.exe", "msedge.exe"],
        Os::Linux | Os::MacOs => &[
            "chromium",
            "chromium-browser",
            "google-chrome",
            "google-chrome-stable",
            "chrome",
            "microsoft-edge",
            "microsoft-edge-stable",
        ],
    };
    let path_dirs: Vec<PathBuf> = probe
        .var("PATH")
        .map(|path| std::env::split_paths(&path).collect())
        .unwrap_or_default();
    for command in commands {
        for dir in &path_dirs {
            add(Source::PathCommand, dir.join(command));
        }
    }
    for path in installed(os, probe) {
        add(Source::Installed, path);
    }
    let home = probe.var(if os == Os::Windows {
        "USERPROFILE"
    } else {
        "HOME"
    });
    for path in playwright(os, probe, home.as_deref()) {
        add(Source::Playwright, path);
    }
    for path in puppeteer(os, probe, home.as_deref()) {
        add(Source::Puppeteer, path);
    }
    out
}

/// The usual install folders.
fn installed(os: Os, probe: &dyn Probe) -> Vec<PathBuf> {
    match os {
        Os::Linux => [
            "/usr/bin/chromium",
            "/usr/bin/chromium-browser",
            "/snap/bin/chromium",
            "/usr/bin/google-chrome",
            "/usr/bin/google-chrome-stable",
            "/opt/google/chrome/chrome",
            "/usr/bin/microsoft-edge",
            "/opt/microsoft/msedge/msedge",
        ]
        .iter()
        .map(PathBuf::from)
        .collect(),
        Os::MacOs => {
            let apps = [
                "Google Chrome.app/Contents/MacOS/Google Chrome",
                "Chromium.app/Contents/MacOS/Chromium",
                "Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
                "Google Chrome Canary.app/Contents/MacOS/Google Chrome Canary",
                "Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
            ];
            let mut roots = vec![PathBuf::from("/Applications")];
            if let Some(home) = probe.var("HOME") {
                roots.push(PathBuf::from(home).join("Applications"));
            }
            roots
                .iter()
                .flat_map(|root| apps.iter().map(move |app| root.join(app)))
                .collect()
        }
        Os::Windows => {
            let roots: Vec<PathBuf> = ["PROGRAMFILES", "PROGRAMFILES(X86)", "LOCALAPPDATA"]
                .iter()
                .filter_map(|var| probe.var(var).map(PathBuf::from))
                .collect();
            let apps: [&[&str]; 3] = [
                &["Google", "Chrome", "Application", "chrome.exe"],
                &["Chromium", "Application", "chrome.exe"],
                &["Microsoft", "Edge", "Application", "msedge.exe"],
            ];
            // Chrome under any root before Chromium, before Edge.
            apps.iter()
                .flat_map(|parts| roots.iter().map(move |root| joined(root, parts)))
                .collect()
        }
    }
}

/// Chrome for Testing's binary inside a macOS download (arm64, x64), as
/// Playwright's and Puppeteer's caches hold it.
const CFT_MAC_ARM64: &[&str] = &[
    "chrome-mac-arm64",
    "Google Chrome for Testing.app",
    "Contents",
    "MacOS",
    "Google Chrome for Testing",
];
const CFT_MAC_X64: &[&str] = &[
    "chrome-mac-x64",
    "Google Chrome for Testing.app",
    "Contents",
    "MacOS",
    "Google Chrome for Testing",
];

/// Playwright's cache: `chromium-NNNN` folders, the highest revision first
/// (then its headless shells).
fn playwright(os: Os, probe: &dyn Probe, home: Option<&std::ffi::OsStr>) -> Vec<PathBuf> {
    let cache = match probe.var("PLAYWRIGHT_BROWSERS_PATH") {
        Some(dir) if !dir.is_empty() && dir != "0" => PathBuf::from(dir),
        _ => match os {
            Os::Linux => PathBuf::from(home.unwrap_or_default()).join(".cache/ms-playwright"),
            Os::MacOs => {
                PathBuf::from(home.unwrap_or_default()).join("Library/Caches/ms-playwright")
            }
            Os::Windows => match probe.var("LOCALAPPDATA") {
                Some(local) => PathBuf::from(local).join("ms-playwright"),
                None => return Vec::new(),
            },
        },
    };
    let binaries: &[&[&str]] = match os {
        Os::Linux => &[
            &["chrome-linux64", "chrome"],
            &["chrome-linux", "chrome"],
            &["chrome-linux", "headless_shell"],
            &["chrome-headless-shell-linux64", "chrome-headless-shell"],
        ],
        Os::MacOs => &[
            CFT_MAC_ARM64,
            CFT_MAC_X64,
            &[
                "chrome-mac",
                "Chromium.app",
                "Contents",
                "MacOS",
                "Chromium",
            ],
        ],
        Os::Windows => &[
            &["chrome-win64", "chrome.exe"],
            &["chrome-win", "chrome.exe"],
        ],
    };
    let mut out = Vec::new();
    for prefix in ["chromium-", "chromium_headless_shell-"] {
        for folder in newest_first(probe.folders(&cache), prefix) {
            out.extend(binaries.iter().map(|parts| joined(&folder, parts)));
        }
    }
    if out.is_empty() {
        // Nothing installed there: the place is still named.
        out.push(joined(&cache.join("chromium-*"), binaries[0]));
    }
    out
}

/// Puppeteer's cache: `chrome/<platform>-<version>` folders, the newest version first.
fn puppeteer(os: Os, probe: &dyn Probe, home: Option<&std::ffi::OsStr>) -> Vec<PathBuf> {
    let cache = match probe.var("PUPPETEER_CACHE_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => match home {
            Some(home) => PathBuf::from(home).join(".cache").join("puppeteer"),
            None => return Vec::new(),
        },
    };
    let (platforms, binaries): (&[&str], &[&[&str]]) = match os {
        Os::Linux => (&["linux-"], &[&["chrome-linux64", "chrome"]]),
        Os::MacOs => (&["mac_arm-", "mac-"], &[CFT_MAC_ARM64, CFT_MAC_X64]),
        Os::Windows => (
            &["win64-", "win32-"],
            &[
                &["chrome-win64", "chrome.exe"],
                &["chrome-win32", "chrome.exe"],
            ],
        ),
    };
    let folders = probe.folders(&cache.join("chrome"));
    let mut out = Vec::new();
    for platform in platforms {
        for folder in newest_first(folders.clone(), platform) {
            out.extend(binaries.iter().map(|parts| joined(&folder, parts)));
        }
    }
    if out.is_empty() {
        out.push(joined(
            &cache.join("chrome").join(format!("{}*", platforms[0])),
            binaries[0],
        ));
    }
    out
}

/// The folders named `prefix` + a version, the highest version first.
fn newest_first(folders: Vec<PathBuf>, prefix: &str) -> Vec<PathBuf> {
    let mut versioned: Vec<(Vec<u64>, PathBuf)> = folders
        .into_iter()
        .filter_map(|folder| {
            let name = folder.file_name()?.to_str()?;
            let version = name.strip_prefix(prefix)?;
            let parts: Option<Vec<u64>> = version.split('.').map(|p| p.parse().ok()).collect();
            Some((parts?, folder))
        })
        .collect();
    versioned.sort_by(|a, b| b.0.cmp(&a.0));
    versioned.into_iter().map(|(_, folder)| folder).collect()
}

fn joined(root: &Path, parts: &[&str]) -> PathBuf {
    parts
        .iter()
        .fold(root.to_path_buf(), |path, part| path.join(part))
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeSet, HashMap};

    use super::*;

    /// A fake system: variables, and the files that exist (their folders follow).
    #[derive(Default)]
    struct Fake {
        vars: HashMap<&'static str, String>,
        files: BTreeSet<PathBuf>,
    }

    impl Fake {
        fn var(mut self, name: &'static str, value: &str) -> Fake {
            self.vars.insert(name, value.to_owned());
            self
        }

        fn file(mut self, path: impl Into<PathBuf>) -> Fake {
            self.files.insert(path.into());
            self
        }
    }

    impl Probe for Fake {
        fn var(&self, name: &str) -> Option<OsString> {
            self.vars.get(name).map(OsString::from)
        }

        fn is_file(&self, path: &Path) -> bool {
            self.files.contains(path)
        }

        fn folders(&self, dir: &Path) -> Vec<PathBuf> {
            let mut out: Vec<PathBuf> = self
                .files
                .iter()
                .filter_map(|file| {
                    let rest = file.strip_prefix(dir).ok()?;
                    let first = rest.components().next()?;
                    (rest.components().count() > 1).then(|| dir.join(first))
                })
                .collect();
            out.dedup();
            out
        }
    }

    #[test]
    fn the_variable_wins_and_must_exist() {
        let fake = Fake::default()
            .var(BROWSER_VAR, "/opt/mine/chrome")
            .var("PATH", "/usr/bin")
            .file("/opt/mine/chrome")
            .file("/usr/bin/chromium");
        assert_eq!(
            find(Os::Linux, &fake).unwrap(),
            PathBuf::from("/opt/mine/chrome")
        );
        let missing = Fake::default()
            .var(BROWSER_VAR, "/opt/gone/chrome")
            .file("/usr/bin/chromium");
        let err = find(Os::Linux, &missing).unwrap_err();
        assert_eq!(err.named, Some(PathBuf::from("/opt/gone/chrome")));
        assert!(err.to_string().contains("/opt/gone/chrome"), "{err}");
    }

    #[test]
    fn linux_path_before_folders_before_caches_newest_first() {
        let base = Fake::default()
            .var("PATH", "/home/ada/bin:/usr/local/bin")
            .var("HOME", "/home/ada")
            .file("/home/ada/.cache/ms-playwright/chromium-1140/chrome-linux/chrome")
            .file("/home/ada/.cache/ms-playwright/chromium-1187/chrome-linux64/chrome")
            .file("/home/ada/.cache/ms-playwright/chromium-999/chrome-linux/chrome")
            .file("/home/ada/.cache/puppeteer/chrome/linux-131.0.6778.85/chrome-linux64/chrome")
            .file("/home/ada/.cache/puppeteer/chrome/linux-99.0.1/chrome-linux64/chrome");
        assert_eq!(
            find(Os::Linux, &base).unwrap(),
            PathBuf::from("/home/ada/.cache/ms-playwright/chromium-1187/chrome-linux64/chrome"),
            "Playwright's newest revision, by number (1187 > 999)"
        );
        let installed = Fake {
            files: base.files.clone(),
            vars: base.vars.clone(),
        }
        .file("/opt/google/chrome/chrome");
        assert_eq!(
            find(Os::Linux, &installed).unwrap(),
            PathBuf::from("/opt/google/chrome/chrome")
        );
        let on_path = installed.file("/usr/local/bin/google-chrome");
        assert_eq!(
            find(Os::Linux, &on_path).unwrap(),
            PathBuf::from("/usr/local/bin/google-chrome")
        );
        let puppeteer_only = Fake::default()
            .var("HOME", "/home/ada")
            .file("/home/ada/.cache/puppeteer/chrome/linux-99.0.1/chrome-linux64/chrome")
            .file("/home/ada/.cache/puppeteer/chrome/linux-131.0.6778.85/chrome-linux64/chrome");
        assert_eq!(
            find(Os::Linux, &puppeteer_only).unwrap(),
            PathBuf::from(
                "/home/ada/.cache/puppeteer/chrome/linux-131.0.6778.85/chrome-linux64/chrome"
            )
        );
        let order: Vec<Source> = candidates(Os::Linux, &base)
            .iter()
            .map(|c| c.source)
            .collect();
        let mut sorted = order.clone();
        sorted.sort();
        assert_eq!(order, sorted, "sources in the documented order");
    }

    #[test]
    fn macos_applications_then_playwright() {
        let chrome = "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome";
        let fake = Fake::default()
            .var("HOME", "/Users/ada")
            .file("/Users/ada/Library/Caches/ms-playwright/chromium-1187/chrome-mac/Chromium.app/Contents/MacOS/Chromium");
        assert_eq!(
            find(Os::MacOs, &fake).unwrap(),
            PathBuf::from(
                "/Users/ada/Library/Caches/ms-playwright/chromium-1187/chrome-mac/Chromium.app/Contents/MacOS/Chromium"
            )
        );
        let user_app = fake.file("/Users/ada/Applications/Chromium.app/Contents/MacOS/Chromium");
        assert_eq!(
            find(Os::MacOs, &user_app).unwrap(),
            PathBuf::from("/Users/ada/Applications/Chromium.app/Contents/MacOS/Chromium")
        );
        assert_eq!(
            find(Os::MacOs, &user_app.file(chrome)).unwrap(),
            PathBuf::from(chrome)
        );
    }

    #[test]
    fn windows_program_files_and_local_app_data() {
        let local = PathBuf::from("C:/Users/ada/AppData/Local");
        let chrome = joined(&local, &["Google", "Chrome", "Application", "chrome.exe"]);
        let edge = joined(
            Path::new("C:/Program Files (x86)"),
            &["Microsoft", "Edge", "Application", "msedge.exe"],
        );
        let fake = Fake::default()
            .var("PROGRAMFILES", "C:/Program Files")
            .var("PROGRAMFILES(X86)", "C:/Program Files (x86)")
            .var("LOCALAPPDATA", "C:/Users/ada/AppData/Local")
            .file(edge.clone());
        assert_eq!(find(Os::Windows, &fake).unwrap(), edge);
        // Chrome (in the user's AppData) before Edge (in Program Files).
        assert_eq!(
            find(Os::Windows, &fake.file(chrome.clone())).unwrap(),
            chrome
        );
        let only_user = Fake::default()
            .var("LOCALAPPDATA", "C:/Users/ada/AppData/Local")
            .file(chrome.clone());
        assert_eq!(find(Os::Windows, &only_user).unwrap(), chrome);
    }

    #[test]
    fn nothing_found_lists_where_it_looked() {
        let fake = Fake::default()
            .var("PATH", "/usr/bin")
            .var("HOME", "/home/ada");
        let err = find(Os::Linux, &fake).unwrap_err();
        let text = err.to_string();
        assert!(err.named.is_none());
        assert!(text.contains("PATH: /usr/bin/chromium"), "{text}");
        assert!(text.contains("apt-get install -y chromium"), "{text}");
        assert!(text.contains(BROWSER_VAR), "{text}");
    }
}
