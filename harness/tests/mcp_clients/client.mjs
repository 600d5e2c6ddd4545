// Drives `pagesnap mcp` through the official MCP TypeScript SDK, as an agent would, and checks
// what it gets. The twin of client.py (the Python SDK); same pages, same contract.
//
// Usage: node client.mjs PAGESNAP_BINARY (stdio | http) SITES_DIR
//
// The SDK (@modelcontextprotocol/sdk, pinned in scripts/mcp/package.json) is loaded from
// scripts/mcp/node_modules, found relative to this file. The pages come from a 127.0.0.1 HTTP
// server this script starts: the fixture sites (modal, scroll container, planted-secrets pages)
// and a few pages of its own. Every assertion names what it checks; the script exits non-zero on
// the first failure. pagesnap's stderr is kept and checked for secrets. The dialog pages
// (fixtures/sites/dialogs) report what the agent's answers did to this server (POST /report).

import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SDK = path.resolve(HERE, '../../../scripts/mcp/node_modules/@modelcontextprotocol/sdk/dist/esm');
const sdk = async (rel) => {
    try {
        return await import(pathToFileURL(path.join(SDK, rel)).href);
    } catch (err) {
        console.error(`cannot load the MCP TypeScript SDK from ${SDK}: run \`npm ci\` in scripts/mcp (${err.message})`);
        process.exit(2);
    }
};
const { Client } = await sdk('client/index.js');
const { StdioClientTransport, getDefaultEnvironment } = await sdk('client/stdio.js');
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');

if (process.argv.length !== 5) {
    console.error('usage: node client.mjs PAGESNAP_BINARY (stdio|http) SITES_DIR');
    process.exit(2);
}
const [PAGESNAP, MODE, SITES] = process.argv.slice(2).map((a, i) => (i === 1 ? a : path.resolve(a)));
if (!['stdio', 'http'].includes(MODE)) {
    console.error(`unknown mode ${MODE} (expected stdio or http)`);
    process.exit(2);
}

const FORM = `<!doctype html><title>Order form</title>
<h1>Order</h1>
<label>Item <input id=item></label>
<label>Country <select id=country><option value=fr>France</option><option value=de>Germany</option></select></label>
<span style="position:relative;display:inline-block"><button id=add onclick="const li=document.createElement('li');li.textContent=document.getElementById('item').value+' to '+document.getElementById('country').value;document.getElementById('list').append(li)">Add item</button><span id=veil style="display:none;position:absolute;left:0;top:0;right:0;bottom:0;background:#fff">Veil over it</span></span>
<button onclick="document.getElementById('veil').style.display='block'">Put a veil</button>
<ul id=list></ul>
<a href="second.html">Go to second page</a>
<a href="second.html" target="_blank">Open in a new tab</a>
<div style="height:2500px"></div>
<button id=bottom>Button at the bottom</button>
`;
const SECOND = '<!doctype html><title>Second</title><h1>Second page</h1><button>Only on the second page</button>';
const SLOW = "<!doctype html><title>Slow</title><h1>Slow</h1><img src='/never'>";
const OWN = { '/form.html': FORM, '/second.html': SECOND, '/slow.html': SLOW };
const TYPES = {
    '.html': 'text/html; charset=utf-8', '.htm': 'text/html; charset=utf-8', '.js': 'text/javascript',
    '.css': 'text/css', '.json': 'application/json', '.png': 'image/png', '.jpg': 'image/jpeg',
    '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.svg': 'image/svg+xml', '.txt': 'text/plain; charset=utf-8',
};

// ---------------------------------------------------------------- the pages

// What the dialog pages report (fixtures/sites/dialogs/report.js POSTs /report).
const REPORTS = [];

function handle(req, res) {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (req.method === 'POST' && url.pathname === '/report') {
        let body = '';
        req.on('data', (chunk) => { body += chunk; });
        req.on('end', () => {
            REPORTS.push(JSON.parse(body));
            res.writeHead(204);
            res.end();
        });
        return;
    }
    if (url.pathname === '/never') return; // never answered; closed at the end
    const own = OWN[url.pathname];
    if (own !== undefined) {
        const body = Buffer.from(own);
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': body.length });
        return res.end(body);
    }
    let file = path.join(SITES, decodeURIComponent(url.pathname));
    if (!file.startsWith(SITES + path.sep) && file !== SITES) {
        res.writeHead(403);
        return res.end();
    }
    try {
        if (statSync(file).isDirectory()) file = path.join(file, 'index.html');
        const body = readFileSync(file);
        const type = TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
        res.writeHead(200, { 'Content-Type': type, 'Content-Length': body.length });
        res.end(body);
    } catch {
        res.writeHead(404, { 'Content-Type': 'text/plain' });
        res.end('not found');
    }
}

const httpd = http.createServer(handle);
await new Promise((resolve) => httpd.listen(0, '127.0.0.1', resolve));
const BASE = `http://127.0.0.1:${httpd.address().port}`;
const SECRETS = readFileSync(path.join(SITES, 'planted_secrets', 'secrets.txt'), 'utf8')
    .split('\n').map((l) => l.trim()).filter(Boolean);
let CHECKS = 0;

// ---------------------------------------------------------------- helpers

class CheckFailed extends Error {}

function check(condition, what, detail = '') {
    if (!condition) {
        const d = typeof detail === 'string' ? detail : JSON.stringify(detail);
        throw new CheckFailed(`${what}: ${d}`.slice(0, 3000));
    }
    CHECKS += 1;
}

const first = (found, what, among) => {
    check(found.length >= 1, `${what} is found`, among);
    return found[0];
};
const textOf = (result) => result.content.filter((b) => b.type === 'text').map((b) => b.text).join('\n');
// What an answer shows the page holding now: its text without the lines a brief answer says were
// removed ("- " at the start of a line under "### Changed lines").
const shown = (result) => {
  let changed = false;
  return textOf(result).split('\n').filter((line) => {
    if (line.startsWith('### ')) changed = line === '### Changed lines';
    return !(changed && line.startsWith('- '));
  }).join('\n');
};
const everything = (result) => textOf(result) + JSON.stringify(result.structuredContent ?? null);
const j = (v) => JSON.stringify(v);

// callTool throws on protocol errors (JSON-RPC errors, timeouts); a tool failure is a result.
const call = (client, name, args) => client.callTool({ name, arguments: args });

async function ok(client, name, args) {
    const result = await call(client, name, args);
    check(!result.isError, `${name} ${j(args)} succeeds`, textOf(result));
    const s = result.structuredContent;
    check(s !== null && typeof s === 'object' && !Array.isArray(s), `${name} has structuredContent`);
    return result;
}

async function fails(client, name, args, kind) {
    const result = await call(client, name, args);
    check(result.isError === true, `${name} ${j(args)} fails`, textOf(result));
    const error = (result.structuredContent ?? {}).error ?? {};
    check(error.kind === kind, `${name} ${j(args)} fails as ${kind}`, j(result.structuredContent));
    check(typeof error.message === 'string' && error.message.length > 0, `${name} ${j(args)} error has a message`, j(error));
    return result;
}

function itemsOf(result) {
    const s = result.structuredContent;
    const meta = s.snapshot ?? s;
    return meta.items ?? [];
}

function refOf(result, role, name) {
    const items = itemsOf(result);
    const item = items.find((i) => i.role === role && i.name.includes(name));
    if (!item) throw new CheckFailed(`no ${role} ${j(name)} among ${j(items.map((i) => [i.role, i.name]))}`);
    CHECKS += 1;
    return item.ref;
}

const STRATEGIES = ['aria', 'flat', 'structural', 'som', 'html-pruned', 'html'];

// ---------------------------------------------------------------- the scenario

const reported = (what) => REPORTS.filter((r) => r.what === what);
async function waitReported(what, ms = 5000) {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline && reported(what).length === 0) {
        await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return reported(what);
}
const dialogOf = (result) => (result.structuredContent.snapshot ?? result.structuredContent).dialog;

// The new actions through the TypeScript SDK: drag (HTML5 drag-and-drop), upload from the upload
// folder (and one outside it refused), several fields in one call, a wait for late results, a
// click at a point; each decided by what the page reports.
async function actions(client) {
    REPORTS.length = 0;
    let nav = await ok(client, 'page_navigate', { url: `${BASE}/actions/board.html` });
    await ok(client, 'page_action', { ref: refOf(nav, 'button', 'Write report'), op: 'drag', to: refOf(nav, 'region', 'Done') });
    const dropped = await waitReported('dropped');
    check(dropped.length === 1 && dropped[0].detail.column === 'Done', 'the card is dropped on Done', REPORTS);

    nav = await ok(client, 'page_navigate', { url: `${BASE}/actions/upload.html` });
    const resume = refOf(nav, 'button', 'Résumé');
    await fails(client, 'page_action', { ref: resume, op: 'upload', paths: ['/etc/hostname'] }, 'upload-refused');
    await ok(client, 'page_action', { ref: resume, op: 'upload', paths: ['resume.pdf'] });
    check(j((await waitReported('uploaded')).map((r) => r.detail)) === j([['resume.pdf']]), 'the file input got the file, and only once', REPORTS);

    nav = await ok(client, 'page_navigate', { url: `${BASE}/actions/form.html` });
    await ok(client, 'page_fill', { fields: [
        { ref: refOf(nav, 'textbox', 'Full name'), value: 'Ada Lovelace' },
        { ref: refOf(nav, 'combobox', 'Country'), value: 'Germany' },
        { ref: refOf(nav, 'checkbox', 'Subscribe'), value: 'true' },
    ] });
    await ok(client, 'page_action', { ref: refOf(nav, 'button', 'Submit'), op: 'click' });
    const submitted = (await waitReported('submitted'))[0]?.detail ?? {};
    check(submitted.name === 'Ada Lovelace' && submitted.country === 'de' && submitted.subscribe === true, 'one page_fill filled three fields', submitted);

    nav = await ok(client, 'page_navigate', { url: `${BASE}/actions/wait.html` });
    await ok(client, 'page_action', { ref: refOf(nav, 'button', 'Search'), op: 'click' });
    const waited = await ok(client, 'page_wait', { text: '3 results found' });
    check(textOf(waited).includes('3 results found') && reported('results').length === 1, 'page_wait returns once the late results show', textOf(waited));

    await ok(client, 'page_navigate', { url: `${BASE}/actions/point.html` });
    const at = await ok(client, 'page_click_at', { x: 200, y: 240 });
    check(at.structuredContent.action.element === 'button "Go"', 'click_at names what was under the point', at.structuredContent.action);
    check((await waitReported('clicked-go')).length === 1, 'the click at the point reached Go', REPORTS);
}

// JavaScript dialogs are shown to the agent and answered by it; the page says what each answer did.
async function dialogs(client) {
    REPORTS.length = 0;
    const nav = await ok(client, 'page_navigate', { url: `${BASE}/dialogs/editor.html` });
    const close = refOf(nav, 'button', 'Close editor');
    const clicked = await ok(client, 'page_action', { ref: close, op: 'click' });
    check(j(dialogOf(clicked)) === j({ kind: 'confirm', message: 'Discard unsaved changes?' }), 'the confirm a click opened is shown', clicked.structuredContent);
    check(reported('kept').length === 0 && reported('discarded').length === 0, 'the confirm is not answered behind the agent', REPORTS);
    await fails(client, 'page_action', { ref: close, op: 'click' }, 'dialog-pending');
    await ok(client, 'page_dialog', { accept: false });
    check((await waitReported('kept')).length === 1, 'dismissed: the page kept the notes', REPORTS);
    await ok(client, 'page_action', { ref: close, op: 'click' });
    await ok(client, 'page_dialog', { accept: true });
    check((await waitReported('discarded')).length === 1, 'accepted: the page discarded the notes', REPORTS);
    const prompted = await ok(client, 'page_action', { ref: refOf(nav, 'button', 'Rename'), op: 'click' });
    check(dialogOf(prompted)?.defaultPrompt === 'Untitled', "a prompt's default is shown", dialogOf(prompted));
    await ok(client, 'page_dialog', { accept: true, text: 'Board minutes' });
    check(j((await waitReported('renamed')).map((r) => r.detail)) === j(['Board minutes']), 'the prompt got the agent\'s text', REPORTS);
    await fails(client, 'page_dialog', { accept: true }, 'no-dialog');
}

async function scenario(client) {
    const tools = (await client.listTools()).tools;
    const names = tools.map((t) => t.name).sort();
    check(j(names) === j(['page_action', 'page_back', 'page_click_at', 'page_dialog', 'page_fill', 'page_find', 'page_navigate', 'page_scroll', 'page_snapshot', 'page_tabs', 'page_wait']),
        'the eleven tools are listed', names);
    for (const tool of tools) {
        check(typeof tool.description === 'string' && tool.description.length > 40, `${tool.name} has a description`);
        check(tool.inputSchema?.type === 'object', `${tool.name} has an object input schema`, tool.inputSchema);
    }
    const actionSchema = tools.find((t) => t.name === 'page_action').inputSchema;
    check('ref' in (actionSchema.properties ?? {}) && 'op' in (actionSchema.properties ?? {}), "page_action's schema names ref and op");

    // A call before any page: a clear error, and the server keeps serving.
    await fails(client, 'page_snapshot', {}, 'no-tab');
    await fails(client, 'page_navigate', { url: 'file:///etc/passwd' }, 'refused-url');
    const bad = await fails(client, 'page_navigate', { nope: 1 }, 'bad-argument');
    check(textOf(bad).includes('nope'), 'a malformed call names the field', textOf(bad));

    const nav = await ok(client, 'page_navigate', { url: `${BASE}/form.html` });
    check(textOf(nav).includes('### Page') && textOf(nav).includes('Add item'), 'navigate returns the snapshot', textOf(nav));
    check(nav.structuredContent.incomplete === false, 'a quick page is complete', j(nav.structuredContent).slice(0, 400));

    // Every strategy; som brings its PNG.
    for (const strategy of STRATEGIES) {
        const snap = await ok(client, 'page_snapshot', { strategy });
        const s = snap.structuredContent;
        check(s.strategy === strategy, `snapshot names strategy ${strategy}`, s.strategy);
        check(s.snapshotId, `${strategy} snapshot has a snapshotId`);
        check(String(s.freshness?.url ?? '').endsWith('/form.html'), `${strategy} snapshot has freshness`, j(s.freshness));
        check(textOf(snap).length > 0, `${strategy} snapshot has text`);
        const images = snap.content.filter((b) => b.type === 'image');
        check((images.length === 1) === (strategy === 'som'), `${strategy}: an image exactly when som`, images.length);
        if (strategy === 'som') {
            check(images[0].mimeType === 'image/png' && images[0].data.length > 100, 'som image is a PNG', images[0].mimeType);
            check(Buffer.from(images[0].data, 'base64').subarray(1, 4).toString() === 'PNG', 'som image data is PNG bytes');
        }
    }
    await fails(client, 'page_snapshot', { strategy: 'nope' }, 'bad-argument');
    await fails(client, 'page_snapshot', { layers: ['nope'] }, 'bad-argument');

    // Viewport by default: the bottom button is announced, not shown; full_page shows it.
    let snap = await ok(client, 'page_snapshot', {});
    check(!textOf(snap).includes('Button at the bottom'), 'the default snapshot is viewport-scoped', textOf(snap));
    check(snap.structuredContent.viewport?.pagesBelow >= 1, 'pages below are counted', j(snap.structuredContent.viewport));
    const full = await ok(client, 'page_snapshot', { full_page: true });
    check(textOf(full).includes('Button at the bottom'), 'full_page shows the whole page', textOf(full));
    const cut = await ok(client, 'page_snapshot', { full_page: true, max_tokens: 40 });
    check(textOf(cut).length < textOf(full).length, 'max_tokens cuts the text', textOf(cut));

    // Find, then refs stay stable across calls.
    const found = await ok(client, 'page_find', { text: 'bottom' });
    const matches = found.structuredContent.matches;
    check(Array.isArray(matches) && matches.some((m) => m.name === 'Button at the bottom' && !m.inViewport),
        'find by text locates an off-screen target', matches);
    const foundRe = await ok(client, 'page_find', { regex: '^add\\s+ITEM$' });
    check(foundRe.structuredContent.matches.length === 1 && foundRe.structuredContent.matches[0].name === 'Add item',
        'find by regex (case-insensitive, anchored)', foundRe.structuredContent);
    await fails(client, 'page_find', { regex: '(' }, 'bad-argument');
    const add = refOf(full, 'button', 'Add item');
    check(refOf(snap, 'button', 'Add item') === add, 'a node keeps its ref across snapshots');

    // Type + select + click through refs.
    let item = refOf(snap, 'textbox', 'Item');
    const country = refOf(snap, 'combobox', 'Country');
    let typed = await ok(client, 'page_action', { ref: item, op: 'type', value: 'milk' });
    check(typed.structuredContent.action?.outcome === 'done', 'type is done', j(typed.structuredContent.action));
    await ok(client, 'page_action', { ref: country, op: 'select', value: 'Germany' });
    const clicked = await ok(client, 'page_action', { ref: add, op: 'click' });
    check(textOf(clicked).includes('milk to de'), "the click's effect is in its snapshot", textOf(clicked));
    check(String(clicked.structuredContent.action?.element ?? '').startsWith('button'), 'the action names its element',
        j(clicked.structuredContent.action));
    check('changes' in clicked.structuredContent, 'the action lists changes');
    await fails(client, 'page_action', { ref: country, op: 'select', value: 'Atlantis' }, 'no-option');
    await fails(client, 'page_action', { ref: add, op: 'type', value: 'x' }, 'not-editable');
    await fails(client, 'page_action', { ref: 'e9999', op: 'click' }, 'unknown-ref');
    await fails(client, 'page_action', { ref: add, op: 'press', value: 'Hyper' }, 'unknown-key');
    const badOp = await fails(client, 'page_action', { ref: add, op: 'teleport' }, 'bad-argument');
    check(textOf(badOp).includes('teleport'), 'an unknown op is named', textOf(badOp));

    // A covered click names what covers it; nothing is clicked. (Once covered, the snapshot
    // gives the button no ref; the agent still holds the one it was shown.)
    const veiled = await ok(client, 'page_action', { ref: refOf(snap, 'button', 'Put a veil'), op: 'click' });
    check(!itemsOf(veiled).map((i) => i.ref).includes(add), 'a covered button gets no ref', textOf(veiled));
    const covered = await fails(client, 'page_action', { ref: add, op: 'click' }, 'covered');
    check(textOf(covered).includes('Veil over it'), 'covered names the covering element', textOf(covered));
    const after = textOf(await ok(client, 'page_snapshot', {}));
    check(after.split('milk to de').length - 1 === 1, 'nothing was clicked', after);
    await ok(client, 'page_navigate', { url: `${BASE}/form.html` });

    // Scroll the page and a container.
    const scrolled = await ok(client, 'page_scroll', { direction: 'down', screens: 1 });
    const action = scrolled.structuredContent.action;
    check(action?.scrolled_px > 0 && action?.at_top === false, 'page scroll moves down', action);
    const up = await ok(client, 'page_scroll', { direction: 'up', screens: 5 });
    check(up.structuredContent.action?.at_top === true, 'scrolling far up reaches the top', up.structuredContent.action);
    await ok(client, 'page_navigate', { url: `${BASE}/scroll_container/index.html` });
    snap = await ok(client, 'page_snapshot', {});
    const box = refOf(snap, 'list', 'Items');
    check(!textOf(snap).includes('Item 40'), "the list's later items are out of its view", textOf(snap));
    const inner = await ok(client, 'page_scroll', { direction: 'down', screens: 3, ref: box });
    check(inner.structuredContent.action?.at_top === true, 'scrolling a container leaves the page where it was',
        inner.structuredContent.action);
    check(!shown(inner).includes('Item 1SKU'), 'the container scrolled past its first items', textOf(inner));
    const scope = await ok(client, 'page_snapshot', { ref: box });
    check(textOf(scope).includes('View') && !textOf(scope).includes('Jump to top'), 'ref scopes a snapshot to a subtree', textOf(scope));
    await ok(client, 'page_navigate', { url: `${BASE}/form.html` });
    await fails(client, 'page_scroll', { direction: 'down', screens: -1 }, 'bad-argument');

    // A link that opens a tab: listed, not followed.
    snap = await ok(client, 'page_snapshot', {});
    const newtab = refOf(snap, 'link', 'Open in a new tab');
    const opened = await ok(client, 'page_action', { ref: newtab, op: 'click' });
    check(opened.structuredContent.newTabs, 'a tab the page opens is announced', j(opened.structuredContent).slice(0, 500));
    check(String(opened.structuredContent.newTabs?.[0]?.url ?? '').endsWith('/second.html'), 'the announced tab names the URL it opens',
        j(opened.structuredContent.newTabs));
    check(String(opened.structuredContent.snapshot?.freshness?.url ?? '').endsWith('/form.html'), 'the new tab is not followed');
    const tabs = await ok(client, 'page_tabs', { op: 'list' });
    check(tabs.structuredContent.tabs?.length >= 2, 'page_tabs lists the new tab', tabs.structuredContent);
    const other = first(tabs.structuredContent.tabs.filter((t) => t.url.endsWith('/second.html')).map((t) => t.id),
        'the opened tab', tabs.structuredContent);
    await ok(client, 'page_tabs', { op: 'close', id: other });
    await fails(client, 'page_tabs', { op: 'select', id: 'no-such-tab' }, 'no-tab');

    // Navigate by link, then back; a ref from the old page is stale or unknown.
    const link = refOf(snap, 'link', 'Go to second page');
    const went = await ok(client, 'page_action', { ref: link, op: 'click' });
    check(textOf(went).includes('Only on the second page'), 'a click that navigates shows the new page', textOf(went));
    const stale = await call(client, 'page_action', { ref: add, op: 'click' });
    check(stale.isError === true && ['stale', 'unknown-ref'].includes(stale.structuredContent?.error?.kind),
        "an old page's ref is refused by name", textOf(stale));
    const back = await ok(client, 'page_back', {});
    check(textOf(back).includes('Add item'), 'back returns to the form', textOf(back));
    check(String((back.structuredContent.snapshot ?? back.structuredContent).freshness?.url ?? '').endsWith('/form.html'),
        'back lands on the form URL', j(back.structuredContent).slice(0, 400));

    // A page that never finishes loading: a best-effort snapshot, flagged incomplete — never a hang.
    const started = Date.now();
    const slow = await call(client, 'page_navigate', { url: `${BASE}/slow.html` });
    check(Date.now() - started < 30_000, 'a never-loading page does not hang the call', `${Date.now() - started} ms`);
    if (!slow.isError) {
        check(slow.structuredContent.incomplete === true, 'a never-loading page is incomplete', j(slow.structuredContent).slice(0, 400));
    }

    // The modal page: no refs behind the dialog, [obscured] marks.
    const modal = await ok(client, 'page_navigate', { url: `${BASE}/checkout_modal/index.html` });
    check(textOf(modal).includes('[obscured]'), 'the background of a modal is marked obscured', textOf(modal));
    const modalNames = itemsOf(modal).map((i) => i.name);
    check(!modalNames.includes('Buy now'), 'no ref on a button behind the modal', modalNames);

    // The planted secrets page: no secret in any result.
    const page = await ok(client, 'page_navigate', { url: `${BASE}/planted_secrets/index.html` });
    const outputs = [['navigate', everything(page)]];
    for (const strategy of STRATEGIES) {
        outputs.push([strategy, everything(await ok(client, 'page_snapshot', { strategy, full_page: true }))]);
    }
    outputs.push(['find', everything(await ok(client, 'page_find', { regex: '.' }))]);
    for (const secret of SECRETS) {
        for (const [where, out] of outputs) {
            check(!out.includes(secret), `no planted secret in any result (${where})`, secret);
        }
    }

    // Known secrets: typed by name, never echoed, masked when the page shows them.
    await ok(client, 'page_navigate', { url: `${BASE}/form.html` });
    snap = await ok(client, 'page_snapshot', {});
    item = refOf(snap, 'textbox', 'Item');
    typed = await ok(client, 'page_action', { ref: item, op: 'type', value: '{secret:ORDER_CODE}' });
    const click = await ok(client, 'page_action', { ref: refOf(snap, 'button', 'Add item'), op: 'click' });
    check(!(everything(typed) + everything(click)).includes('order-code-7781'), 'a typed secret is never echoed');
    check(textOf(click).includes('<secret:ORDER_CODE>'), 'a known secret on the page is shown by name', textOf(click));
    await fails(client, 'page_action', { ref: item, op: 'type', value: '{secret:NOPE}' }, 'bad-argument');

    // Two calls at once are serialised, both answered.
    const [a, b] = await Promise.all([
        call(client, 'page_snapshot', {}),
        call(client, 'page_scroll', { direction: 'down' }),
    ]);
    check(!a.isError && !b.isError, 'two calls at once both succeed', textOf(a) + textOf(b));
}

// ---------------------------------------------------------------- transports

function freePort() {
    return new Promise((resolve, reject) => {
        const s = net.createServer();
        s.once('error', reject);
        s.listen(0, '127.0.0.1', () => {
            const { port } = s.address();
            s.close(() => resolve(port));
        });
    });
}

async function waitForPort(port, child) {
    for (let i = 0; i < 400; i++) {
        if (child.exitCode !== null) throw new CheckFailed(`pagesnap mcp --port ${port} exited early with ${child.exitCode}`);
        const up = await new Promise((resolve) => {
            const sock = net.connect({ host: '127.0.0.1', port });
            sock.once('connect', () => { sock.destroy(); resolve(true); });
            sock.once('error', () => resolve(false));
        });
        if (up) return;
        await new Promise((r) => setTimeout(r, 50));
    }
    throw new CheckFailed(`pagesnap mcp did not listen on port ${port}`);
}

function postWithOrigin(url, origin) {
    return new Promise((resolve, reject) => {
        const req = http.request(url, {
            method: 'POST',
            headers: { Origin: origin, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
            timeout: 5000,
        }, (res) => { res.resume(); resolve(res.statusCode); });
        req.on('timeout', () => req.destroy(new Error('timed out')));
        req.on('error', reject);
        req.end('{}');
    });
}

function waitExit(child, ms) {
    if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
    return new Promise((resolve) => {
        const t = setTimeout(() => resolve(false), ms);
        child.once('exit', () => { clearTimeout(t); resolve(true); });
    });
}

// Two sessions at once: each in its own browser context (cookies, storage, tabs), their calls side
// by side; a client that vanishes mid-call leaves the others answering.
async function sessionsApart(url) {
    const open = async () => {
        const c = new Client({ name: 'pagesnap-ts-session', version: '1.0.0' });
        const t = new StreamableHTTPClientTransport(new URL(url));
        await c.connect(t);
        return [c, t];
    };
    const [[a, ta], [b, tb]] = await Promise.all([open(), open()]);
    const page = `${BASE}/sessions/whoami.html`;
    await Promise.all([ok(a, 'page_navigate', { url: `${page}?set=ada` }), ok(b, 'page_navigate', { url: `${page}?set=bob` })]);
    const [seenA, seenB] = await Promise.all([ok(a, 'page_navigate', { url: page }), ok(b, 'page_navigate', { url: page })]);
    check(textOf(seenA).includes('Cookie: ada') && textOf(seenA).includes('Storage: ada'), 'session a keeps its own cookie and storage', textOf(seenA));
    check(textOf(seenB).includes('Cookie: bob') && textOf(seenB).includes('Storage: bob'), 'session b keeps its own cookie and storage', textOf(seenB));
    const [tabsA, tabsB] = await Promise.all([ok(a, 'page_tabs', { op: 'list' }), ok(b, 'page_tabs', { op: 'list' })]);
    const idsA = tabsA.structuredContent.tabs.map((t) => t.id);
    const idsB = tabsB.structuredContent.tabs.map((t) => t.id);
    check(idsA.length === 1 && idsB.length === 1 && idsA[0] !== idsB[0], 'each session lists only its own tab', [idsA, idsB]);
    await fails(b, 'page_tabs', { op: 'select', id: idsA[0] }, 'no-tab');
    // A third client starts a long call and vanishes (no DELETE): the others go on.
    const [c, tc] = await open();
    await ok(c, 'page_navigate', { url: `${page}?set=cy` });
    const pending = call(c, 'page_wait', { ms: 5000 }).catch(() => null);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await tc.close();
    await pending;
    const [againA, againB] = await Promise.all([ok(a, 'page_snapshot', {}), ok(b, 'page_snapshot', {})]);
    check(textOf(againA).includes('Cookie: ada') && textOf(againB).includes('Cookie: bob'), 'a vanished client leaves the other sessions answering', [textOf(againA), textOf(againB)]);
    for (const [client, transport] of [[a, ta], [b, tb]]) {
        await transport.terminateSession();
        await client.close();
    }
}

async function main() {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'pagesnap-mcp-ts-'));
    const secretsFile = path.join(tmp, 'secrets.env');
    writeFileSync(secretsFile, 'ORDER_CODE=order-code-7781\n');
    const uploads = path.join(tmp, 'uploads');
    mkdirSync(uploads);
    writeFileSync(path.join(uploads, 'resume.pdf'), '%PDF-1.4 a résumé');
    const args = ['mcp', '--secrets', secretsFile, '--timeout', '8', '--upload-dir', uploads];
    // pagesnap's own settings (PAGESNAP_CHROMIUM, ...) pass through the SDK's trimmed environment.
    const ownEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('PAGESNAP_')));
    let log = '';
    const client = new Client({ name: 'pagesnap-ts-client-test', version: '1.0.0' });
    let server = null;
    let transport = null;
    try {
        if (MODE === 'stdio') {
            transport = new StdioClientTransport({
                command: PAGESNAP, args, env: { ...getDefaultEnvironment(), ...ownEnv }, stderr: 'pipe',
            });
            transport.stderr.on('data', (chunk) => { log += chunk.toString(); });
            await client.connect(transport);
            await scenario(client);
            await dialogs(client);
            await actions(client);
            await client.close();
            transport = null;
        } else {
            const port = await freePort();
            server = spawn(PAGESNAP, [...args, '--port', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
            server.stderr.on('data', (chunk) => { log += chunk.toString(); });
            const url = `http://127.0.0.1:${port}/mcp`;
            await waitForPort(port, server);
            transport = new StreamableHTTPClientTransport(new URL(url));
            await client.connect(transport);
            check(typeof transport.sessionId === 'string' && transport.sessionId.length > 0, 'the server issues an Mcp-Session-Id');
            await scenario(client);
            await dialogs(client);
            await actions(client);
            await transport.terminateSession();
            await client.close();
            transport = null;
            await sessionsApart(url);
            // A foreign Origin is refused (DNS rebinding), and the server keeps serving.
            const status = await postWithOrigin(url, 'http://evil.example');
            check(status === 403, 'a foreign Origin is refused with 403', status);
            check(server.exitCode === null, 'the server still runs after the refused request');
        }
    } finally {
        if (transport) await client.close().catch(() => {});
        if (server) {
            server.kill('SIGTERM');
            if (!(await waitExit(server, 20_000))) {
                server.kill('SIGKILL');
                await waitExit(server, 5_000);
            }
        }
        httpd.closeAllConnections();
        await new Promise((resolve) => httpd.close(resolve));
        rmSync(tmp, { recursive: true, force: true });
    }
    for (const secret of [...SECRETS, 'order-code-7781']) {
        check(!log.includes(secret), "no secret in the server's stderr", secret);
    }
    console.log(`ok: ${CHECKS} checks (${MODE})`);
}

try {
    await main();
    process.exit(0);
} catch (err) {
    if (err instanceof CheckFailed) {
        console.error(`FAIL (${MODE}, after ${CHECKS} checks): ${err.message}`);
    } else {
        console.error(`ERROR (${MODE}, after ${CHECKS} checks): ${err?.stack ?? err}`);
    }
    process.exit(1);
}
