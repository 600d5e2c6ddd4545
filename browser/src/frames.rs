//! Out-of-process frames: a frame from another site lives in a renderer process of its own, reached through a CDP session of its own; here are those sessions and the node keys that tell their nodes apart.
//!
//! Chromium renders a frame from another site (site isolation: `localhost`
//! framed by `127.0.0.1` is one) out of process. The tab's own session does
//! not see inside it: `DOMSnapshot.captureSnapshot` gives the `<iframe>`
//! without a content document. pagesnap attaches to such a frame
//! (`Target.attachToTarget` with `flatten`) the first time a capture finds
//! its `<iframe>`, keeps the session for the tab's life, and issues the
//! frame's calls in it. A frame inside such a frame is found the same way in
//! its parent's session, so frames nest to any depth.
//!
//! Backend node ids are numbered per renderer process, so two frames' nodes
//! can share one. A node's key ([`node_key`]) is the backend id in its low 32
//! bits and the frame's number in the high 32: 0 for the tab's own process
//! (so a page without such frames keeps its plain backend ids, and older
//! recordings read the same), 1, 2, … for out-of-process frames in the order
//! this tab met them. The number stays the frame's for the tab's life, so
//! refs into the frame are stable across steps.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Mutex;

use chromiumoxide::Page as CdpPage;
use chromiumoxide::cdp::browser_protocol::target::SessionId;
use chromiumoxide::types::{Command, CommandResponse};

/// The node key of backend node `backend` of frame `frame` (see the module docs).
pub fn node_key(frame: u32, backend: i64) -> u64 {
    (u64::from(frame) << 32) | (backend as u64 & 0xffff_ffff)
}

/// The frame number and backend node id a node key holds.
pub fn split_key(key: u64) -> (u32, i64) {
    ((key >> 32) as u32, (key & 0xffff_ffff) as i64)
}

/// One out-of-process frame this tab attached to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Link {
    /// The frame's number: the high half of its nodes' keys.
    pub key: u32,
    /// The frame's own CDP session.
    pub session: SessionId,
    /// The number of the frame whose document holds the `<iframe>` (0: the tab's).
    pub parent: u32,
    /// The `<iframe>` element's backend node id in its parent's process.
    pub owner: i64,
    /// The frame's CDP frame id (its target's id).
    pub frame_id: String,
    /// The URL the frame's target had when it showed Chromium's error page
    /// (it failed to load): not captured again while the URL stays.
    pub failed: Option<String>,
}

impl Link {
    /// Where the frame's calls go.
    pub fn route(&self) -> Route {
        Route(Some(self.session.clone()))
    }
}

/// The out-of-process frames of one tab.
#[derive(Debug, Default)]
pub(crate) struct Frames {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    links: Vec<Link>,
    /// The frame id each `<iframe>` met so far shows, by (parent frame
    /// number, element backend id): asked once (`DOM.describeNode`), as an
    /// element keeps its frame for life.
    owners: HashMap<(u32, i64), Option<String>>,
    /// The last number given: numbers are never reused within a tab, so a
    /// stale ref into a forgotten frame never lands in another.
    last: u32,
}

impl Frames {
    /// The frames attached so far.
    pub fn links(&self) -> Vec<Link> {
        self.lock().links.clone()
    }

    /// The frame numbered `key`, if the tab still has it.
    pub fn get(&self, key: u32) -> Option<Link> {
        self.lock().links.iter().find(|l| l.key == key).cloned()
    }

    /// Where the calls of frame `key` go: the tab's own session for 0;
    /// `None` when the tab no longer has that frame.
    pub fn route(&self, key: u32) -> Option<Route> {
        match key {
            0 => Some(Route::TAB),
            key => self.get(key).map(|link| link.route()),
        }
    }

    /// Keeps a newly attached frame, numbered after every frame this tab met.
    pub fn add(&self, session: SessionId, parent: u32, owner: i64, frame_id: String) -> Link {
        let mut state = self.lock();
        state.last += 1;
        let key = state.last;
        let link = Link {
            key,
            session,
            parent,
            owner,
            frame_id,
            failed: None,
        };
        state.links.push(link.clone());
        link
    }

    /// Forgets frames whose session no longer answers (the frame navigated
    /// to another process, or its `<iframe>` left the page), and the frames
    /// inside them.
    pub fn forget(&self, gone: &[u32]) {
        let mut state = self.lock();
        let state = &mut *state;
        let links = &mut state.links;
        let mut dropped: Vec<u32> = gone.to_vec();
        while let Some(key) = dropped.pop() {
            let children: Vec<u32> = links
                .iter()
                .filter(|l| l.parent == key)
                .map(|l| l.key)
                .collect();
            dropped.extend(children);
            links.retain(|l| l.key != key);
        }
        let kept: std::collections::HashSet<u32> = state.links.iter().map(|l| l.key).collect();
        state
            .owners
            .retain(|(parent, _), _| *parent == 0 || kept.contains(parent));
    }

    /// Whether the frame at `<iframe>` `owner` of frame `parent` showed
    /// Chromium's error page and has not navigated since.
    pub fn failed_at(&self, parent: u32, owner: i64) -> bool {
        self.lock()
            .links
            .iter()
            .any(|l| l.parent == parent && l.owner == owner && l.failed.is_some())
    }

    /// Marks frame `key` as showing Chromium's error page at target URL `url`.
    pub fn set_failed(&self, key: u32, url: Option<String>) {
        if let Some(link) = self.lock().links.iter_mut().find(|l| l.key == key) {
            link.failed = url;
        }
    }

    /// The frame id `<iframe>` `owner` of frame `parent` shows, if it was asked for.
    pub fn owner_frame(&self, parent: u32, owner: i64) -> Option<Option<String>> {
        self.lock().owners.get(&(parent, owner)).cloned()
    }

    /// Remembers the frame id `<iframe>` `owner` of frame `parent` shows.
    pub fn set_owner_frame(&self, parent: u32, owner: i64, frame: Option<String>) {
        self.lock().owners.insert((parent, owner), frame);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // The list holds no invariant a panicking holder could break halfway.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Where a CDP call goes: the tab's own session or a frame's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Route(pub Option<SessionId>);

impl Route {
    /// The tab's own session.
    pub const TAB: Route = Route(None);

    /// Issues `cmd` on this route. The future owns what it needs, so it can
    /// be awaited on another thread ([`crate::tab::TabHandle::call_large`]).
    pub fn execute<T: Command + Send + 'static>(
        &self,
        page: &CdpPage,
        cmd: T,
    ) -> impl Future<Output = chromiumoxide::error::Result<CommandResponse<T::Response>>> + Send + 'static
    where
        T::Response: Send,
    {
        let page = page.clone();
        let session = self.0.clone();
        async move {
            match session {
                None => page.execute(cmd).await,
                Some(session) => page.execute_in(session, cmd).await,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_keep_the_frame_and_the_backend_id_apart() {
        for (frame, backend) in [(0, 1), (0, i64::from(i32::MAX)), (3, 17), (u32::MAX, 5)] {
            assert_eq!(split_key(node_key(frame, backend)), (frame, backend));
        }
        // The tab's own nodes keep their plain backend ids.
        assert_eq!(node_key(0, 42), 42);
        assert_ne!(node_key(1, 42), node_key(2, 42));
    }

    #[test]
    fn forgetting_a_frame_forgets_the_frames_inside_it() {
        let frames = Frames::default();
        let a = frames.add(SessionId::new("a"), 0, 10, "A".into());
        let b = frames.add(SessionId::new("b"), a.key, 20, "B".into());
        let c = frames.add(SessionId::new("c"), 0, 30, "C".into());
        frames.forget(&[a.key]);
        assert_eq!(frames.get(b.key), None);
        assert_eq!(frames.get(c.key), Some(c.clone()));
        // Numbers are never reused within a tab.
        frames.forget(&[c.key]);
        assert_eq!(
            frames.add(SessionId::new("d"), 0, 40, "D".into()).key,
            c.key + 1
        );
    }
}
