#!/usr/bin/env node
// Runs the pagesnap binary from this platform's package: one of the optional dependencies
// (@pagesnap/<os>-<cpu>, each declaring its os and cpu, so npm installs only the one that fits), as
// esbuild and agent-browser ship theirs. Arguments, the standard streams (an MCP client's stdio), signals
// and the exit status pass through. $PAGESNAP_BINARY overrides the search.
"use strict";
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const key = `${process.platform}-${process.arch}`;
const exe = process.platform === "win32" ? "pagesnap.exe" : "pagesnap";

function binary() {
  if (process.env.PAGESNAP_BINARY) return process.env.PAGESNAP_BINARY;
  const name = `@pagesnap/${key}`;
  const declared = require("../package.json").optionalDependencies || {};
  if (!(name in declared)) {
    fail(`pagesnap has no build for ${key} (there are: ${Object.keys(declared).map((d) => d.split("/")[1]).join(", ")}); ` +
      "build it from source (cargo install --path harness) and set PAGESNAP_BINARY to it");
  }
  let manifest;
  try {
    manifest = require.resolve(`${name}/package.json`);
  } catch {
    fail(`the package ${name} is not installed beside pagesnap (npm leaves optional dependencies out with ` +
      `--omit=optional or --no-optional); install it: npm install ${name}@${declared[name]}`);
  }
  const found = path.join(path.dirname(manifest), "bin", exe);
  if (!fs.existsSync(found)) fail(`${name} is installed but holds no ${path.join("bin", exe)} (looked at ${found})`);
  return found;
}

function fail(message) {
  process.stderr.write(`pagesnap: ${message}\n`);
  process.exit(1);
}

const child = spawn(binary(), process.argv.slice(2), { stdio: "inherit", windowsHide: true });
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("error", (err) => fail(`could not run ${err.path || "the binary"}: ${err.message}`));
child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, so the caller sees what the binary saw.
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else {
    process.exit(code ?? 1);
  }
});
