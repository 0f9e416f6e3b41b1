// Dashboard: current policy, pending approvals. Approving happens only in the popups.
const { invoke } = window.__TAURI__.core;
const { listen } = window.__TAURI__.event;
const $ = (x) => document.getElementById(x);
const MODES = ["light", "balanced", "strict", "paranoid"];
const ENF = ["enforce", "monitor", "off"];

function choices(el, kind, values, current) {
  el.replaceChildren();
  for (const v of values) {
    const b = document.createElement("button");
    b.textContent = v;
    b.id = `${kind}-${v}`;
    if (v === current) b.classList.add("on");
    b.addEventListener("click", async () => {
      $("error").textContent = "";
      try { await invoke("policy_request", { kind, to: v }); } catch (e) { $("error").textContent = String(e); }
      refresh();
    });
    el.appendChild(b);
  }
}

async function refresh() {
  let o;
  try { o = await invoke("overview"); } catch (e) { $("error").textContent = String(e); return; }
  choices($("modes"), "mode", MODES, o.status.mode);
  choices($("enforcement"), "enforcement", ENF, o.status.enforcement);
  const body = $("pending");
  body.replaceChildren();
  for (const p of o.pending) {
    const tr = document.createElement("tr");
    for (const v of [String(p.id), p.host, p.tool, p.summary, `${Math.max(0, Math.round((p.deadline_ms - Date.now()) / 1000))} s`]) {
      const td = document.createElement("td");
      td.textContent = v;
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
  $("socket").textContent = `Approval service: ${o.socket}`;
}

listen("pending-changed", refresh);
listen("policy-changed", refresh);
refresh();
setInterval(refresh, 5000);
