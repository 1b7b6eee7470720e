// Calls every tool of the server with the official TypeScript MCP client (@modelcontextprotocol/client,
// pinned in tests/e2e/apps_host/package-lock.json), which validates each result's structuredContent
// against the tool's outputSchema (an invalid one throws). Prints one JSON line: the era and version
// negotiated and, per call, the tool and whether it was an error result.
//
//   node call_every_tool.mjs URL legacy|auto CALLS_JSON
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const [url, mode, callsJson] = process.argv.slice(2);
const calls = JSON.parse(callsJson);
const client = new Client(
  { name: "lac-e2e-typescript", version: "1.0.0" },
  mode === "auto" ? { versionNegotiation: { mode: "auto" } } : {},
);
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const listed = (await client.listTools()).tools.map((tool) => tool.name);
const answered = [];
for (const [name, args] of calls) {
  const result = await client.callTool({ name, arguments: args });
  answered.push({ name, isError: Boolean(result.isError), structured: result.structuredContent !== undefined });
}
console.log(JSON.stringify({
  era: client.getProtocolEra(),
  version: client.getNegotiatedProtocolVersion(),
  listed,
  answered,
}));
await client.close();
