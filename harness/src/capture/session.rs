//! One open tab: scripts, load and selector waits, settling, and the scripted actions of `--then`.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use chromiumoxide::Page as CdpPage;
use chromiumoxide::cdp::browser_protocol::accessibility::GetFullAxTreeParams;
use chromiumoxide::cdp::browser_protocol::dom::DescribeNodeParams;
use chromiumoxide::cdp::js_protocol::runtime::{EvaluateParams, GetPropertiesParams};
use pagesnap_engine::recording::{AxNode, DomCounts};

use super::{Action, Capture, Captured, WaitFor};

/// One open tab.
pub struct ChromiumSession {
    pub(super) page: CdpPage,
    pub(super) version: String,
    pub(super) url: String,
    pub(super) display_url: String,
}

const COUNTS_JS: &str = r#"(() => {
  const acc = { document: 0, shadow: 0, iframe: 0 };
  const walk = (root, where) => {
    for (const el of root.querySelectorAll('*')) {
      acc[where]++;
      if (el.shadowRoot) walk(el.shadowRoot, where === 'iframe' ? 'iframe' : 'shadow');
      if (el.tagName === 'IFRAME' || el.tagName === 'FRAME') {
        let doc = null;
        try { doc = el.contentDocument; } catch (e) {}
        if (doc) walk(doc, 'iframe');
      }
    }
  };
  walk(document, 'document');
  return JSON.stringify(acc);
})()"#;

pub(super) const HOSTS_JS: &str = r#"(() => {
  const hosts = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) { hosts.push(el); walk(el.shadowRoot); }
      if (el.tagName === 'IFRAME' || el.tagName === 'FRAME') {
        let doc = null;
        try { doc = el.contentDocument; } catch (e) {}
        if (doc) walk(doc);
      }
    }
  };
  walk(document);
  return hosts;
})()"#;

pub(super) const ACTIVE_JS: &str = r#"(() => {
  let el = document.activeElement;
  for (;;) {
    if (el && el.shadowRoot && el.shadowRoot.activeElement) { el = el.shadowRoot.activeElement; continue; }
    if (el && (el.tagName === 'IFRAME' || el.tagName === 'FRAME')) {
      let doc = null;
      try { doc = el.contentDocument; } catch (e) {}
      if (doc && doc.activeElement && doc.activeElement !== doc.body) { el = doc.activeElement; continue; }
    }
    break;
  }
  return (el && el !== document.body && el !== document.documentElement) ? el : null;
})()"#;

impl ChromiumSession {
    pub(super) async fn eval(&self, expression: &str) -> Result<serde_json::Value> {
        let params = EvaluateParams::builder()
            .expression(expression)
            .return_by_value(true)
            .await_promise(true)
            .build()
            .map_err(|err| anyhow!("{err}"))?;
        let result = self
            .page
            .execute(params)
            .await
            .with_context(|| format!("evaluating script in {}", self.url))?;
        if let Some(exception) = &result.result.exception_details {
            bail!("script failed in {}: {}", self.url, exception.text);
        }
        Ok(result
            .result
            .result
            .value
            .clone()
            .unwrap_or(serde_json::Value::Null))
    }

    pub(super) async fn wait_loaded(&self, limit: Duration) -> Result<()> {
        let started = Instant::now();
        loop {
            // A page that navigates away mid-poll destroys the context; retry.
            // `about:blank` is the tab before our navigation committed.
            if let Ok(state) = self
                .eval("location.href === 'about:blank' ? 'blank' : document.readyState")
                .await
            {
                if state.as_str() == Some("complete") {
                    return Ok(());
                }
            }
            if started.elapsed() >= limit {
                bail!(
                    "loading {} timed out after {:.1} s (the --timeout limit): the load event never fired",
                    self.url,
                    limit.as_secs_f64()
                );
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    pub(super) async fn check_loaded(&self) -> Result<()> {
        // Chromium shows its own error page for unreachable URLs and missing
        // files instead of failing navigation.
        let href = self.eval("location.href").await?;
        if href
            .as_str()
            .is_some_and(|h| h.starts_with("chrome-error://"))
        {
            bail!(
                "loading {} failed: the browser showed its error page (the page or a redirect it made could not load)",
                self.url
            );
        }
        Ok(())
    }

    pub(super) async fn wait_for(
        &self,
        wait: &WaitFor,
        limit: Duration,
        configured: Duration,
    ) -> Result<()> {
        match wait {
            WaitFor::Delay(delay) => tokio::time::sleep(*delay).await,
            WaitFor::Selector(selector) => {
                let probe = format!(
                    "!!document.querySelector({})",
                    serde_json::to_string(selector).unwrap_or_default()
                );
                let started = Instant::now();
                loop {
                    if self.eval(&probe).await?.as_bool() == Some(true) {
                        break;
                    }
                    if started.elapsed() >= limit {
                        bail!(
                            "{}: no element matched --wait-for {selector:?} within the --timeout limit of {:.1} s",
                            self.url,
                            configured.as_secs_f64()
                        );
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
        Ok(())
    }

    /// Waits for fonts and two animation frames so layout reflects the last change.
    pub(super) async fn settle(&self) -> Result<()> {
        self.eval(
            "(async () => { try { await document.fonts.ready; } catch (e) {} \
             await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))); return true; })()",
        )
        .await?;
        Ok(())
    }

    pub(super) async fn backend_id_of_js(&self, expression: &str) -> Result<Option<i64>> {
        let params = EvaluateParams::builder()
            .expression(expression)
            .return_by_value(false)
            .build()
            .map_err(|err| anyhow!("{err}"))?;
        let result = self.page.execute(params).await?;
        let Some(object_id) = result.result.result.object_id.clone() else {
            return Ok(None);
        };
        let described = self
            .page
            .execute(DescribeNodeParams::builder().object_id(object_id).build())
            .await?;
        Ok(Some(*described.result.node.backend_node_id.inner()))
    }

    /// Backend ids of the elements an expression returns as an array.
    pub(super) async fn backend_ids_of_js(&self, expression: &str) -> Result<HashSet<i64>> {
        let params = EvaluateParams::builder()
            .expression(expression)
            .return_by_value(false)
            .build()
            .map_err(|err| anyhow!("{err}"))?;
        let result = self.page.execute(params).await?;
        let Some(array) = result.result.result.object_id.clone() else {
            return Ok(HashSet::new());
        };
        let properties = self
            .page
            .execute(
                GetPropertiesParams::builder()
                    .object_id(array)
                    .own_properties(true)
                    .build()
                    .map_err(|err| anyhow!("{err}"))?,
            )
            .await?;
        let mut ids = HashSet::new();
        for property in &properties.result.result {
            if property.name.parse::<usize>().is_err() {
                continue;
            }
            let Some(object_id) = property.value.as_ref().and_then(|v| v.object_id.clone()) else {
                continue;
            };
            let described = self
                .page
                .execute(DescribeNodeParams::builder().object_id(object_id).build())
                .await?;
            ids.insert(*described.result.node.backend_node_id.inner());
        }
        Ok(ids)
    }

    /// Element counts as page scripts see them (main document, open shadow trees, iframes).
    pub(super) async fn counts(&self) -> Option<DomCounts> {
        self.eval(COUNTS_JS)
            .await
            .ok()
            .and_then(|v| v.as_str().and_then(|s| serde_json::from_str(s).ok()))
    }

    pub(super) async fn accessibility(&self) -> Result<Vec<AxNode>> {
        let mut out = Vec::new();
        let mut frames = vec![None];
        if let Ok(all) = self.page.frames().await {
            let main = self.page.mainframe().await.ok().flatten();
            frames.extend(
                all.into_iter()
                    .filter(|f| Some(f) != main.as_ref())
                    .map(Some),
            );
        }
        for frame in frames {
            let mut params = GetFullAxTreeParams::builder();
            if let Some(frame) = frame.clone() {
                params = params.frame_id(frame);
            }
            let Ok(tree) = self.page.execute(params.build()).await else {
                // Out-of-process frames have no tree in this session; skip them.
                continue;
            };
            for node in &tree.result.nodes {
                let text = |value: &Option<
                    chromiumoxide::cdp::browser_protocol::accessibility::AxValue,
                >| {
                    value
                        .as_ref()
                        .and_then(|v| v.value.as_ref())
                        .map(|v| match v {
                            serde_json::Value::String(s) => s.clone(),
                            other => other.to_string(),
                        })
                        .unwrap_or_default()
                };
                out.push(AxNode {
                    backend_id: node
                        .backend_dom_node_id
                        .as_ref()
                        .and_then(|b| u64::try_from(*b.inner()).ok()),
                    role: text(&node.role),
                    name: text(&node.name),
                    ignored: node.ignored,
                });
            }
        }
        Ok(out)
    }
}

impl Capture for ChromiumSession {
    async fn apply(&mut self, action: &Action) -> Result<()> {
        let find = |selector: &str| {
            let selector = selector.to_owned();
            let page = &self.page;
            let url = self.url.clone();
            async move {
                page.find_element(selector.as_str())
                    .await
                    .with_context(|| format!("{url}: no element matches {selector:?}"))
            }
        };
        match action {
            Action::Click(selector) => {
                find(selector)
                    .await?
                    .click()
                    .await
                    .with_context(|| format!("clicking {selector:?}"))?;
            }
            Action::Type(selector, text) => {
                let element = find(selector).await?;
                element
                    .click()
                    .await
                    .with_context(|| format!("focusing {selector:?}"))?;
                element
                    .type_str(text)
                    .await
                    .with_context(|| format!("typing into {selector:?}"))?;
            }
            Action::Select(selector, value) => {
                let script = format!(
                    r#"(() => {{
                        const el = document.querySelector({sel});
                        if (!el || el.tagName !== 'SELECT') return 'not a <select>';
                        const want = {val};
                        const opt = [...el.options].find(o => o.value === want || o.label === want || o.text.trim() === want);
                        if (!opt) return 'no option ' + JSON.stringify(want);
                        el.value = opt.value;
                        el.dispatchEvent(new Event('input', {{ bubbles: true }}));
                        el.dispatchEvent(new Event('change', {{ bubbles: true }}));
                        return 'ok';
                    }})()"#,
                    sel = serde_json::to_string(selector)?,
                    val = serde_json::to_string(value)?,
                );
                let outcome = self.eval(&script).await?;
                if outcome.as_str() != Some("ok") {
                    bail!("{}: select {selector:?} {value:?}: {}", self.url, outcome);
                }
            }
            Action::Scroll(px) => {
                self.eval(&format!("window.scrollBy(0, {px})")).await?;
            }
            Action::Wait(delay) => tokio::time::sleep(*delay).await,
        }
        self.settle().await
    }

    async fn capture(&mut self) -> Result<Captured> {
        self.capture_state().await
    }
}
