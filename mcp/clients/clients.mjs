// The official TypeScript clients against `curbi serve` (issue 9) or `curbi mcp --stdio` (issue 21): each connects,
// lists the tools and calls every public tool. Usage: node clients.mjs URL, or node clients.mjs --stdio CURBI (the
// client starts the command itself). Run by scripts/mcp-clients.sh, which installs the pinned packages.
import assert from "node:assert/strict";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport as StdioV1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioV2 } from "@modelcontextprotocol/client/stdio";

const stdio = process.argv[2] === "--stdio";
const command = { command: process.argv[3], args: ["mcp", "--stdio"] };
const url = stdio ? null : new URL(process.argv[2]);
const over = stdio ? "stdio" : "HTTP";
const PUBLIC = ["policy_check", "validate_policy", "search", "export_regression", "verify_bundle", "fetch"];
const STARTER = { policy: { prices: [{ item: "Starter", amount: 49 }] }, reply: "Starter is $99 a month." };
const CALLS = {
  policy_check: [STARTER, false],
  validate_policy: [{ policy: {} }, false],
  search: [{ query: "proof bundle inclusion" }, false],
  export_regression: [{ ...STARTER, title: "Starter price" }, false],
  // An empty bundle is unreadable: a tool error, which is still an answer from the proof verifier.
  verify_bundle: [{ bundle: {}, keys: {} }, true],
  fetch: [{ id: "doc:proof" }, false],
};

async function exercise(label, client, expectedVersion) {
  if (expectedVersion) assert.equal(client.getNegotiatedProtocolVersion(), expectedVersion, `${label}: version`);
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), PUBLIC, `${label}: tools/list`);
  for (const name of PUBLIC) {
    const [args, expectError] = CALLS[name];
    const result = await client.callTool({ name, arguments: args });
    assert.equal(result.isError ?? false, expectError, `${label}: ${name} isError`);
    assert.equal(result.content[0].type, "text", `${label}: ${name} content`);
    assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent, `${label}: ${name} structured`);
    if (name === "policy_check") assert.equal(result.structuredContent.findings[0].rule, "price:mismatch");
    if (name === "search") assert.equal(result.structuredContent.results[0].id, "doc:proof");
    if (name === "export_regression") assert.equal(result.structuredContent.regression.object, "curbi.regression");
  }
  await client.close();
  console.log(`ok - ${label}: listed ${tools.length} tools and called each`);
}

const v1 = new ClientV1({ name: "curbi-clients-test", version: "1" });
await v1.connect(stdio ? new StdioV1(command) : new TransportV1(url));
await exercise(`@modelcontextprotocol/sdk over ${over} (legacy handshake)`, v1);
assert.equal(v1.getServerVersion().name, "curbi-public");

// Legacy negotiates 2025-11-25 (its newest legacy version, echoed) through initialize; auto and the pin reach 2026-07-28, this server's newest.
for (const [mode, version] of [["legacy", "2025-11-25"], ["auto", "2026-07-28"], [{ pin: "2026-07-28" }, "2026-07-28"]]) {
  const client = new ClientV2({ name: "curbi-clients-test", version: "1" }, { versionNegotiation: { mode } });
  await client.connect(stdio ? new StdioV2(command) : new TransportV2(url));
  const label = `@modelcontextprotocol/client over ${over} (${typeof mode === "string" ? mode : "pinned " + mode.pin})`;
  await exercise(`${label}, ${client.getNegotiatedProtocolVersion()}`, client, version);
}
