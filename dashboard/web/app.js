// The streamsql dashboard: polls /api/state and /api/topology and draws
// the pipelines, a view's plan, its charts and the checkpoints. Plain
// JavaScript, no libraries: the binary embeds this file as it is.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const POLL_MS = 2000;
const TOPOLOGY_MS = 10000;
const COLORS = ["#2f6fdb", "#1b9a6c", "#d9822b", "#8a5cd6", "#c73c3c", "#0f8a9a", "#7a7f8c"];

const store = { topology: null, current: null, history: [], window: 900, lastT: null, topologyAt: 0 };

// el builds an HTML element: attributes, then children (strings become text).
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  setAttrs(e, attrs);
  for (const c of children.flat()) {
    if (c === null || c === undefined) continue;
    e.append(typeof c === "string" || typeof c === "number" ? String(c) : c);
  }
  return e;
}

// svg builds an SVG element the same way.
function svg(tag, attrs, ...children) {
  const e = document.createElementNS(SVGNS, tag);
  setAttrs(e, attrs);
  for (const c of children.flat()) {
    if (c === null || c === undefined) continue;
    e.append(typeof c === "string" || typeof c === "number" ? String(c) : c);
  }
  return e;
}

function setAttrs(e, attrs) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    e.setAttribute(k, String(v));
  }
}

function fmtNum(n) {
  if (n === null || n === undefined || Number.isNaN(n)) return "–";
  if (Math.abs(n) >= 1e9) return (n / 1e9).toFixed(2) + " G";
  if (Math.abs(n) >= 1e6) return (n / 1e6).toFixed(2) + " M";
  if (Math.abs(n) >= 1e4) return (n / 1e3).toFixed(1) + " k";
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

function fmtSeconds(s) {
  if (s === null || s === undefined) return "–";
  const a = Math.abs(s);
  if (a < 1) return (s * 1000).toFixed(0) + " ms";
  if (a < 120) return s.toFixed(1) + " s";
  if (a < 7200) return (s / 60).toFixed(1) + " min";
  if (a < 172800) return (s / 3600).toFixed(1) + " h";
  return (s / 86400).toFixed(1) + " d";
}

function fmtTime(sec) {
  if (sec === null || sec === undefined) return "–";
  return new Date(sec * 1000).toISOString().replace("T", " ").replace(/\.\d+Z$/, "");
}

function fmtBytes(b) {
  if (!b) return "0 B";
  const u = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  while (b >= 1024 && i < u.length - 1) { b /= 1024; i++; }
  return b.toFixed(i ? 1 : 0) + " " + u[i];
}

// rate is the per-second change of pick(sample) over the last two samples.
function rate(pick) {
  const h = store.history;
  if (h.length < 2) return null;
  const a = h[h.length - 2], b = h[h.length - 1];
  const va = pick(a), vb = pick(b);
  if (va === undefined || vb === undefined || b.t <= a.t) return null;
  return Math.max(0, (vb - va) / ((b.t - a.t) / 1000));
}

// series turns the history into [t, value] points (value may be absent).
function series(pick) {
  const pts = [];
  for (const s of store.history) {
    const v = pick(s);
    if (v !== undefined && v !== null) pts.push([s.t, v]);
  }
  return pts;
}

// rateSeries is series of per-second changes between consecutive samples.
function rateSeries(pick) {
  const pts = [];
  const h = store.history;
  for (let i = 1; i < h.length; i++) {
    const va = pick(h[i - 1]), vb = pick(h[i]);
    if (va === undefined || vb === undefined || h[i].t <= h[i - 1].t) continue;
    pts.push([h[i].t, Math.max(0, (vb - va) / ((h[i].t - h[i - 1].t) / 1000))]);
  }
  return pts;
}

// ---- graphs ----

// layout places a DAG's nodes in columns by longest path from the inputs.
function layout(ids, edges) {
  const preds = new Map(ids.map((id) => [id, []]));
  for (const e of edges) if (preds.has(e.to) && preds.has(e.from)) preds.get(e.to).push(e.from);
  const layer = new Map();
  const visiting = new Set();
  const depth = (id) => {
    if (layer.has(id)) return layer.get(id);
    if (visiting.has(id)) return 0;
    visiting.add(id);
    let d = 0;
    for (const p of preds.get(id)) d = Math.max(d, depth(p) + 1);
    visiting.delete(id);
    layer.set(id, d);
    return d;
  };
  ids.forEach(depth);
  const cols = [];
  for (const id of ids) {
    const l = layer.get(id);
    (cols[l] = cols[l] || []).push(id);
  }
  // Order each column by the mean row of its inputs, to keep edges short.
  const row = new Map();
  cols.forEach((col, ci) => {
    if (ci > 0) {
      const key = (id) => {
        const ps = preds.get(id).filter((p) => row.has(p));
        return ps.length ? ps.reduce((s, p) => s + row.get(p), 0) / ps.length : 1e9;
      };
      col.sort((a, b) => key(a) - key(b));
    }
    col.forEach((id, i) => row.set(id, i));
  });
  return { layer, row, cols: cols.length, rows: Math.max(1, ...cols.map((c) => c.length)) };
}

// drawGraph renders nodes (id, title, sub, color, cls, data, tip) and edges.
function drawGraph(id, nodes, edges, opts) {
  const W = opts.nodeWidth || 200, H = nodes.some((n) => n.figs) ? 64 : 48, GX = 70, GY = 22, PAD = 12;
  const pos = layout(nodes.map((n) => n.id), edges);
  const width = PAD * 2 + pos.cols * W + (pos.cols - 1) * GX;
  const height = PAD * 2 + pos.rows * H + (pos.rows - 1) * GY;
  const g = svg("svg", { id, class: "graph", width, height, viewBox: `0 0 ${width} ${height}` });
  g.append(svg("defs", {}, svg("marker", { id: id + "-arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto" },
    svg("path", { d: "M0,0 L10,5 L0,10 z", fill: "#9aa3b8" }))));
  const xy = new Map();
  for (const n of nodes) {
    xy.set(n.id, { x: PAD + pos.layer.get(n.id) * (W + GX), y: PAD + pos.row.get(n.id) * (H + GY) });
  }
  for (const e of edges) {
    const a = xy.get(e.from), b = xy.get(e.to);
    if (!a || !b) continue;
    const x1 = a.x + W, y1 = a.y + H / 2, x2 = b.x, y2 = b.y + H / 2, mx = (x1 + x2) / 2;
    g.append(svg("path", { class: "edge", d: `M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}`, "marker-end": `url(#${id}-arrow)` }));
    if (e.label) g.append(svg("text", { class: "edge-label", x: mx, y: (y1 + y2) / 2 - 4, "text-anchor": "middle" }, e.label));
  }
  for (const n of nodes) {
    const p = xy.get(n.id);
    const attrs = { class: "node" + (n.cls ? " " + n.cls : ""), transform: `translate(${p.x},${p.y})` };
    for (const [k, v] of Object.entries(n.data || {})) attrs["data-" + k] = v;
    const node = svg("g", attrs,
      svg("title", {}, n.tip || n.title),
      svg("rect", { width: W, height: H, stroke: n.color }),
      svg("text", { x: 10, y: 19 }, clip(n.title, W / 7.2)),
      svg("text", { class: "sub", x: 10, y: 36 }, clip(n.sub || "", W / 6.4)));
    if (n.figs) node.append(svg("text", { class: "sub figs", x: 10, y: 53 }, clip(n.figs, W / 6.4)));
    if (n.badge) node.append(svg("circle", { class: n.badge, cx: W - 10, cy: 10, r: 5 }));
    if (n.href) {
      const a = svg("a", { href: n.href });
      a.append(node);
      g.append(a);
    } else {
      g.append(node);
    }
  }
  return g;
}

function clip(s, n) {
  n = Math.floor(n);
  return s.length > n ? s.slice(0, n - 1) + "…" : s;
}

// ---- charts ----

// chart draws lines of [t, v] points over the history window.
function chart(id, title, lines, fmt) {
  const W = 520, H = 170, L = 62, R = 10, T = 10, B = 24;
  const now = store.current ? store.current.now : Date.now();
  const all = lines.flatMap((l) => l.points);
  // The x axis spans the window, or the history so far when shorter.
  const t0 = Math.max(now - store.window * 1000, Math.min(now - 10000, ...all.map((p) => p[0])));
  let lo = Math.min(0, ...all.map((p) => p[1])), hi = Math.max(...all.map((p) => p[1]), 1e-9);
  if (!all.length) { lo = 0; hi = 1; }
  if (hi === lo) hi = lo + 1;
  const x = (t) => L + ((t - t0) / (now - t0 || 1)) * (W - L - R);
  const y = (v) => T + (1 - (v - lo) / (hi - lo)) * (H - T - B);
  const g = svg("svg", { id, class: "chart", width: W, height: H, "data-points": all.length });
  g.append(svg("line", { class: "axis", x1: L, y1: H - B, x2: W - R, y2: H - B }));
  g.append(svg("line", { class: "axis", x1: L, y1: T, x2: L, y2: H - B }));
  g.append(svg("text", { x: L - 4, y: T + 8, "text-anchor": "end" }, fmt(hi)));
  g.append(svg("text", { x: L - 4, y: H - B, "text-anchor": "end" }, fmt(lo)));
  g.append(svg("text", { x: L, y: H - 6 }, "-" + fmtSeconds((now - t0) / 1000)));
  g.append(svg("text", { x: W - R, y: H - 6, "text-anchor": "end" }, "now"));
  lines.forEach((l, i) => {
    const pts = l.points.filter((p) => p[0] >= t0).map((p) => `${x(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`);
    if (pts.length) g.append(svg("polyline", { class: "series", points: pts.join(" "), stroke: COLORS[i % COLORS.length] }));
  });
  const legend = el("div", { class: "legend" }, lines.map((l, i) => el("span", {}, el("i", { style: `background:${COLORS[i % COLORS.length]}` }), l.name)));
  return el("div", { class: "card" }, el("h3", {}, title), g, legend);
}

// ---- pages ----

const KIND_COLOR = { source: "var(--source)", view: "var(--view)", query: "var(--query)", table: "var(--table)", sink: "var(--sink)", dead_letter: "var(--dead_letter)" };

function viewStats(name) {
  return (store.current && store.current.views.find((v) => v.name === name)) || null;
}

function lateTotal(v) {
  return Object.values(v.late || {}).reduce((a, b) => a + b, 0);
}

function pipelinesPage() {
  const page = [el("h2", {}, "Pipelines")];
  const t = store.topology;
  const cur = store.current;
  if (!t || !cur) return page.concat(el("p", { class: "muted" }, "loading…"));
  const nodes = t.nodes.map((n) => {
    const v = viewStats(n.name);
    let sub = n.connector || n.kind;
    if ((n.kind === "view" || n.kind === "query") && v) sub = `${fmtNum(rate((s) => s.views[n.name] && s.views[n.name].rowsIn))} rows/s in · lag ${fmtSeconds(v.lag)}`;
    if (n.kind === "sink") {
      const k = cur.sinks.find((s) => s.name === n.name);
      if (k) sub = `${k.connector} · ${fmtNum(k.rows)} rows`;
    }
    return { id: n.id, title: `${n.kind === "query" ? "query" : n.kind.replace("_", " ")} ${n.name}`, sub, color: KIND_COLOR[n.kind],
      cls: v && v.stalled ? "stalled" : "", data: { id: n.id, kind: n.kind },
      href: t.plans[n.name] && (n.kind === "view" || n.kind === "query") ? "#/view/" + encodeURIComponent(n.name) : null };
  });
  page.push(el("div", { class: "card" }, nodes.length ? drawGraph("pipeline-graph", nodes, t.edges, {}) : el("p", { class: "muted", id: "pipeline-graph" }, "no pipelines yet")));
  page.push(tiles([
    ["views", cur.views.length],
    ["late rows", cur.views.reduce((a, v) => a + lateTotal(v), 0)],
    ["decode errors", cur.sources.reduce((a, s) => a + s.decodeErrors, 0)],
    ["dead letters", cur.sources.filter((s) => s.onError === "dead_letter").reduce((a, s) => a + s.decodeErrors, 0)],
    ["expression errors", cur.expressionErrors],
    ["checkpoint", cur.checkpoints.lastId],
  ]));
  page.push(el("h3", {}, "Views"), el("div", { class: "card" }, viewsTable(cur)));
  page.push(el("h3", {}, "Sources"), el("div", { class: "card" }, sourcesTable(cur)));
  page.push(el("h3", {}, "Sinks"), el("div", { class: "card" }, sinksTable(cur)));
  return page;
}

function tiles(items) {
  return el("div", { class: "tiles" }, items.map(([k, v]) => el("div", { class: "tile", id: "tile-" + k.replace(/[^a-z0-9]+/g, "-"), "data-value": v === null ? "" : v },
    el("div", { class: "v" }, fmtNum(v)), el("div", { class: "k" }, k))));
}

function table(head, rows) {
  return el("table", {}, el("thead", {}, el("tr", {}, head.map((h) => el("th", { class: h.num ? "num" : "" }, h.name || h)))),
    el("tbody", {}, rows.map((r) => el("tr", {}, r.map((c, i) => el("td", { class: head[i].num ? "num" : "" }, c))))));
}

const num = (name) => ({ name, num: true });

function viewsTable(cur) {
  return table(["view", num("rows in"), num("rows in/s"), num("changes out"), num("changes/s"), num("late rows"), "watermark", num("lag"), "stalled"],
    cur.views.map((v) => [
      el("a", { href: "#/view/" + encodeURIComponent(v.name) }, v.name), fmtNum(v.rowsIn),
      fmtNum(rate((s) => s.views[v.name] && s.views[v.name].rowsIn)), fmtNum(v.rowsOut),
      fmtNum(rate((s) => s.views[v.name] && s.views[v.name].rowsOut)), fmtNum(lateTotal(v)),
      fmtTime(v.watermark), fmtSeconds(v.lag), v.stalled ? el("span", { class: "bad" }, "STALLED") : el("span", { class: "ok" }, "no"),
    ]));
}

function sourcesTable(cur) {
  return table(["pipeline", "source", num("read"), num("read/s"), num("bytes"), num("consumer lag"), "on_error", num("decode errors"), "watermark", num("lag"), "partitions"],
    cur.sources.map((s) => {
      const key = s.pipeline + "/" + s.source;
      const idle = s.partitions.filter((p) => p.idle).length;
      const lags = s.partitions.filter((p) => p.consumerLag !== undefined);
      return [s.pipeline, s.source, fmtNum(s.partitions.reduce((a, p) => a + p.read, 0)),
        fmtNum(rate((x) => x.sources[key] && x.sources[key].read)), fmtBytes(s.partitions.reduce((a, p) => a + p.bytes, 0)),
        lags.length ? fmtNum(lags.reduce((a, p) => a + p.consumerLag, 0)) : "–", s.onError, fmtNum(s.decodeErrors),
        fmtTime(s.watermark), fmtSeconds(s.lag), `${s.partitions.length}${idle ? ` (${idle} idle)` : ""}`];
    }));
}

function sinksTable(cur) {
  return table(["sink", "connector", num("rows written"), num("rows/s"), num("commits"), num("mean commit"), num("retries")],
    cur.sinks.map((k) => [k.name, k.connector, fmtNum(k.rows), fmtNum(rate((s) => s.sinks[k.name])), fmtNum(k.commits),
      k.commits ? fmtSeconds(k.commitSeconds / k.commits) : "–", fmtNum(k.retries)]));
}

// operatorFigures is a plan node's line of figures: its output rate and
// its state's size.
function operatorFigures(o, opRate) {
  const parts = [(opRate === null ? "–" : fmtNum(opRate)) + " rows/s out"];
  if (o.stateKeys !== undefined) parts.push(fmtNum(o.stateKeys) + " keys", fmtBytes(o.memoryBytes) + (o.spilledBytes ? " + " + fmtBytes(o.spilledBytes) + " spilled" : ""));
  return parts.join(" · ");
}

// operatorsTable lists a view's plan nodes with their figures.
function operatorsTable(plan, v, name) {
  const ops = new Map((v.operators || []).map((o) => [o.id, o]));
  const rows = [];
  for (const n of plan.graph.nodes) {
    const o = ops.get(n.operator);
    if (!o) continue;
    const has = o.stateKeys !== undefined;
    rows.push([`${n.operator} ${n.op}`, n.appendOnly ? "append-only" : "retracting", fmtNum(o.rowsIn), fmtNum(o.rowsOut),
      fmtNum(rate((s) => s.views[name] && s.views[name].opsOut && s.views[name].opsOut[o.id])), fmtSeconds(o.processingSeconds),
      has ? fmtNum(o.stateKeys) : "–", has ? fmtBytes(o.memoryBytes) : "–", has ? fmtBytes(o.spilledBytes) : "–", has ? fmtNum(o.spillReads) : "–"]);
  }
  return table(["operator", "output", num("rows in"), num("rows out"), num("out/s"), num("time"), num("state keys"), num("memory (est.)"), num("spilled"), num("spill reads")], rows);
}

function viewPage(name) {
  const page = [el("h2", {}, "View " + name)];
  const t = store.topology, cur = store.current;
  if (!t || !cur) return page.concat(el("p", { class: "muted" }, "loading…"));
  const plan = t.plans[name];
  const v = viewStats(name);
  if (!plan || !v) return page.concat(el("p", { class: "muted" }, "no running view or query sink named " + name));
  if (v.stalled) page.push(el("p", { class: "bad" }, "The watermark is stalled: rows arrive but it has not moved for watermark_stall_timeout (see the log for the source and partition holding it)."));
  page.push(tiles([
    ["rows in/s", rate((s) => s.views[name] && s.views[name].rowsIn)],
    ["changes out/s", rate((s) => s.views[name] && s.views[name].rowsOut)],
    ["rows in", v.rowsIn], ["changes out", v.rowsOut], ["late rows", lateTotal(v)], ["parallelism", plan.parallelism],
  ]));
  page.push(el("div", { class: "card" }, el("div", { class: "muted", id: "view-watermark", "data-value": v.watermark === undefined ? "" : v.watermark }, `watermark ${fmtTime(v.watermark)} · lag ${fmtSeconds(v.lag)}`)));
  const g = plan.graph;
  const nodes = g.nodes.map((n) => {
    const o = (v.operators || []).find((x) => x.id === n.operator);
    const opRate = o ? rate((s) => s.views[name] && s.views[name].opsOut && s.views[name].opsOut[o.id]) : null;
    return {
      id: "op" + n.id, title: n.op + (n.parallelism ? ` ×${n.parallelism}` : ""),
      sub: [n.appendOnly ? "append-only" : "retracting", n.stateBound ? "state " + n.stateBound : "", n.watermark ? "wm " + n.watermark : ""].filter(Boolean).join(" · "),
      figs: o ? operatorFigures(o, opRate) : "",
      tip: `${n.op} ${n.detail}\n${n.appendOnly ? "append-only" : "retracting"}${n.stateBound ? "\nstate " + n.stateBound : ""}${n.parallelism ? "\nparallelism " + n.parallelism : ""}` +
        (o ? `\nrows in ${fmtNum(o.rowsIn)}, out ${fmtNum(o.rowsOut)}, time ${fmtSeconds(o.processingSeconds)}` +
          (o.stateKeys !== undefined ? `\nstate ${fmtNum(o.stateKeys)} keys, ${fmtBytes(o.memoryBytes)} in memory (est.), ${fmtBytes(o.spilledBytes)} spilled, ${fmtNum(o.spillReads)} spill reads` : "") : ""),
      color: n.op === "Exchange" ? "#7a7f8c" : n.op === "Scan" ? "var(--source)" : "var(--view)",
      badge: n.appendOnly ? "badge-append" : "badge-retract",
      data: o ? { op: n.op, mode: n.appendOnly ? "append-only" : "retracting", "rows-out": o.rowsOut, rate: opRate === null ? "" : opRate,
        "state-keys": o.stateKeys === undefined ? "" : o.stateKeys, "state-bytes": o.memoryBytes === undefined ? "" : o.memoryBytes }
        : { op: n.op, mode: n.appendOnly ? "append-only" : "retracting" },
    };
  });
  const edges = g.edges.map((e) => ({ from: "op" + e.from, to: "op" + e.to }));
  page.push(el("h3", {}, "Plan"), el("div", { class: "card" }, drawGraph("plan-graph", nodes, edges, { nodeWidth: 230 }),
    el("div", { class: "legend" }, el("span", {}, el("i", { style: "background:#1b9a6c" }), "append-only"), el("span", {}, el("i", { style: "background:#d9822b" }), "retracting"))));
  page.push(el("h3", {}, "Operators"), el("div", { class: "card", id: "operators" }, operatorsTable(plan, v, name)));
  page.push(el("h3", {}, "Late rows"), el("div", { class: "card" }, table(["policy / reason", num("rows")], Object.entries(v.late).map(([k, n]) => [k, fmtNum(n)]))));
  const srcs = cur.sources.filter((s) => s.pipeline === name);
  page.push(el("h3", {}, "Charts (last " + Math.round(store.window / 60) + " minutes)"), el("div", { class: "grid" },
    chart("chart-lag", "Watermark lag", [{ name: name, points: series((s) => s.views[name] && s.views[name].lag) }]
      .concat(srcs.map((x) => ({ name: x.source, points: series((s) => s.sources[name + "/" + x.source] && s.sources[name + "/" + x.source].lag) }))), fmtSeconds),
    chart("chart-watermark", "Watermark", [{ name: name, points: series((s) => s.views[name] && s.views[name].watermark) }], (x) => fmtTime(x).slice(11)),
    chart("chart-rates", "Rows per second", [
      { name: "in", points: rateSeries((s) => s.views[name] && s.views[name].rowsIn) },
      { name: "changes out", points: rateSeries((s) => s.views[name] && s.views[name].rowsOut) },
      { name: "late", points: rateSeries((s) => s.views[name] && s.views[name].late) }], fmtNum)));
  page.push(el("h3", {}, "Sources"), el("div", { class: "card" }, sourcesTable({ sources: srcs })));
  page.push(el("h3", {}, "EXPLAIN"), el("pre", {}, plan.explain));
  return page;
}

function checkpointsPage() {
  const page = [el("h2", {}, "Checkpoints")];
  const cur = store.current;
  if (!cur) return page.concat(el("p", { class: "muted" }, "loading…"));
  const c = cur.checkpoints;
  page.push(tiles([["last checkpoint", c.lastId], ["stored since start", c.count], ["failures", c.failures]]));
  page.push(el("div", { class: "card" }, el("div", {},
    `last success: ${c.lastSuccess ? fmtSeconds((cur.now - c.lastSuccess) / 1000) + " ago" : "none yet"} · mean duration ${c.count ? fmtSeconds(c.seconds / c.count) : "–"} · ` +
    (cur.restored ? `restored at start in ${fmtSeconds(cur.restoreSeconds)} (${fmtBytes(cur.restoreBytes)})` : "fresh start (nothing restored)"))));
  page.push(el("h3", {}, "Recent checkpoints"), el("div", { class: "card" }, table(["id", "ended", num("duration"), num("size"), "result"],
    c.recent.map((r) => [String(r.id), new Date(r.at).toISOString().replace("T", " ").slice(0, 23), fmtSeconds(r.seconds),
      r.error ? "–" : fmtBytes(r.bytes),
      r.error ? el("span", { class: "bad" }, r.error) : el("span", { class: "ok" }, "stored")]))));
  page.push(el("div", { class: "grid" }, chart("chart-checkpoint", "Checkpoint id", [{ name: "id", points: series((s) => s.checkpoint) }], fmtNum)));
  return page;
}

// ---- refresh ----

function route() {
  const h = decodeURIComponent(location.hash.replace(/^#/, ""));
  if (h.startsWith("/view/")) return { page: "view", name: h.slice(6) };
  if (h === "/checkpoints") return { page: "checkpoints" };
  return { page: "pipelines" };
}

function render() {
  const r = route();
  const content = r.page === "view" ? viewPage(r.name) : r.page === "checkpoints" ? checkpointsPage() : pipelinesPage();
  const main = document.getElementById("page");
  const scroll = window.scrollY;
  main.replaceChildren(...content);
  window.scrollTo(0, scroll);
  for (const a of document.querySelectorAll("#nav a")) {
    a.classList.toggle("active", a.dataset.page === r.page || (r.page === "view" && a.dataset.view === r.name));
  }
  const links = document.getElementById("view-links");
  const views = store.current ? store.current.views.map((v) => v.name) : [];
  if (links.dataset.names !== views.join("\n")) {
    links.dataset.names = views.join("\n");
    links.replaceChildren(...views.map((n) => el("a", { href: "#/view/" + encodeURIComponent(n), "data-page": "view", "data-view": n }, n)));
  }
  const stalled = store.current ? store.current.views.filter((v) => v.stalled).map((v) => v.name) : [];
  const banner = document.getElementById("stalled");
  banner.hidden = stalled.length === 0;
  banner.textContent = stalled.length ? "Stalled watermark: " + stalled.join(", ") + " (rows arrive but the watermark does not move)" : "";
  document.getElementById("window").textContent = String(Math.round(store.window / 60));
}

async function getJSON(url) {
  const r = await fetch(url, { cache: "no-store" });
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return r.json();
}

async function refresh() {
  const status = document.getElementById("status");
  try {
    const since = store.lastT === null ? "" : "?since=" + store.lastT;
    const st = await getJSON("/api/state" + since);
    store.current = st.current;
    store.window = st.window;
    for (const s of st.history) store.history.push(s);
    if (store.history.length) store.lastT = store.history[store.history.length - 1].t;
    const cutoff = st.current.now - st.window * 1000;
    store.history = store.history.filter((s) => s.t >= cutoff);
    if (!store.topology || Date.now() - store.topologyAt > TOPOLOGY_MS || store.current.views.length !== Object.keys(store.topology.plans).length) {
      store.topology = await getJSON("/api/topology");
      store.topologyAt = Date.now();
    }
    status.textContent = "updated " + new Date().toLocaleTimeString();
    status.classList.remove("error");
    render();
  } catch (err) {
    status.textContent = "cannot reach the engine (" + (err && err.message ? err.message : err) + "); retrying";
    status.classList.add("error");
  }
  setTimeout(refresh, POLL_MS);
}

window.addEventListener("hashchange", render);
refresh();
