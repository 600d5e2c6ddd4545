//! The live loop: every (task, strategy, episode) of a live suite across `--jobs` workers, each with its own warm Chromium; episodes appended as they finish and returned for the reports.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Result, bail};

use super::episode::{self, Setting, Spec};
use super::server::Server;
use super::trace::Trace;
use crate::agent::Agent;
use crate::external::{External, Program};
use crate::judge::llm::LlmJudge;
use crate::observer::{Attached, Observer};
use crate::peer::{Connection, Peer};
use crate::pool::{self, Units};
use crate::progress;
use crate::results::manifest::{BrowserInfo, LiveSettings, Manifest, Shard, TaskInfo};
use crate::results::{BrowserDied, EndedBy, Episode, RunFolder};
use crate::revive;
use crate::suite::live::{LiveSuite, LiveTask, Source};
use pagesnap_browser::{Chromium, DialogPolicy, OpenOptions};

/// What to run.
pub struct Config<'a> {
    /// The loaded suite.
    pub suite: &'a LiveSuite,
    /// The suite file as given (for `run.json`).
    pub suite_path: PathBuf,
    /// Strategies, in report order.
    pub strategies: Vec<Observer>,
    /// The agent.
    pub agent: &'a dyn Agent,
    /// The LLM judge, when `--judge llm:…` asked for one.
    pub judge: Option<&'a LlmJudge>,
    /// The judge as named on the command line.
    pub judge_spec: String,
    /// Episodes per task and strategy (none: one per seed the task lists).
    pub episodes: Option<usize>,
    /// First seed (none: the suite's seeds).
    pub seed: Option<u64>,
    /// Step limit for every task (none: the suite's).
    pub max_steps: Option<usize>,
    /// Parallel episodes (each worker has its own browser).
    pub jobs: usize,
    /// Output folder.
    pub out: PathBuf,
    /// Continue an interrupted run in `out`.
    pub resume: bool,
    /// How progress is shown on stderr.
    pub progress: progress::Mode,
    /// How each episode's page is opened: viewport, scroll, wait, load and per-call limit.
    pub open: OpenOptions,
    /// Whether pages may reach the network (`--network`).
    pub network: bool,
    /// What pagesnap's own and external strategies' tabs do with a
    /// JavaScript dialog (`--dialogs`); a tool server's tab leaves each to
    /// the server.
    pub dialogs: DialogPolicy,
    /// The folder an `upload` takes files from (`--upload-dir`).
    pub uploads: std::path::PathBuf,
    /// Run only this shard of the (task, strategy, episode) units.
    pub shard: Option<Shard>,
    /// Browsers to attach to instead of launching one per worker
    /// (`--cdp-endpoint`), taken in turn by the workers.
    pub endpoints: Vec<String>,
}

/// What a run produced.
pub struct Outcome {
    /// What the run covers (`run.json`), with the browsers the workers drove.
    pub manifest: Manifest,
    /// Every episode of the run, those a resumed run found included, unsorted.
    pub episodes: Vec<Episode>,
    /// Episodes skipped because `--resume` found them.
    pub resumed: usize,
}

/// The episodes a task runs: (episode number, seed).
pub fn episodes_of(
    task: &LiveTask,
    episodes: Option<usize>,
    seed: Option<u64>,
) -> Vec<(usize, u64)> {
    let count = episodes.unwrap_or(task.seeds.len());
    (0..count)
        .map(|i| {
            let seed = match seed {
                Some(first) => first + i as u64,
                None => task.seeds.get(i).copied().unwrap_or_else(|| {
                    // More episodes than listed seeds: continue after the last one.
                    let last = task.seeds.last().copied().unwrap_or(0);
                    last + (i + 1 - task.seeds.len()) as u64
                }),
            };
            (i + 1, seed)
        })
        .collect()
}

/// The manifest of this run.
pub fn manifest(config: &Config<'_>) -> Manifest {
    let suite = config.suite;
    Manifest {
        pagesnap: env!("CARGO_PKG_VERSION").to_owned(),
        suite: suite.name.clone(),
        suite_path: config.suite_path.display().to_string(),
        description: suite.description.clone(),
        agent: config.agent.name(),
        strategies: config
            .strategies
            .iter()
            .map(|s| s.name().to_owned())
            .collect(),
        variants: Vec::new(),
        shard: config.shard,
        tasks: suite
            .tasks
            .iter()
            .map(|t| TaskInfo {
                id: t.id.clone(),
                instruction: t
                    .instruction
                    .clone()
                    .unwrap_or_else(|| "(the page's own instruction)".to_owned()),
                steps: episodes_of(t, config.episodes, config.seed).len(),
                tags: t.tags.clone(),
            })
            .collect(),
        live: Some(LiveSettings {
            episodes: config.episodes,
            seed: config.seed,
            max_steps: config.max_steps,
            judge: config.judge_spec.clone(),
            episode_max_time_ms: match &suite.source {
                Source::MiniWob {
                    episode_max_time_ms,
                    ..
                } => Some(*episode_max_time_ms),
                Source::Folder { .. } => None,
            },
        }),
        browsers: Vec::new(),
    }
}

/// One episode to run.
struct Unit {
    task: usize,
    strategy: usize,
    episode: usize,
    seed: u64,
}

/// Runs the suite into `config.out` (episodes appended to `results.jsonl`
/// as they finish) and returns the episodes; the caller writes the reports.
pub fn run(config: &Config<'_>) -> Result<Outcome> {
    if config.jobs == 0 {
        bail!("--jobs must be at least 1");
    }
    let mut manifest = manifest(config);
    let (folder, existing) = RunFolder::open::<Episode>(&config.out, &manifest, config.resume)?;
    let mut units = Vec::new();
    let mut total = 0;
    // Every unit of the whole run has an index in this order; a shard takes
    // those whose index i has i % N == K-1, so N shards cover the run once.
    let mut index = 0;
    for (t, task) in config.suite.tasks.iter().enumerate() {
        for (s, strategy) in config.strategies.iter().enumerate() {
            for (episode, seed) in episodes_of(task, config.episodes, config.seed) {
                index += 1;
                if config.shard.is_some_and(|shard| !shard.includes(index - 1)) {
                    continue;
                }
                total += 1;
                let key = (task.id.clone(), strategy.name().to_owned(), episode);
                if !existing.contains_key(&key) {
                    units.push(Unit {
                        task: t,
                        strategy: s,
                        episode,
                        seed,
                    });
                }
            }
        }
    }
    let progress =
        progress::Progress::counting("episodes", config.progress, total, total - units.len());
    let server = Server::start(config.suite.source.root())?;
    let base_url = server.url("");
    let setting = Setting {
        source: &config.suite.source,
        base_url: &base_url,
        agent: config.agent,
        judge: config.judge,
        out: &config.out,
        open: config.open.clone(),
    };
    let runtime = pagesnap_browser::runtime()?;
    let worked = pool::run(config.jobs, &units, |number, units| {
        let endpoint = (!config.endpoints.is_empty())
            .then(|| config.endpoints[number % config.endpoints.len()].as_str());
        let worker = Worker {
            config,
            setting: &setting,
            folder: &folder,
            progress: &progress,
            endpoint,
        };
        runtime.handle().block_on(worker.run(units))
    });
    progress.finish();
    let mut produced = Vec::new();
    // The browsers the workers drove, now that they are known.
    for (episodes, browsers) in worked? {
        produced.extend(episodes);
        manifest.browsers.extend(browsers);
    }
    manifest.browsers.sort();
    manifest.browsers.dedup();
    manifest.write(folder.path())?;
    let resumed = existing.len();
    let mut episodes: Vec<Episode> = existing.into_values().collect();
    episodes.append(&mut produced);
    Ok(Outcome {
        manifest,
        episodes,
        resumed,
    })
}

/// One worker of a run: its browsers (launched, or attached to its
/// endpoint) and the external programs it started.
struct Worker<'r, 'c> {
    config: &'r Config<'c>,
    setting: &'r Setting<'r>,
    folder: &'r RunFolder,
    progress: &'r progress::Progress,
    endpoint: Option<&'r str>,
}

/// What a worker started: the browser of pagesnap's own strategies, and a
/// browser of its own for each external strategy and tool server (their
/// programs attach to it; pagesnap's strategies never share a browser with
/// another client), each started when first needed and started again in
/// its place when it dies.
#[derive(Default)]
struct Browsers {
    /// Started once, and again in a dead one's place (an attached one is
    /// attached to again), so an endpoint that refuses costs its episodes
    /// an error row each, not the run.
    own: Option<Chromium>,
    /// Each external strategy's browser and program.
    externals: BTreeMap<String, (Chromium, Program)>,
    /// Each tool server's browser and connection; a server that fails is
    /// started again for the next episode.
    peers: BTreeMap<String, (Chromium, Option<Connection>)>,
    /// The browsers pagesnap's own strategies drove, for `run.json`.
    info: Vec<BrowserInfo>,
}

impl Browsers {
    /// Stops the programs and servers and closes every browser (removing the
    /// profiles of those launched); returns the browsers driven.
    async fn close(self) -> Vec<BrowserInfo> {
        for (_, (browser, mut program)) in self.externals {
            program.stop().await;
            let _ = browser.close().await;
        }
        for (_, (browser, connection)) in self.peers {
            if let Some(connection) = connection {
                connection.stop().await;
            }
            let _ = browser.close().await;
        }
        if let Some(browser) = self.own {
            let _ = browser.close().await;
        }
        self.info
    }
}

/// One run of an episode, and what became of its browser.
enum Attempt {
    /// The episode ran (its browser may have died after its end).
    Ran(Episode),
    /// The episode ended in error because its browser died under it.
    Died(Episode),
    /// The browser had died and none could be started in its place: an
    /// error row naming why.
    NoBrowser(Episode),
}

impl Attempt {
    /// `episode`, run in `browser`: died under it when it ended in error
    /// and the browser is gone.
    fn of(episode: Episode, browser: &Chromium) -> Attempt {
        if episode.ended_by == EndedBy::Error && browser.is_gone() {
            Attempt::Died(episode)
        } else {
            Attempt::Ran(episode)
        }
    }
}

impl Worker<'_, '_> {
    /// Runs units until none is left, then closes what it started; returns
    /// its episodes and the browsers it drove.
    async fn run(&self, units: &Units<'_, Unit>) -> Result<(Vec<Episode>, Vec<BrowserInfo>)> {
        let mut episodes = Vec::new();
        let mut browsers = Browsers::default();
        let result = async {
            while let Some(unit) = units.next() {
                let config = self.config;
                let spec = Spec {
                    task: &config.suite.tasks[unit.task],
                    strategy: &config.strategies[unit.strategy],
                    episode: unit.episode,
                    seed: unit.seed,
                    max_steps: config
                        .max_steps
                        .unwrap_or(config.suite.tasks[unit.task].max_steps),
                };
                let episode = self.episode(&mut browsers, &spec).await?;
                self.folder.append(&episode)?;
                episodes.push(episode);
                self.progress.step();
            }
            Ok(())
        }
        .await;
        let info = browsers.close().await;
        result.map(|()| (episodes, info))
    }

    /// Runs an episode; one whose browser died under it runs once more on a
    /// browser started in the dead one's place, and its row says so
    /// ([`BrowserDied`]). One the browser died under twice is not run a
    /// third time: the next episode starts a browser of its own.
    async fn episode(&self, browsers: &mut Browsers, spec: &Spec<'_>) -> Result<Episode> {
        let first = match self.attempt(browsers, spec).await? {
            Attempt::Died(first) => first,
            Attempt::Ran(episode) | Attempt::NoBrowser(episode) => return Ok(episode),
        };
        let (mut episode, died) = match self.attempt(browsers, spec).await? {
            Attempt::Ran(episode) => (episode, BrowserDied::Retried),
            Attempt::Died(episode) => (episode, BrowserDied::Twice),
            Attempt::NoBrowser(mut episode) => {
                // The first run's error says what the browser died under.
                episode.error = Some(match (episode.error.take(), first.error) {
                    (Some(now), Some(then)) => format!("{now}; its first run: {then}"),
                    (now, then) => now.or(then).unwrap_or_default(),
                });
                (episode, BrowserDied::NotRestarted)
            }
        };
        episode.browser_died = Some(died);
        Trace::existing(&self.config.out, &episode).finish(&episode)?;
        Ok(episode)
    }

    /// Runs an episode once, in the browser its strategy uses.
    async fn attempt(&self, browsers: &mut Browsers, spec: &Spec<'_>) -> Result<Attempt> {
        match spec.strategy {
            Observer::Engine(_) => self.own(&mut browsers.own, &mut browsers.info, spec).await,
            Observer::Peer(peer) => self.through(&mut browsers.peers, peer, spec).await,
            Observer::External(external) => {
                self.external(&mut browsers.externals, external, spec).await
            }
        }
    }

    /// Starts a browser in the place of `browser` when it died (since its
    /// last episode, or under it); none means it lives. A browser that
    /// cannot be started in its place gives the episode an error row.
    async fn revived(&self, browser: &mut Chromium, spec: &Spec<'_>) -> Result<Option<Attempt>> {
        if !browser.is_gone() {
            return Ok(None);
        }
        match revive::in_place(browser).await {
            Ok(()) => Ok(None),
            Err(err) => {
                let why = format!("the browser died; {}", revive::lost(browser, &err));
                episode::unreachable(self.setting, spec, &why)
                    .map(|episode| Some(Attempt::NoBrowser(episode)))
            }
        }
    }

    /// An episode of an external strategy, in its browser (both started
    /// first if need be; the program anew with a browser started in a dead
    /// one's place). A browser launched here that fails to start fails the
    /// run.
    async fn external(
        &self,
        externals: &mut BTreeMap<String, (Chromium, Program)>,
        external: &Arc<External>,
        spec: &Spec<'_>,
    ) -> Result<Attempt> {
        let config = self.config;
        let (browser, program) = match externals.entry(external.name.clone()) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => {
                let browser = Chromium::launch(config.network)
                    .await?
                    .with_dialogs(config.dialogs)
                    .with_upload_dir(config.uploads.clone());
                let program = Program::new(Arc::clone(external), browser.websocket_url());
                e.insert((browser, program))
            }
        };
        if browser.is_gone() {
            // The program is attached to the dead browser's websocket.
            program.stop().await;
            if let Some(no_browser) = self.revived(browser, spec).await? {
                return Ok(no_browser);
            }
            *program = Program::new(Arc::clone(external), browser.websocket_url());
        }
        let ws = browser.websocket_url().to_owned();
        let mut attached = Attached::Program { program, ws: &ws };
        let episode = episode::run(browser, Some(&mut attached), self.setting, spec).await?;
        Ok(Attempt::of(episode, browser))
    }

    /// An episode through a tool server, in its browser, both started first
    /// if need be. A server that does not start gives the episode an error
    /// row; one that died or hangs by the episode's end is started again for
    /// the next, and so is one whose browser died.
    async fn through(
        &self,
        peers: &mut BTreeMap<String, (Chromium, Option<Connection>)>,
        peer: &Peer,
        spec: &Spec<'_>,
    ) -> Result<Attempt> {
        let (browser, connection) = match peers.entry(peer.name.clone()) {
            Entry::Occupied(e) => e.into_mut(),
            // The server answers its page's dialogs itself.
            Entry::Vacant(e) => e.insert((
                Chromium::launch(self.config.network)
                    .await?
                    .with_dialogs(DialogPolicy::Ask)
                    .with_upload_dir(self.config.uploads.clone()),
                None,
            )),
        };
        if browser.is_gone() {
            // The server is attached to the dead browser.
            if let Some(stale) = connection.take() {
                stale.stop().await;
            }
            if let Some(no_browser) = self.revived(browser, spec).await? {
                return Ok(no_browser);
            }
        }
        let server = match connection {
            Some(server) => server,
            None => {
                match Connection::start(peer, browser.websocket_url(), &self.config.uploads).await {
                    Ok(started) => connection.insert(started),
                    Err(err) => {
                        return episode::unreachable(self.setting, spec, &err).map(Attempt::Ran);
                    }
                }
            }
        };
        let mut attached = Attached::Server(server);
        let episode = episode::run(browser, Some(&mut attached), self.setting, spec).await?;
        // A server an episode ended in error with is not trusted with the
        // next: one that still lists its tools may be stuck on the last tab
        // (Chrome DevTools MCP answers nothing more after a tab whose dialog
        // it could not get past). The next episode starts it again.
        if episode.ended_by == EndedBy::Error
            && let Some(failed) = connection.take()
        {
            failed.stop().await;
        }
        Ok(Attempt::of(episode, browser))
    }

    /// An episode of one of pagesnap's own strategies, in the worker's
    /// browser (started first if need be, and in a dead one's place). An
    /// attached browser that cannot be reached gives the episode an error
    /// row; one launched here that fails to start the first time fails the
    /// run.
    async fn own(
        &self,
        browser: &mut Option<Chromium>,
        browsers: &mut Vec<BrowserInfo>,
        spec: &Spec<'_>,
    ) -> Result<Attempt> {
        let current = match browser {
            Some(current) => {
                let died = current.is_gone();
                if let Some(no_browser) = self.revived(current, spec).await? {
                    return Ok(no_browser);
                }
                if died {
                    browsers.push(self.info(current));
                }
                current
            }
            None => match Chromium::start(self.endpoint, self.config.network).await {
                Ok(started) => {
                    let started = started
                        .with_dialogs(self.config.dialogs)
                        .with_upload_dir(self.config.uploads.clone());
                    browsers.push(self.info(&started));
                    browser.insert(started)
                }
                Err(err) if self.endpoint.is_none() => return Err(err.into()),
                Err(err) => {
                    return episode::unreachable(self.setting, spec, &err).map(Attempt::Ran);
                }
            },
        };
        let episode = episode::run(current, None, self.setting, spec).await?;
        Ok(Attempt::of(episode, current))
    }

    /// What `run.json` says of a browser pagesnap's own strategies drove.
    fn info(&self, browser: &Chromium) -> BrowserInfo {
        BrowserInfo {
            endpoint: self.endpoint.map(str::to_owned),
            version: browser.version().to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_come_from_the_suite_then_continue() {
        let task = LiveTask {
            id: "t".into(),
            path: "t.html".into(),
            instruction: None,
            success: None,
            tags: vec![],
            tier: "easy".into(),
            max_steps: 3,
            seeds: vec![7, 9],
        };
        assert_eq!(episodes_of(&task, None, None), vec![(1, 7), (2, 9)]);
        assert_eq!(
            episodes_of(&task, Some(4), None),
            vec![(1, 7), (2, 9), (3, 10), (4, 11)]
        );
        assert_eq!(
            episodes_of(&task, Some(2), Some(100)),
            vec![(1, 100), (2, 101)]
        );
    }
}
