// The console page: reads the gateway's event stream (/console/events) and renders it. Plain DOM,
// text only (textContent, never HTML from data), no inline script or style (the CSP forbids both).
"use strict";

/** Audit records the page keeps (newest first); older ones fall off. */
const AUDIT_KEEP = 500;
const LIMITED = new Set(["rate_limited", "quota_exceeded", "concurrency_limited", "limits_unavailable"]);

const state = {
  audit: [],
  clients: new Set(),
  decisions: new Set(),
  chart: null,
  chartKey: "",
  renderQueued: false,
};

const $ = (id) => document.getElementById(id);

function outcomeOf(r) {
  if (LIMITED.has(r.decision)) return "limited";
  if (!r.allowed) return "denied";
  if (r.error !== "" || (r.outcome !== undefined && r.outcome !== "ok")) return "error";
  return "ok";
}

function cell(row, text, className) {
  const td = document.createElement("td");
  td.textContent = text;
  if (className) td.className = className;
  row.appendChild(td);
  return td;
}

function replaceRows(tbody, rows) {
  tbody.replaceChildren(...rows);
}

function fmt(n) {
  return n === null || n === undefined ? "–" : String(n);
}

function renderDownstreams(list, at) {
  replaceRows(
    $("downstreams").tBodies[0],
    list.map((d) => {
      const tr = document.createElement("tr");
      tr.dataset.name = d.name;
      cell(tr, d.name);
      cell(tr, d.state, `state-${d.state}`);
      cell(tr, d.transport);
      cell(tr, String(d.tools));
      cell(tr, String(d.restarts));
      let breaker = d.breaker === "" ? "unused" : d.breaker.replace("_", "-");
      if (d.halfOpensAt !== undefined) {
        breaker += ` (half-opens in ${Math.max(0, Math.ceil((d.halfOpensAt - at) / 1000))} s)`;
      }
      cell(tr, breaker, `breaker breaker-${d.breaker || "none"}`);
      return tr;
    }),
  );
}

function renderClients(list) {
  replaceRows(
    $("clients").tBodies[0],
    list.map((c) => {
      const tr = document.createElement("tr");
      cell(tr, c.id === "" ? "(unauthenticated)" : c.id);
      cell(tr, String(c.calls));
      cell(tr, String(c.denials));
      cell(tr, String(c.limited));
      cell(tr, String(c.errors));
      cell(tr, fmt(c.p50Ms));
      cell(tr, fmt(c.p99Ms));
      return tr;
    }),
  );
}

function renderChart(rates) {
  const names = Object.keys(rates.downstreams).sort();
  const n = names.length === 0 ? 0 : rates.downstreams[names[0]].calls.length;
  const xs = Array.from({ length: n }, (_, i) => rates.start + i);
  const data = [xs];
  for (const name of names) {
    data.push(rates.downstreams[name].calls, rates.downstreams[name].errors);
  }
  const key = names.join("\n");
  const box = $("chart");
  if (state.chart === null || state.chartKey !== key) {
    state.chart?.destroy();
    const palette = ["#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#17becf", "#7f7f7f"];
    const series = [{}];
    names.forEach((name, i) => {
      const color = palette[i % palette.length];
      series.push({ label: `${name} calls/s`, stroke: color, width: 2 });
      series.push({ label: `${name} errors/s`, stroke: "#d62728", dash: [6, 4], width: 1.5 });
    });
    state.chart = new uPlot(
      {
        width: Math.max(300, box.clientWidth - 10),
        height: 220,
        series,
        axes: [{}, { label: "per second" }],
      },
      data,
      box,
    );
    state.chartKey = key;
  } else {
    state.chart.setData(data);
  }
}

function addOption(select, set, value, label) {
  if (set.has(value)) return;
  set.add(value);
  const option = document.createElement("option");
  option.value = value;
  option.textContent = label;
  select.appendChild(option);
}

function onAudit(batch) {
  // A batch is oldest first; the table is newest first.
  for (const r of batch.records) {
    state.audit.unshift(r);
    addOption(
      $("filter-client"),
      state.clients,
      r.client_id,
      r.client_id === "" ? "(unauthenticated)" : r.client_id,
    );
    addOption($("filter-decision"), state.decisions, r.decision, r.decision);
  }
  if (state.audit.length > AUDIT_KEEP) state.audit.length = AUDIT_KEEP;
  scheduleAudit();
}

function scheduleAudit() {
  if (state.renderQueued) return;
  state.renderQueued = true;
  setTimeout(() => {
    state.renderQueued = false;
    renderAudit();
  }, 0);
}

function renderAudit() {
  const client = $("filter-client").value;
  const clientSet = client !== "" || $("filter-client").selectedIndex > 0;
  const tool = $("filter-tool").value.trim().toLowerCase();
  const decision = $("filter-decision").value;
  const outcome = $("filter-outcome").value;
  const rows = [];
  for (const r of state.audit) {
    if (clientSet && r.client_id !== client) continue;
    if (tool !== "" && !r.tool_name.toLowerCase().includes(tool)) continue;
    if (decision !== "" && r.decision !== decision) continue;
    const o = outcomeOf(r);
    if (outcome !== "" && o !== outcome) continue;
    const tr = document.createElement("tr");
    if (r.tool_name !== "") {
      tr.className = "explainable";
      tr.addEventListener("click", () => explain(r.client_id, r.tool_name));
    }
    cell(tr, r.timestamp.replace("T", " ").replace("Z", ""));
    cell(tr, r.client_id === "" ? "(unauthenticated)" : r.client_id, "client");
    cell(tr, r.tool_name, "tool");
    cell(tr, r.decision, "decision");
    cell(tr, o, `outcome outcome-${o}`);
    cell(tr, r.latency_ms.toFixed(1));
    cell(tr, r.error, "error-text");
    rows.push(tr);
  }
  replaceRows($("audit").tBodies[0], rows);
  $("audit-count").textContent = `(${rows.length} shown of the newest ${state.audit.length})`;
}

async function explain(client, tool) {
  const box = $("explain");
  box.hidden = false;
  $("explain-title").textContent = `${client === "" ? "(unauthenticated)" : client} → ${tool}`;
  $("explanation").textContent = "…";
  const query = new URLSearchParams({ client, tool });
  const res = await fetch(`/console/explain?${query}`);
  if (!res.ok) {
    $("explanation").textContent = `no explanation (${res.status})`;
    return;
  }
  const e = await res.json();
  $("explanation").textContent = [`decision: ${e.decision} (${e.reason})`, ...e.lines].join("\n");
}

function onConfig(event) {
  $("config").textContent = JSON.stringify(event.config, null, 2);
  const reload = event.reload;
  if (reload === null) return;
  const when = new Date(reload.at).toISOString().replace("T", " ").replace(/\.\d+Z$/, "");
  if (!reload.ok) {
    $("reload").textContent = `Last reload (${when}) failed: ${reload.error}`;
    return;
  }
  const d = reload.diff;
  const parts = [];
  for (const k of ["started", "restarted", "stopped", "ignored"]) {
    if (d[k].length > 0) parts.push(`${k}: ${d[k].join(", ")}`);
  }
  $("reload").textContent = `Last reload (${when}) applied${
    parts.length ? `; ${parts.join("; ")}` : "; nothing changed"
  }`;
}

function connect() {
  const source = new EventSource("/console/events");
  source.onopen = () => ($("status").textContent = "live");
  source.onerror = () => {
    $("status").textContent = "disconnected";
    // Refused (the session ended): the page itself then shows the login form.
    if (source.readyState === EventSource.CLOSED) setTimeout(() => location.reload(), 1000);
  };
  source.addEventListener("config", (e) => onConfig(JSON.parse(e.data)));
  source.addEventListener("audit", (e) => onAudit(JSON.parse(e.data)));
  source.addEventListener("figures", (e) => {
    const f = JSON.parse(e.data);
    renderDownstreams(f.downstreams, f.at);
    renderClients(f.clients);
    renderChart(f.rates);
  });
}

for (const id of ["filter-client", "filter-decision", "filter-outcome"]) {
  $(id).addEventListener("change", renderAudit);
}
$("filter-tool").addEventListener("input", renderAudit);
connect();
