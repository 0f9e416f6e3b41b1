// Approval popup: one per pending request. Everything shown is set with textContent (the
// request is untrusted text). The buttons arm only after the broker's arm time; the broker
// refuses an early approval on its own too.
const { invoke } = window.__TAURI__.core;
// Set by the app: the request id, or null in a preloaded (hidden) popup that waits for the
// "airlock-show" event.
let id = window.__AIRLOCK_ID__;
const $ = (x) => document.getElementById(x);
let req = null;
let info = null;
let busy = false;
// "Always, as a rule": the chosen scope and expiry, and the replay run for them.
let always = { choice: 0, days: 30, replayed: null, seq: 0 };

function fmt(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function closeSelf() {
  invoke("close_self").catch(() => window.close());
}

function tick() {
  if (!req) return;
  const now = Date.now();
  const left = req.deadline_ms - now;
  const total = Math.max(1, req.deadline_ms - req.created_ms);
  $("bar").style.width = `${Math.max(0, (100 * left) / total)}%`;
  if (left <= 0) {
    $("countdown").textContent = "No answer: denied (timeout).";
    $("approve").disabled = true;
    $("approve-session").disabled = true;
    $("deny").disabled = true;
    setTimeout(closeSelf, 300);
    return;
  }
  $("countdown").textContent = `Denied automatically in ${fmt(left)} if you do not answer.`;
  const armIn = req.armed_ms - now;
  if (!busy) {
    $("approve").disabled = armIn > 0;
    $("approve-session").disabled = armIn > 0;
    $("always-save").disabled = armIn > 0 || always.replayed === null;
    $("approve").textContent = armIn > 0 ? `Approve once (${Math.ceil(armIn / 100) / 10}s)` : "Approve once";
  }
  setTimeout(tick, armIn > 0 ? 100 : 250);
}

async function decide(decision) {
  if (busy) return;
  busy = true;
  $("approve").disabled = true;
  $("approve-session").disabled = true;
  $("deny").disabled = true;
  $("error").textContent = "";
  try {
    await invoke("approval_decide", {
      id, decision,
      password: $("password").value || null,
      code: $("code").value || null,
    });
    closeSelf();
  } catch (e) {
    $("error").textContent = String(e);
    busy = false;
    $("deny").disabled = false;
  }
}

function daysText(d) {
  if (d === 0) return "never (until you remove it)";
  return d === 1 ? "after 1 day" : `after ${d} days`;
}

// Replays the chosen scope against the labelled corpus; the save button arms only after the
// human has seen what it would let through.
async function replay() {
  const seq = ++always.seq;
  always.replayed = null;
  $("always-save").disabled = true;
  $("always-replay").classList.remove("bad");
  $("always-replay").textContent = "Checking it against known attacks…";
  $("always-examples").textContent = "";
  try {
    const r = await invoke("rule_replay", { id, choice: always.choice, days: always.days });
    if (seq !== always.seq) return;
    $("always-replay").textContent = r.lines.join(" ");
    if (r.attacks > 0) $("always-replay").classList.add("bad");
    for (const ex of r.examples) {
      const li = document.createElement("li");
      li.textContent = ex;
      $("always-examples").appendChild(li);
    }
    always.replayed = r;
    $("always-save").disabled = Date.now() < req.armed_ms;
    invoke("rule_panel_ready", { id, attacks: r.attacks }).catch(() => {});
  } catch (e) {
    if (seq !== always.seq) return;
    $("always-replay").textContent = String(e);
  }
}

function openAlways() {
  $("always-panel").classList.remove("hidden");
  $("will-do").classList.add("hidden");
  $("raw").classList.add("hidden");
  $("always-hint").classList.add("hidden");
  const st = info.status;
  if (st.totp_enrolled) {
    if (!st.totp_needs_password) $("always-password").classList.add("hidden");
  } else {
    $("always-code").classList.add("hidden");
  }
  replay();
  (st.totp_enrolled ? $("always-code") : $("always-password")).focus();
}

function closeAlways() {
  $("always-panel").classList.add("hidden");
  if ($("consequences").children.length) $("will-do").classList.remove("hidden");
  $("raw").classList.remove("hidden");
  $("always-hint").classList.remove("hidden");
}

async function saveAlways() {
  if (busy || always.replayed === null) return;
  busy = true;
  for (const b of ["approve", "approve-session", "deny", "always-save"]) $(b).disabled = true;
  $("error").textContent = "";
  try {
    await invoke("approval_always", {
      id, choice: always.choice, days: always.days,
      password: $("always-password").value || null,
      code: $("always-code").value || null,
    });
    closeSelf();
  } catch (e) {
    $("error").textContent = String(e);
    busy = false;
    $("deny").disabled = false;
    $("always-save").disabled = false;
  }
}

function buildAlways() {
  info.rules.forEach((r, i) => {
    const label = document.createElement("label");
    label.className = "choice";
    const input = document.createElement("input");
    input.type = "radio";
    input.name = "always-choice";
    input.value = String(i);
    input.checked = i === 0;
    input.addEventListener("change", () => { always.choice = i; replay(); });
    const span = document.createElement("span");
    const b = document.createElement("b");
    b.textContent = r.label;
    span.appendChild(b);
    span.appendChild(document.createTextNode(r.description));
    label.appendChild(input);
    label.appendChild(span);
    $("always-choices").appendChild(label);
  });
  for (const d of info.expiry_days) {
    const o = document.createElement("option");
    o.value = String(d);
    o.textContent = daysText(d);
    o.selected = d === always.days;
    $("always-days").appendChild(o);
  }
  $("always-days").addEventListener("change", () => {
    always.days = Number($("always-days").value);
    replay();
  });
  $("always-hint").classList.remove("hidden");
}

async function main() {
  try {
    info = await invoke("approval_get", { id });
  } catch (e) {
    $("error").textContent = String(e);
    setTimeout(closeSelf, 1500);
    return;
  }
  req = info.request;
  $("host").textContent = info.agent;
  $("tool").textContent = req.tool;
  $("session").textContent = req.session_id;
  $("cwd").textContent = req.cwd;
  $("summary").textContent = req.summary;
  // What the call will do, in plain words (the engine's lines, already masked). Text only:
  // every string goes through textContent, never markup.
  const kinds = [];
  for (const c of req.consequences || []) {
    const kind = /^[a-z_]{1,16}$/.test(c.kind) ? c.kind : "other";
    const li = document.createElement("li");
    li.className = `c-${kind}`;
    li.dataset.kind = kind;
    li.textContent = c.text;
    if (c.detail) {
      const pre = document.createElement("pre");
      pre.className = "diff";
      pre.textContent = c.detail;
      li.appendChild(pre);
    }
    $("consequences").appendChild(li);
  }
  for (const li of $("consequences").children) kinds.push(li.dataset.kind);
  if (kinds.length) {
    $("will-do").classList.remove("hidden");
  } else {
    // An older client sent none: the call as sent and the reasons, as before.
    $("raw").open = true;
  }
  for (const r of req.reasons) {
    const li = document.createElement("li");
    li.textContent = r.message + " ";
    const c = document.createElement("code");
    c.textContent = r.code;
    li.appendChild(c);
    $("reasons").appendChild(li);
  }
  if (req.high_risk) {
    // High risk is approved once, each time with the factor.
    $("approve-session").classList.add("hidden");
    $("risk").classList.remove("hidden");
    $("factor").classList.remove("hidden");
    $("always-hint").classList.add("hidden");
    const st = info.status;
    if (st.totp_enrolled) {
      if (!st.totp_needs_password) $("password").classList.add("hidden");
    } else {
      $("code").classList.add("hidden");
    }
  }
  if (!req.high_risk && info.rules.length) buildAlways();
  tick();
  // The kinds of line drawn (never their text) go to the app's log.
  invoke("popup_shown", { id, kinds }).catch(() => {});
}

// Keyboard: Esc denies; Ctrl+Enter (or Enter in the factor fields) approves once, but only
// once armed: before the arm time the key does nothing (the broker refuses it as well).
function armed() {
  return req !== null && !busy && !$("approve").disabled && Date.now() >= req.armed_ms;
}
document.addEventListener("keydown", (e) => {
  if (!req) return;
  if (e.key === "Escape") {
    e.preventDefault();
    if (!busy) decide("denied");
    return;
  }
  // Alt+A opens "Always, as a rule" where it is offered.
  if (e.altKey && (e.key === "a" || e.key === "A")) {
    e.preventDefault();
    if (!busy && !$("always-hint").classList.contains("hidden")) openAlways();
    return;
  }
  if (e.key !== "Enter") return;
  // In the rule panel, Enter in its factor fields saves the rule (once armed and replayed).
  if (e.target === $("always-password") || e.target === $("always-code")) {
    e.preventDefault();
    if (armed()) saveAlways();
    return;
  }
  const inFactor = e.target === $("password") || e.target === $("code");
  if (!(e.ctrlKey || inFactor)) return;
  e.preventDefault();
  if (armed()) decide("approved");
});

$("deny").addEventListener("click", () => decide("denied"));
$("approve").addEventListener("click", () => decide("approved"));
$("approve-session").addEventListener("click", () => decide("approved_for_session"));
$("always").addEventListener("click", openAlways);
$("always-back").addEventListener("click", closeAlways);
$("always-save").addEventListener("click", saveAlways);
if (id === null || id === undefined) {
  window.__TAURI__.event
    .listen("airlock-show", (e) => {
      if (id === null || id === undefined) {
        id = e.payload;
        main();
      }
    })
    .then(() => invoke("popup_standby"));
} else {
  main();
}
