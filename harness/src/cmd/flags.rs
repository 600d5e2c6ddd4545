//! Flags several subcommands read the same way: `--strategy NAME[,NAME…]`, and the browser flags of every command that opens a page.

use std::path::Path;
use std::time::Duration;

use anyhow::{Result, bail};
use pagesnap_browser::{DialogPolicy, DownloadPolicy, OpenOptions, WaitFor};
use pagesnap_engine::strategy::{self, STRATEGIES, Strategy};

use crate::external::{self, UserProgram};
use crate::observer::Observer;
use crate::peer;
use crate::results::manifest::Shard;
use crate::variant::{Defaults, Variant};

/// `--dialogs`, of the commands where an agent acts (`mcp`, `live`).
#[derive(clap::Args, Clone, Debug)]
pub struct DialogArgs {
    /// What a JavaScript dialog (alert, confirm, prompt, beforeunload) meets: `ask` shows it to the
    /// agent, in every observation and action result, until the agent answers it (any other action is
    /// refused meanwhile); `accept` or `dismiss` answer it at once without the agent.
    #[arg(long, value_name = "ask|accept|dismiss", default_value_t = DialogPolicy::Ask)]
    pub dialogs: DialogPolicy,
}

/// `--upload-dir`, of the commands where an agent acts (`mcp`, `live`).
#[derive(clap::Args, Clone, Debug)]
pub struct UploadArgs {
    /// The folder files for `upload` come from: a path outside it (after resolving `..` and links) is
    /// refused by name. Default: the working folder.
    #[arg(long, value_name = "DIR")]
    pub upload_dir: Option<std::path::PathBuf>,
}

impl UploadArgs {
    /// The upload folder: `--upload-dir` (which must be a folder) or the working folder.
    pub fn folder(&self) -> Result<std::path::PathBuf> {
        match &self.upload_dir {
            Some(dir) if dir.is_dir() => Ok(dir.clone()),
            Some(dir) => bail!("--upload-dir {}: not a folder", dir.display()),
            None => Ok(std::env::current_dir()?),
        }
    }
}

/// `--download-dir` and `--no-downloads`, of the tool server (`mcp`).
#[derive(clap::Args, Clone, Debug)]
pub struct DownloadArgs {
    /// The folder the files pages download are saved into (made when the first arrives), under the
    /// names the pages give them, never replacing a file there (`report (2).csv`); the answer of the
    /// action that began one says what was saved where. Default: `pagesnap-downloads` in the system's
    /// temporary folder; attached (--cdp-endpoint), the browser's own folder.
    #[arg(long, value_name = "DIR", conflicts_with = "no_downloads")]
    pub download_dir: Option<std::path::PathBuf>,
    /// Refuse every download: nothing is written, and the answer says the page began one.
    #[arg(long)]
    pub no_downloads: bool,
}

impl DownloadArgs {
    /// Where downloads go, for a browser launched or (`attached`) someone else's.
    pub fn policy(&self, attached: bool) -> Result<DownloadPolicy> {
        if self.no_downloads {
            return Ok(DownloadPolicy::Refuse);
        }
        match &self.download_dir {
            Some(dir) if dir.exists() && !dir.is_dir() => {
                bail!("--download-dir {}: not a folder", dir.display())
            }
            Some(dir) => Ok(DownloadPolicy::SaveTo(std::path::absolute(dir)?)),
            None if attached => Ok(DownloadPolicy::Browser),
            None => Ok(DownloadPolicy::SaveTo(
                std::env::temp_dir().join("pagesnap-downloads"),
            )),
        }
    }

    /// Whether either flag was given.
    pub fn given(&self) -> bool {
        self.no_downloads || self.download_dir.is_some()
    }
}

/// The strategy `--strategy NAME` names; the error lists the known ones.
pub fn strategy_named(name: &str) -> Result<&'static dyn Strategy> {
    if external::is_external(name) {
        bail!(
            "{name}: external strategies need a live page; they run in `pagesnap live`, \
             `pagesnap bench-live` and `pagesnap snapshot URL|FILE.html`, not on recordings \
             (offline replay keeps pagesnap's own strategies)"
        );
    }
    let Some(found) = strategy::by_name(name) else {
        let known: Vec<&str> = STRATEGIES.iter().map(|s| s.name()).collect();
        bail!("unknown strategy {name:?} (known: {})", known.join(", "));
    };
    Ok(found)
}

/// The strategies a comma-separated `--strategy` names, in its order (none:
/// all). A name given twice is refused: results are keyed by strategy, so a
/// repeat would produce two rows under one key.
pub fn strategies_named(names: &[String]) -> Result<Vec<&'static dyn Strategy>> {
    if names.is_empty() {
        return Ok(STRATEGIES.to_vec());
    }
    let mut chosen: Vec<&'static dyn Strategy> = Vec::with_capacity(names.len());
    for name in names {
        let found = strategy_named(name)?;
        if chosen.iter().any(|s| s.name() == found.name()) {
            bail!(
                "--strategy {}: strategy {:?} is given twice",
                names.join(","),
                found.name()
            );
        }
        chosen.push(found);
    }
    Ok(chosen)
}

/// The tool servers a command may observe through (`pagesnap live`):
/// `--mcp NAME=COMMAND` and `--mcp-mapping NAME=FILE`, as given.
pub struct PeerFlags<'a> {
    /// `--mcp`.
    pub servers: &'a [String],
    /// `--mcp-mapping`.
    pub mappings: &'a [String],
}

/// What a live command observes with: pagesnap's strategies, external
/// ones (`ext:NAME`, a shipped adapter or a `--external NAME=COMMAND`) and,
/// where `peers` is given, tool servers (`mcp:NAME`), in the order given
/// (none: pagesnap's strategies). A name given twice is refused.
pub fn observers_named(
    names: &[String],
    user: &[String],
    timeout: std::time::Duration,
    peers: Option<PeerFlags<'_>>,
) -> Result<Vec<Observer>> {
    let user: Vec<UserProgram> = user
        .iter()
        .map(|p| UserProgram::parse(p))
        .collect::<Result<_>>()?;
    let servers: Vec<peer::UserServer> = peers
        .as_ref()
        .map(|p| p.servers)
        .unwrap_or_default()
        .iter()
        .map(|s| peer::UserServer::parse(s))
        .collect::<Result<_>>()?;
    if names.is_empty() {
        return Ok(STRATEGIES.iter().map(|&s| Observer::Engine(s)).collect());
    }
    let mut chosen: Vec<Observer> = Vec::with_capacity(names.len());
    for name in names {
        let observer = if external::is_external(name) {
            Observer::External(std::sync::Arc::new(external::named(name, &user, timeout)?))
        } else if peer::is_peer(name) {
            let Some(flags) = &peers else {
                bail!("--strategy {name}: a tool server observes and acts in `pagesnap live` only");
            };
            Observer::Peer(std::sync::Arc::new(peer::named(
                name,
                &servers,
                flags.mappings,
                timeout,
            )?))
        } else {
            Observer::Engine(strategy_named(name)?)
        };
        if chosen.iter().any(|o| o.name() == observer.name()) {
            bail!(
                "--strategy {}: strategy {:?} is given twice",
                names.join(","),
                observer.name()
            );
        }
        chosen.push(observer);
    }
    Ok(chosen)
}

/// The variants a comma-separated `--strategy` names (`aria@2000,flat`), in
/// its order (none: every strategy under `defaults`). A name given twice is
/// refused, as for [`strategies_named`].
pub fn variants_named(names: &[String], defaults: Defaults) -> Result<Vec<Variant>> {
    if names.is_empty() {
        return Ok(STRATEGIES
            .iter()
            .map(|&s| Variant::plain(s, defaults))
            .collect());
    }
    let mut chosen: Vec<Variant> = Vec::with_capacity(names.len());
    for name in names {
        let variant = Variant::parse(name, defaults, strategy_named)?;
        if chosen.iter().any(|v| v.name() == variant.name()) {
            bail!(
                "--strategy {}: strategy {:?} is given twice",
                names.join(","),
                variant.name()
            );
        }
        chosen.push(variant);
    }
    Ok(chosen)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &str) -> Vec<String> {
        list.split(',').map(str::to_owned).collect()
    }

    /// Issue 17: `--strategy flat,flat` produced duplicate keyed rows.
    #[test]
    fn a_strategy_given_twice_is_refused() {
        let err = strategies_named(&names("flat,aria,flat"))
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some("--strategy flat,aria,flat: strategy \"flat\" is given twice")
        );
        let chosen = strategies_named(&names("aria,flat")).map(|v| v.len()).ok();
        assert_eq!(chosen, Some(2));
    }
}

/// How every command that opens a live page opens it (`record`, `snapshot`,
/// `live`, `bench-live`, `mcp`): declared once, flattened into each.
#[derive(clap::Args, Clone, Debug)]
pub struct BrowserArgs {
    /// Viewport size in CSS pixels, WIDTHxHEIGHT.
    #[arg(long, default_value_t = Viewport::default(), value_parser = Viewport::parse)]
    pub viewport: Viewport,
    /// Scroll the window to this y (CSS pixels) before the first observation; Chromium clamps it to the page.
    #[arg(long, value_name = "PX")]
    pub scroll_y: Option<f64>,
    /// After load, wait until an element matches this CSS selector, or for a delay such as `300ms`.
    #[arg(long, value_name = "SELECTOR|DELAY")]
    pub wait_for: Option<String>,
    /// Limit in seconds for loading a page (with --wait-for) and for each browser call.
    #[arg(long, value_name = "SECS", default_value_t = pagesnap_browser::DEFAULT_TIMEOUT.as_secs_f64(), alias = "page-timeout", value_parser = parse_seconds)]
    pub timeout: f64,
    #[command(flatten)]
    pub network: NetworkArgs,
    /// Attach to browsers someone else runs instead of launching Chromium: `http://HOST:PORT` (a
    /// Chromium's --remote-debugging-port) or `ws://HOST:PORT/devtools/browser/ID`, comma-separated or
    /// repeated; parallel workers take them in turn. pagesnap opens and closes only its own tabs there
    /// and never closes those browsers. The pages a command serves itself (live suites) are on
    /// 127.0.0.1 of this machine, so the browsers must run here too.
    #[arg(long, value_name = "URL[,URL…]", value_delimiter = ',')]
    pub cdp_endpoint: Vec<String>,
}

/// Whether pages reach hosts other than loopback (`--network`, `--offline`):
/// declared once, flattened into [`BrowserArgs`] and into `bench-mcp`.
#[derive(clap::Args, Clone, Debug)]
pub struct NetworkArgs {
    /// Let pages reach the network: the default of `mcp` and `snapshot` (an agent's browser is there to
    /// browse the web); `record`, `live`, `bench-live` and `bench-mcp` are offline unless given it.
    #[arg(long = "network", conflicts_with = "offline")]
    pub online: bool,
    /// Only 127.0.0.1/localhost resolve, so pages load offline and reproducibly, and missing third-party
    /// resources fail fast instead of stalling the load: the default of `record`, `live`, `bench-live` and
    /// `bench-mcp`.
    #[arg(long)]
    pub offline: bool,
}

impl NetworkArgs {
    /// Whether pages may reach hosts other than loopback, for a command
    /// whose default is `reach`.
    pub fn network(&self, reach: Reach) -> bool {
        match reach {
            Reach::Offline => self.online,
            Reach::Web => !self.offline,
        }
    }

    /// Whether either flag was given.
    fn given(&self) -> bool {
        self.online || self.offline
    }
}

/// Whether a command's pages reach the network unless told otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// Offline unless `--network`: recordings and live suites stay reproducible.
    Offline,
    /// The web unless `--offline`: an agent's browser, a look at a URL.
    Web,
}

impl BrowserArgs {
    /// Whether pages may reach hosts other than loopback, for a command
    /// whose default is `reach`.
    pub fn network(&self, reach: Reach) -> bool {
        self.network.network(reach)
    }

    /// Refuses flags that cannot go together: `--network` with an attached
    /// browser (which keeps its own network), an empty endpoint.
    pub fn check(&self) -> Result<()> {
        if self.cdp_endpoint.iter().any(|e| e.trim().is_empty()) {
            bail!("--cdp-endpoint: an empty endpoint in the list");
        }
        if !self.cdp_endpoint.is_empty() && self.network.given() {
            bail!(
                "--network and --offline apply to a browser pagesnap launches; an attached browser (--cdp-endpoint) keeps its own network"
            );
        }
        Ok(())
    }

    /// The browser of worker `worker`: the next `--cdp-endpoint` in turn,
    /// attached, or a Chromium launched for it.
    pub fn browser_for(&self, worker: usize) -> Option<&str> {
        if self.cdp_endpoint.is_empty() {
            None
        } else {
            Some(self.cdp_endpoint[worker % self.cdp_endpoint.len()].trim())
        }
    }

    /// The page limit.
    pub fn timeout(&self) -> Duration {
        Duration::from_secs_f64(self.timeout)
    }

    /// How a page is opened with these flags.
    pub fn open_options(&self) -> OpenOptions {
        OpenOptions {
            width: self.viewport.0,
            height: self.viewport.1,
            scroll_y: self.scroll_y,
            wait_for: self.wait_for.as_deref().map(WaitFor::parse),
            timeout: self.timeout(),
            follow_load: false,
        }
    }
}

/// How a run is split over processes (`run`, `live`): declared once,
/// flattened into each.
#[derive(clap::Args, Clone, Debug)]
pub struct ShardArgs {
    /// Run only shard K of N: the units (run: tasks; live: (task, strategy, episode) episodes, in
    /// suite order) whose 0-based index i has i % N == K-1. N shards cover the run once; join their
    /// folders with `pagesnap merge`.
    #[arg(long, value_name = "K/N", conflicts_with = "shard_from_env")]
    pub shard: Option<Shard>,
    /// Take the shard from the scheduler's environment: JOB_COMPLETION_INDEX (a Kubernetes Indexed
    /// Job; 0-based, with --shards N), or SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_COUNT (a Slurm
    /// job array; the index counts from SLURM_ARRAY_TASK_MIN, default 0).
    #[arg(long)]
    pub shard_from_env: bool,
    /// How many shards, with --shard-from-env (JOB_COMPLETION_INDEX has no count of its own).
    #[arg(long, value_name = "N", requires = "shard_from_env")]
    pub shards: Option<usize>,
}

impl ShardArgs {
    /// The shard asked for, if any.
    pub fn resolve(&self) -> Result<Option<Shard>> {
        if !self.shard_from_env {
            return Ok(self.shard);
        }
        shard_from(|name| std::env::var(name).ok(), self.shards).map(Some)
    }
}

/// The shard a scheduler's environment names (see [`ShardArgs::shard_from_env`]).
fn shard_from(var: impl Fn(&str) -> Option<String>, shards: Option<usize>) -> Result<Shard> {
    let number = |name: &str| -> Result<Option<usize>> {
        match var(name) {
            None => Ok(None),
            Some(text) => text.trim().parse().map(Some).map_err(|_| {
                anyhow::anyhow!("--shard-from-env: {name}={text:?} is not a whole number")
            }),
        }
    };
    let (index, n) = if let Some(index) = number("JOB_COMPLETION_INDEX")? {
        let Some(n) = shards else {
            bail!(
                "--shard-from-env: JOB_COMPLETION_INDEX={index} is set; give the number of shards with --shards N"
            );
        };
        (index, n)
    } else if let Some(id) = number("SLURM_ARRAY_TASK_ID")? {
        let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
        let Some(n) = shards.or(number("SLURM_ARRAY_TASK_COUNT")?) else {
            bail!(
                "--shard-from-env: SLURM_ARRAY_TASK_ID={id} is set but SLURM_ARRAY_TASK_COUNT is not; give --shards N"
            );
        };
        let Some(index) = id.checked_sub(min) else {
            bail!("--shard-from-env: SLURM_ARRAY_TASK_ID={id} is below SLURM_ARRAY_TASK_MIN={min}");
        };
        (index, n)
    } else {
        bail!(
            "--shard-from-env: neither JOB_COMPLETION_INDEX (Kubernetes Indexed Job) nor SLURM_ARRAY_TASK_ID (Slurm job array) is set"
        );
    };
    if n == 0 || index >= n {
        bail!("--shard-from-env: shard index {index} (0-based) is not below the shard count {n}");
    }
    Ok(Shard { k: index + 1, n })
}

/// Pages given on a bench's command line: URLs as they are, `.html` files, and
/// folders searched recursively for `.html` files (sorted).
pub fn pages_named(pages: &[String]) -> Result<Vec<String>> {
    let mut found = Vec::new();
    for page in pages {
        let path = Path::new(page);
        if page.contains("://") {
            found.push(page.clone());
        } else if path.is_dir() {
            let html = super::record::collect_html(path)?;
            if html.is_empty() {
                bail!("{page}: no .html files found");
            }
            found.extend(html.into_iter().map(|p| p.display().to_string()));
        } else if path.is_file() {
            found.push(page.clone());
        } else {
            bail!("{page}: no such file or directory (expected .html files, folders or URLs)");
        }
    }
    Ok(found)
}

/// A positive, finite number of seconds.
pub fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(secs) if secs.is_finite() && secs > 0.0 => Ok(secs),
        _ => Err(format!("{text:?} is not a positive number of seconds")),
    }
}

/// A viewport as a flag gives it, `WIDTHxHEIGHT` (CSS pixels); by default
/// the browser crate's [`pagesnap_browser::DEFAULT_VIEWPORT`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Viewport(pub u32, pub u32);

impl Viewport {
    /// Parses `WIDTHxHEIGHT` ([`parse_viewport`]).
    pub fn parse(text: &str) -> Result<Viewport, String> {
        parse_viewport(text).map(|(width, height)| Viewport(width, height))
    }

    /// `(width, height)`.
    pub fn pair(self) -> (u32, u32) {
        (self.0, self.1)
    }
}

impl Default for Viewport {
    fn default() -> Viewport {
        let (width, height) = pagesnap_browser::DEFAULT_VIEWPORT;
        Viewport(width, height)
    }
}

impl std::fmt::Display for Viewport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}", self.0, self.1)
    }
}

/// `WIDTHxHEIGHT`, e.g. `1280x720`.
pub fn parse_viewport(text: &str) -> Result<(u32, u32), String> {
    let (w, h) = text
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("{text:?} is not WIDTHxHEIGHT (e.g. 1280x720)"))?;
    let w: u32 = w
        .trim()
        .parse()
        .map_err(|_| format!("{text:?}: bad width {w:?}"))?;
    let h: u32 = h
        .trim()
        .parse()
        .map_err(|_| format!("{text:?}: bad height {h:?}"))?;
    if !(100..=10_000).contains(&w) || !(100..=10_000).contains(&h) {
        return Err(format!(
            "{text:?}: width and height must be between 100 and 10000"
        ));
    }
    Ok((w, h))
}

#[cfg(test)]
mod shard_tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn shards_come_from_the_schedulers_variables() {
        let k8s = shard_from(env(&[("JOB_COMPLETION_INDEX", "2")]), Some(3)).unwrap();
        assert_eq!((k8s.k, k8s.n), (3, 3));
        let slurm = shard_from(
            env(&[
                ("SLURM_ARRAY_TASK_ID", "1"),
                ("SLURM_ARRAY_TASK_MIN", "1"),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
            ]),
            None,
        )
        .unwrap();
        assert_eq!((slurm.k, slurm.n), (1, 4));
        let err = shard_from(env(&[("JOB_COMPLETION_INDEX", "0")]), None).unwrap_err();
        assert!(err.to_string().contains("--shards N"), "{err}");
        let err = shard_from(env(&[("JOB_COMPLETION_INDEX", "3")]), Some(3)).unwrap_err();
        assert!(err.to_string().contains("not below"), "{err}");
        let err = shard_from(env(&[]), Some(2)).unwrap_err();
        assert!(err.to_string().contains("JOB_COMPLETION_INDEX"), "{err}");
        let err = shard_from(env(&[("SLURM_ARRAY_TASK_ID", "x")]), None).unwrap_err();
        assert!(err.to_string().contains("\"x\""), "{err}");
    }
}
