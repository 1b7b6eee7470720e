// A small MCP Apps host for the end-to-end tests, built on the official host side of the extension
// (AppBridge and PostMessageTransport of @modelcontextprotocol/ext-apps) and the official TypeScript
// client (@modelcontextprotocol/client), bundled by esbuild in `just e2e`.
//
// `runHost` does what a host such as Claude or VS Code does for a tool with `_meta.ui.resourceUri`: it
// connects to the server advertising the extension, lists the tools, reads the view's resource, renders it
// in a sandboxed iframe (scripts only, opaque origin) under a Content-Security-Policy without 'unsafe-eval'
// or any network, answers `ui/initialize`, calls the tool as the model would, and sends the view the tool
// input and result. Tool calls the view makes go to the server through the bridge; they and their
// answers are recorded in `window.hostState`.
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const EXTENSION_ID = "io.modelcontextprotocol/ui";
const VIEW_MIME_TYPE = "text/html;profile=mcp-app";
// What the hosts' sandboxes allow a view that declares no CSP domains: its own inline code and styles.
const VIEW_POLICY = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:";
const HOST_INFO = { name: "lac-e2e-host", version: "1.0.0" };

window.runHost = async ({ serverUrl, tool, args, locale }) => {
  const client = new Client(HOST_INFO, {
    capabilities: { extensions: { [EXTENSION_ID]: { mimeTypes: [VIEW_MIME_TYPE] } } },
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(serverUrl)));
  const serverExtensions = client.getServerCapabilities().extensions || {};
  const { tools } = await client.listTools();
  const listed = tools.find((entry) => entry.name === tool);
  const uri = listed._meta.ui.resourceUri;
  const { contents } = await client.readResource({ uri });
  const view = contents[0];

  const iframe = document.createElement("iframe");
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.style.cssText = "width: 960px; height: 1500px; border: 1px solid #ccc";
  document.body.append(iframe);
  const bridge = new AppBridge(
    client,
    HOST_INFO,
    { openLinks: {}, serverTools: {}, serverResources: {}, logging: {} },
    { hostContext: { toolInfo: { tool: listed }, locale, theme: "light", displayMode: "inline", platform: "web" } },
  );
  const sizes = [];
  bridge.onsizechange = (params) => {
    sizes.push(params);
    if (params.height) iframe.style.height = `${params.height}px`;
  };
  const initialized = new Promise((resolve) => {
    bridge.oninitialized = resolve;
  });
  // Connected before the view loads, so that its first message (`ui/initialize`) is heard.
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  const calls = [];
  const answers = [];
  const forward = bridge.oncalltool;
  bridge.oncalltool = async (params, extra) => {
    calls.push(params);
    const answer = await forward(params, extra);
    answers.push(answer);
    return answer;
  };
  iframe.srcdoc = view.text.replace(
    "<head>",
    `<head><meta http-equiv="Content-Security-Policy" content="${VIEW_POLICY}">`,
  );
  await initialized;

  const result = await client.callTool({ name: tool, arguments: args });
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(result);
  window.hostState = { calls, answers, sizes };
  return {
    serverExtensions,
    tools: tools.map((entry) => ({
      name: entry.name,
      resourceUri: (entry._meta && entry._meta.ui && entry._meta.ui.resourceUri) || null,
      visibility: (entry._meta && entry._meta.ui && entry._meta.ui.visibility) || null,
    })),
    viewMimeType: view.mimeType,
    viewBytes: view.text.length,
    structuredContentKeys: Object.keys(result.structuredContent || {}),
  };
};
