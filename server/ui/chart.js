// The chart view of the LAC governed-data corpus: a View of the MCP Apps extension
// (io.modelcontextprotocol/ui, revision 2026-01-26) that draws a charting tool's answer (chart, table,
// each number's citation and source link) for the person, outside the model's context.
//
// In a host: `ui/initialize` → `ui/notifications/initialized`; then the host's
// `ui/notifications/tool-input` (the model's arguments) and `ui/notifications/tool-result` (the compact
// answer). The view asks the server, through the host, for the answer's full chart data with the app-only
// tool `get_chart_data`, and falls back to the result's own display (`_meta["lac-corpus/display"]`) when the
// host proxies no tool calls. Standalone (the catalog's chart page), the server embeds that chart data in
// `#chart-data` with the page's links (`page`: the catalog and the indicator's files), and no host is
// involved. Table cells a publisher projected or estimated (`tables[].marks`) are marked, with a note.
//
// Charts are drawn by vega-embed with vega's expression interpreter (`ast: true`), so the page runs under
// a Content-Security-Policy without 'unsafe-eval'. Strings follow the person's language: the tool's `lang`
// argument, else the host's locale, else Spanish.
(function () {
  "use strict";

  const APP_INFO = { name: "lac-corpus-chart", version: "1.0.0" };
  const PROTOCOL_VERSION = "2026-01-26";
  const DISPLAY_META_KEY = "lac-corpus/display";

  const TEXT = {
    es: {
      waiting: "Esperando la respuesta de la herramienta…",
      loading: "Cargando el gráfico…",
      tables: "Tabla de datos",
      citations: "Citas de cada número",
      sources: "Fuentes",
      points: "valores anuales; cita de cada uno:",
      noChart: "Esta respuesta no tiene gráfico.",
      error: "La herramienta respondió con un error:",
      cancelled: "La llamada a la herramienta se canceló.",
      unavailable: "Los datos del gráfico no están disponibles.",
      truncated: "Lista recortada.",
      licence: "licencia",
      derived: "cifra derivada: resolve_citations da sus insumos",
      summary: "Resultado",
      vintage: "edición",
      projection: "proyección",
      estimate: "estimación",
      projectionNote: "p: proyección de la fuente, no una observación.",
      estimateNote: "e: estimación de la fuente para un año pasado, que revisará.",
      catalog: "Catálogo de indicadores",
      downloads: "Descargar los datos:",
    },
    en: {
      waiting: "Waiting for the tool's answer…",
      loading: "Loading the chart…",
      tables: "Data table",
      citations: "Each number's citation",
      sources: "Sources",
      points: "yearly values; each one's citation:",
      noChart: "This answer has no chart.",
      error: "The tool answered with an error:",
      cancelled: "The tool call was cancelled.",
      unavailable: "The chart data is not available.",
      truncated: "List cut short.",
      licence: "licence",
      derived: "derived figure: resolve_citations gives its inputs",
      summary: "Result",
      vintage: "vintage",
      projection: "projection",
      estimate: "estimate",
      projectionNote: "p: the source's projection, not an observation.",
      estimateNote: "e: the source's estimate of a past year, which it will revise.",
      catalog: "Indicator catalogue",
      downloads: "Download the data:",
    },
    pt: {
      waiting: "Aguardando a resposta da ferramenta…",
      loading: "Carregando o gráfico…",
      tables: "Tabela de dados",
      citations: "Citação de cada número",
      sources: "Fontes",
      points: "valores anuais; citação de cada um:",
      noChart: "Esta resposta não tem gráfico.",
      error: "A ferramenta respondeu com um erro:",
      cancelled: "A chamada da ferramenta foi cancelada.",
      unavailable: "Os dados do gráfico não estão disponíveis.",
      truncated: "Lista cortada.",
      licence: "licença",
      derived: "número derivado: resolve_citations dá seus insumos",
      summary: "Resultado",
      vintage: "edição",
      projection: "projeção",
      estimate: "estimativa",
      projectionNote: "p: projeção da fonte, não uma observação.",
      estimateNote: "e: estimativa da fonte para um ano passado, que ela revisará.",
      catalog: "Catálogo de indicadores",
      downloads: "Baixar os dados:",
    },
  };

  // What a table's marked cells are (`marks[].kind`): the letter after the value and the note's key.
  const MARKS = { projection: "p", estimate: "e" };

  // The names of the download formats (`downloads[].format`); another format shows its own id.
  const FORMAT_NAMES = {
    csv: "CSV", wide_csv: "CSV (wide)", csv_gz: "CSV.gz", xlsx: "Excel", parquet: "Parquet",
    sdmx_ml: "SDMX-ML", sdmx_csv: "SDMX-CSV 2.0", sdmx_csv_1: "SDMX-CSV 1.0", zip: "ZIP",
    datapackage: "Data Package", json: "JSON",
  };

  // d3-format locales for vega's number formatting (axis labels) in each language.
  const FORMAT_LOCALES = {
    es: { decimal: ",", thousands: ".", grouping: [3], currency: ["", " $"] },
    pt: { decimal: ",", thousands: ".", grouping: [3], currency: ["R$ ", ""] },
    en: { decimal: ".", thousands: ",", grouping: [3], currency: ["$", ""] },
  };

  let lang = langOf(document.documentElement.lang) || "es";
  let langFromArguments = false;
  // Where a citation id resolves over HTTP (`/api/v1/citations/`): set on the server's own chart pages,
  // absent inside an MCP host.
  let citationBase = null;
  let hostContext = {};
  let hostCapabilities = {};
  let toolArguments = {};

  const byId = (id) => document.getElementById(id);
  const text = (key) => (TEXT[lang] || TEXT.es)[key];

  function langOf(value) {
    const code = String(value || "").slice(0, 2).toLowerCase();
    return Object.prototype.hasOwnProperty.call(TEXT, code) ? code : null;
  }

  function element(tag, content, attributes) {
    const node = document.createElement(tag);
    if (content !== undefined && content !== null) node.textContent = String(content);
    for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, value);
    return node;
  }

  function setStatus(message) {
    byId("status").textContent = message;
  }

  // ---- The host connection (the View side of the extension's postMessage JSON-RPC) ----

  const host = window.parent !== window ? window.parent : null;
  const pending = new Map();
  let nextId = 1;

  function send(message) {
    host.postMessage(Object.assign({ jsonrpc: "2.0" }, message), "*");
  }

  function request(method, params) {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      send({ id, method, params });
    });
  }

  function notify(method, params) {
    send({ method, params: params || {} });
  }

  function onMessage(event) {
    if (event.source !== host) return;
    const message = event.data;
    if (!message || message.jsonrpc !== "2.0") return;
    if (message.method === undefined) {
      const waiting = pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id);
      if (message.error) waiting.reject(new Error(message.error.message || "error"));
      else waiting.resolve(message.result);
      return;
    }
    if (message.id !== undefined) {
      // Requests from the host: teardown and ping need only an answer.
      if (message.method === "ui/resource-teardown" || message.method === "ping") {
        send({ id: message.id, result: {} });
      } else {
        send({ id: message.id, error: { code: -32601, message: "method not found: " + message.method } });
      }
      return;
    }
    onNotification(message.method, message.params || {});
  }

  function onNotification(method, params) {
    switch (method) {
      case "ui/notifications/tool-input":
        toolArguments = params.arguments || {};
        if (langOf(toolArguments.lang)) {
          lang = langOf(toolArguments.lang);
          langFromArguments = true;
        }
        setStatus(text("loading"));
        break;
      case "ui/notifications/tool-result":
        show(params).catch((error) => setStatus(text("unavailable") + " " + error.message));
        break;
      case "ui/notifications/tool-cancelled":
        setStatus(text("cancelled"));
        break;
      case "ui/notifications/host-context-changed":
        applyHostContext(Object.assign(hostContext, params));
        break;
      default:
        break;
    }
  }

  function applyHostContext(context) {
    hostContext = context || {};
    if (!langFromArguments && langOf(hostContext.locale)) lang = langOf(hostContext.locale);
    document.documentElement.dataset.theme = hostContext.theme === "dark" ? "dark" : "light";
    const variables = (hostContext.styles && hostContext.styles.variables) || {};
    for (const [name, value] of Object.entries(variables)) {
      if (name.startsWith("--") && typeof value === "string") {
        document.documentElement.style.setProperty(name, value);
      }
    }
  }

  async function connect() {
    window.addEventListener("message", onMessage);
    const initialized = await request("ui/initialize", {
      appInfo: APP_INFO,
      appCapabilities: {},
      protocolVersion: PROTOCOL_VERSION,
    });
    hostCapabilities = initialized.hostCapabilities || {};
    applyHostContext(initialized.hostContext);
    setStatus(text("waiting"));
    notify("ui/notifications/initialized");
    if (typeof ResizeObserver === "function") {
      new ResizeObserver(reportSize).observe(document.documentElement);
    }
  }

  function reportSize() {
    if (!host) return;
    // The content's own size, not the frame's (scrollHeight is at least the frame's height).
    const box = document.documentElement.getBoundingClientRect();
    notify("ui/notifications/size-changed", {
      width: Math.ceil(box.width),
      height: Math.ceil(box.height),
    });
  }

  function errorText(result) {
    if (!result) return "";
    const structured = result.structuredContent;
    if (structured && structured.result && structured.result.error) return structured.result.error;
    const block = (result.content || []).find((item) => item.type === "text");
    return block ? block.text : "";
  }

  // The answer's chart data: from the app-only tool when the host proxies tool calls, else the result's
  // own display.
  async function show(result) {
    if (result.isError) {
      setStatus(text("error") + " " + errorText(result));
      return;
    }
    const toolInfo = hostContext.toolInfo || {};
    const toolName = toolInfo.tool && toolInfo.tool.name;
    let data = null;
    let reason = "";
    if (toolName && hostCapabilities.serverTools) {
      try {
        const answer = await request("tools/call", {
          name: "get_chart_data",
          arguments: { tool: toolName, arguments: withoutLang(toolArguments), lang },
        });
        if (answer && !answer.isError && answer.structuredContent) data = answer.structuredContent;
        else reason = errorText(answer);
      } catch (error) {
        reason = error.message;
      }
    }
    data = data || fromToolResult(result, toolName);
    if (data) data.answer = result.structuredContent && result.structuredContent.result;
    if (!data) {
      setStatus(text("unavailable") + (reason ? " " + reason : ""));
      return;
    }
    await render(data);
  }

  function withoutLang(argumentsObject) {
    const copy = Object.assign({}, argumentsObject);
    delete copy.lang;
    return copy;
  }

  // The chart data rebuilt from a tool result's display (`_meta`) and citations, series by series.
  function fromToolResult(result, toolName) {
    const display = result._meta && result._meta[DISPLAY_META_KEY];
    if (!display) return null;
    const citations = (result.structuredContent && result.structuredContent.citations) || {};
    const tables = display.tables || [];
    const message = (result.content || []).find(
      (item) => item.type === "text" && item.annotations && (item.annotations.audience || []).includes("user"),
    );
    return {
      result: {
        tool: toolName || "",
        message: message ? message.text : null,
        charts: (display.charts || []).map((chart) => selfContained(chart, tables)),
        tables,
        links: display.links || [],
        cited: Object.keys(citations.series || {}).map((id) => ({ id, series_id: id })),
        cited_truncated: false,
      },
      citations,
    };
  }

  // A chart drawing `tables[N]` (data named `table:N`) with the table's rows as top-level `datasets`.
  function selfContained(chart, tables) {
    const name = chart.data && chart.data.name;
    const index = name && name.startsWith("table:") ? Number(name.slice(6)) : NaN;
    const table = tables[index];
    if (!table || (chart.datasets && chart.datasets[name])) return chart;
    const rows = table.rows.map((cells) => {
      const row = {};
      table.columns.forEach((column, at) => {
        if (cells[at] !== null && cells[at] !== undefined) row[column] = cells[at];
      });
      return row;
    });
    return Object.assign({}, chart, { datasets: { [name]: rows } });
  }

  // ---- Rendering ----

  // The server's own chart page: links to the catalog and to the indicator's files (`page`), above the
  // chart. Inside a host there are none.
  function renderPageLinks(page) {
    const box = byId("page-links");
    box.replaceChildren();
    box.hidden = !page;
    if (!page) return;
    if (page.catalog) {
      const item = element("p");
      item.append(link(page.catalog, text("catalog"), true));
      box.append(item);
    }
    const downloads = page.downloads || [];
    if (downloads.length) {
      const item = element("p", text("downloads") + " ", { class: "downloads" });
      downloads.forEach((file, at) => {
        if (at) item.append(" · ");
        item.append(link(file.url, FORMAT_NAMES[file.format] || file.format, true));
      });
      box.append(item);
    }
  }

  async function render(data) {
    const answer = data.result || {};
    const citations = data.citations || {};
    document.documentElement.lang = lang;
    const charts = answer.charts || [];
    const tables = answer.tables || [];
    const first = (tables[0] && tables[0].title) || (charts[0] && charts[0].title) || "";
    byId("title").textContent = typeof first === "string" ? first : first.text || "";
    byId("message").textContent = answer.message || "";
    const box = byId("charts");
    box.replaceChildren();
    if (!charts.length && !tables.length) {
      box.append(summary(data.answer));
    } else if (!charts.length) {
      box.append(element("p", text("noChart"), { class: "note" }));
    }
    for (const spec of charts) {
      const figure = element("figure");
      const target = element("div");
      figure.append(target);
      box.append(figure);
      await vegaEmbed(target, sized(spec), {
        renderer: "svg",
        actions: false,
        ast: true,
        expr: vegaInterpreter.expressionInterpreter,
        formatLocale: FORMAT_LOCALES[lang],
        theme: document.documentElement.dataset.theme === "dark" ? "dark" : undefined,
      });
    }
    renderTables(tables);
    renderCitations(answer.cited || [], citations, answer.cited_truncated);
    renderSources(citations.sources || {}, answer.links || []);
    setStatus("");
    document.body.dataset.rendered = String(charts.length);
    reportSize();
  }

  // An answer without chart or table (a `compute` change, say): its own top-level figures.
  function summary(answer) {
    const box = element("section");
    box.append(element("h2", text("summary")));
    const list = element("dl");
    const number = new Intl.NumberFormat(lang, { maximumFractionDigits: 4 });
    for (const [name, value] of Object.entries(answer || {})) {
      if (value === null || typeof value === "object") continue;
      list.append(element("dt", name));
      list.append(element("dd", typeof value === "number" && !/year/.test(name) ? number.format(value) : value));
    }
    if (!list.childElementCount) return element("p", text("noChart"), { class: "note" });
    box.append(list);
    return box;
  }

  // A chart as wide as the view, unless its specification sets a width.
  function sized(spec) {
    return spec.width === undefined ? Object.assign({ width: "container" }, spec) : spec;
  }

  function renderTables(tables) {
    const box = byId("tables-box");
    const holder = byId("tables");
    holder.replaceChildren();
    box.hidden = tables.length === 0;
    byId("tables-label").textContent = text("tables");
    const number = new Intl.NumberFormat(lang, { maximumFractionDigits: 3 });
    for (const table of tables) {
      // `marks`: the cells that hold a projection or an estimate, by column and kind.
      const marked = new Map();
      for (const mark of table.marks || []) {
        for (const row of mark.rows) marked.set(row + ":" + mark.column, mark.kind);
      }
      const wrap = element("div", null, { class: "table-wrap" });
      const node = element("table");
      node.append(element("caption", table.title));
      const head = element("tr");
      table.columns.forEach((column) => head.append(element("th", column, { scope: "col" })));
      const thead = element("thead");
      thead.append(head);
      node.append(thead);
      const body = element("tbody");
      table.rows.forEach((cells, rowAt) => {
        const row = element("tr");
        cells.forEach((cell, at) => {
          const plain = at === 0 || typeof cell !== "number" || /^(year|rank)$/i.test(table.columns[at]);
          const td = element("td", cell === null ? "–" : plain ? cell : number.format(cell));
          const kind = cell === null ? undefined : marked.get(rowAt + ":" + at);
          if (MARKS[kind]) {
            td.classList.add(kind);
            td.append(" ", element("sup", MARKS[kind], { title: text(kind) }));
          }
          row.append(td);
        });
        body.append(row);
      });
      node.append(body);
      wrap.append(node);
      holder.append(wrap);
      const kinds = new Set(marked.values());
      for (const kind of Object.keys(MARKS).filter((kind) => kinds.has(kind))) {
        holder.append(element("p", text(kind + "Note"), { class: "note mark-note" }));
      }
    }
  }

  function renderCitations(cited, citations, truncated) {
    const list = byId("citations");
    list.replaceChildren();
    byId("citations-box").hidden = cited.length === 0;
    byId("citations-label").textContent = text("citations");
    const series = citations.series || {};
    const indicators = citations.indicators || {};
    const number = new Intl.NumberFormat(lang, { maximumFractionDigits: 6 });
    for (const entry of cited) {
      const record = series[entry.series_id] || {};
      const indicator = indicators[record.indicator] || {};
      const item = element("li", null, { "data-citation-id": entry.id });
      // On the server's own page each value's id opens its citation (`/api/v1/citations/{id}`).
      const resolvable = entry.years ? null : entry.id;
      if (citationBase && resolvable && entry.series_id) {
        const anchor = link(citationBase + encodeURIComponent(resolvable), "");
        anchor.append(element("code", entry.id));
        item.append(anchor, " ");
      } else {
        item.append(element("code", entry.id), " ");
      }
      const parts = [];
      if (indicator.title) parts.push(indicator.title);
      if (record.country) parts.push(record.country);
      if (entry.value !== undefined) parts.push(number.format(entry.value) + (indicator.unit ? " " + indicator.unit : ""));
      if (entry.years) {
        parts.push(entry.years[0] + "–" + entry.years[1] + ", " + entry.points + " " + text("points"));
      }
      item.append(parts.join(" · "));
      if (entry.years) {
        // The pattern every point's id follows; on the server's page the latest point's id is linked, by
        // its own name (a link never stands for the ids it does not open).
        item.append(" ", element("code", entry.id + "-{year}"));
        if (citationBase) {
          const latest = entry.id + "-" + entry.years[1];
          const anchor = link(citationBase + encodeURIComponent(latest), "");
          anchor.append(element("code", latest));
          item.append(" · ", anchor);
        }
      }
      if (!entry.series_id) item.append(text("derived"));
      if (record.url) {
        item.append(" ");
        item.append(link(record.url, new URL(record.url).hostname));
      }
      list.append(item);
    }
    if (truncated) list.append(element("li", text("truncated"), { class: "note" }));
  }

  function renderSources(sources, links) {
    const list = byId("sources");
    list.replaceChildren();
    byId("sources-label").textContent = text("sources");
    for (const source of Object.values(sources)) {
      const item = element("li");
      const name = [source.publisher, source.dataset].filter(Boolean).join(", ");
      item.append(source.homepage ? link(source.homepage, name) : name);
      const details = [];
      if (source.license) details.push(text("licence") + " " + source.license);
      if (source.vintage) details.push(text("vintage") + " " + source.vintage);
      if (details.length) item.append(" (" + details.join(", ") + ")");
      list.append(item);
    }
    for (const entry of links) {
      const item = element("li");
      item.append(link(entry.url, entry.title));
      list.append(item);
    }
  }

  // A link the host opens (`ui/open-link`) when the view is sandboxed in one; `here`: one the page
  // opens in its own tab (the server's catalog and files).
  function link(url, label, here) {
    const anchor = here
      ? element("a", label, { href: url })
      : element("a", label, { href: url, rel: "noopener noreferrer", target: "_blank" });
    if (host && hostCapabilities.openLinks) {
      anchor.addEventListener("click", (event) => {
        event.preventDefault();
        request("ui/open-link", { url }).catch(() => {});
      });
    }
    return anchor;
  }

  // ---- Start ----

  const embedded = byId("chart-data").textContent.trim();
  if (embedded) {
    const data = JSON.parse(embedded);
    lang = langOf(data.lang) || lang;
    citationBase = data.citation_base || null;
    renderPageLinks(data.page);
    render(data.chart).catch((error) => setStatus(text("unavailable") + " " + error.message));
  } else if (host) {
    connect().catch((error) => setStatus(text("unavailable") + " " + error.message));
  } else {
    setStatus(text("unavailable"));
  }
})();
