// Dashboard: policy dials, live decisions (audit log) with filters, the policy ledger and its
// chain status, pinned MCP tools, pending approvals. Read-only apart from the dials (which
// follow the raise-only rules); approving happens only in the popups. Every value from the
// store is set with textContent.
const { invoke } = window.__TAURI__.core;
const { listen } = window.__TAURI__.event;
const $ = (x) => document.getElementById(x);
const MODES = ["light", "balanced", "strict", "paranoid"];
const ENF = ["enforce", "monitor", "off"];
const counts = { decisions: 0, ledger: 0, pins: 0, rules: 0, chain: "unknown" };
let rulesShown = null;
let reported = "";

// The buttons are made once and only their state changes afterwards: re-creating them on
// every refresh would drop the keyboard focus every two seconds.
function choices(el, kind, values, current) {
  if (el.children.length !== values.length) {
    el.replaceChildren();
    for (const v of values) {
      const b = document.createElement("button");
      b.textContent = v;
      b.id = `${kind}-${v}`;
      b.addEventListener("click", async () => {
        $("error").textContent = "";
        try { await invoke("policy_request", { kind, to: v }); } catch (e) { $("error").textContent = String(e); }
        refresh();
      });
      el.appendChild(b);
    }
  }
  for (const b of el.children) b.classList.toggle("on", b.id === `${kind}-${current}`);
}

function rows(body, list, cells) {
  body.replaceChildren();
  for (const item of list) {
    const tr = document.createElement("tr");
    for (const [text, cls] of cells(item)) {
      const td = document.createElement("td");
      td.textContent = text;
      if (cls) td.className = cls;
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
}

const time = (ms) => new Date(ms).toLocaleString();

function report() {
  const r = JSON.stringify(counts);
  if (r === reported) return;
  reported = r;
  invoke("dashboard_rendered", counts).catch(() => {});
}

async function refreshDecisions() {
  const query = { verdict: $("f-verdict").value, host: $("f-host").value, tool: $("f-tool").value };
  const list = await invoke("dash_decisions", { query });
  rows($("decisions"), list, (d) => [
    [time(d.ts_ms)], [d.agent], [d.session_id], [d.tool],
    [d.verdict === d.effective ? d.verdict : `${d.verdict} → ${d.effective}`, `verdict ${d.effective}`],
    [d.outcome_words], [d.reasons_words.join(" ")], [d.mode],
  ]);
  $("decisions-count").textContent = `${list.length} shown`;
  counts.decisions = list.length;
}

async function refreshLedger() {
  const v = await invoke("dash_ledger");
  const chain = $("chain");
  if (v.status.intact) {
    chain.textContent = `Hash chain intact: ${v.status.rows} entries, each linked to the one before.`;
    chain.className = "ok";
  } else {
    chain.textContent = `Hash chain BROKEN at entry ${v.status.first_bad_seq}: ${v.status.problem}. The ledger was changed outside Airlock.`;
    chain.className = "error";
  }
  rows($("ledger"), v.rows, (r) => [
    [String(r.seq)], [time(r.ts_ms)], [r.words, r.outcome === "refused" ? "error" : ""],
  ]);
  counts.ledger = v.rows.length;
  counts.chain = v.status.intact ? "intact" : "broken";
}

async function refreshPins() {
  const list = await invoke("dash_pins");
  rows($("pins"), list, (p) => [
    [p.server], [p.tool], [p.status, p.status === "approved" ? "ok" : "error"], [p.poison.join(", ")],
    [p.pinned ? p.pinned.slice(0, 12) : "—"],
  ]);
  if (!list.length) rows($("pins"), [0], () => [["No pinned tools yet (the MCP proxy pins tools when a server lists them)."]]);
  counts.pins = list.length;
}

// The rules in force, each with a Remove button (a tightening: no factor). Rebuilt only when
// the list changed, so a button keeps its focus.
async function refreshRules() {
  const list = await invoke("dash_rules");
  const sig = JSON.stringify(list);
  counts.rules = list.length;
  if (sig === rulesShown) return;
  rulesShown = sig;
  const body = $("rules");
  body.replaceChildren();
  if (!list.length) {
    rows(body, [0], () => [["No rules: every AUTH asks."]]);
    return;
  }
  for (const r of list) {
    const tr = document.createElement("tr");
    for (const [text, cls] of [[r.id], [r.description], [r.expired ? "expired" : "in force", r.expired ? "muted" : "ok"]]) {
      const td = document.createElement("td");
      td.textContent = text;
      if (cls) td.className = cls;
      tr.appendChild(td);
    }
    const td = document.createElement("td");
    const b = document.createElement("button");
    b.textContent = "Remove";
    b.id = `revoke-${r.id}`;
    b.addEventListener("click", async () => {
      $("error").textContent = "";
      try { $("error").textContent = await invoke("dash_rule_revoke", { id: r.id }); } catch (e) { $("error").textContent = String(e); }
      refresh();
    });
    td.appendChild(b);
    tr.appendChild(td);
    body.appendChild(tr);
  }
}

async function refresh() {
  let o;
  try { o = await invoke("overview"); } catch (e) { $("error").textContent = String(e); return; }
  $("level").textContent = `Protection level: ${o.status.level}`;
  choices($("modes"), "mode", MODES, o.status.mode);
  choices($("enforcement"), "enforcement", ENF, o.status.enforcement);
  rows($("pending"), o.pending, (p) => [
    [String(p.id)], [p.host], [p.tool], [p.summary],
    [`${Math.max(0, Math.round((p.deadline_ms - Date.now()) / 1000))} s`],
  ]);
  $("pending-count").textContent = o.pending.length ? `(${o.pending.length})` : "";
  $("socket").textContent = `Approval service: ${o.socket}`;
  try {
    await refreshDecisions();
    await refreshLedger();
    await refreshPins();
    await refreshRules();
    report();
  } catch (e) {
    $("error").textContent = String(e);
  }
}

for (const b of $("tabs").children) {
  b.addEventListener("click", () => {
    for (const x of $("tabs").children) x.classList.toggle("on", x === b);
    for (const s of document.querySelectorAll("section.tab")) s.classList.toggle("hidden", s.id !== `tab-${b.dataset.tab}`);
  });
}
for (const id of ["f-verdict", "f-host", "f-tool"]) $(id).addEventListener("input", () => refreshDecisions().then(report).catch((e) => { $("error").textContent = String(e); }));

listen("pending-changed", refresh);
listen("policy-changed", refresh);
refresh();
setInterval(refresh, 2000);
