// Approval popup: one per pending request. Everything shown is set with textContent (the
// request is untrusted text). The buttons arm only after the broker's arm time; the broker
// refuses an early approval on its own too.
const { invoke } = window.__TAURI__.core;
// Set by the app: the request id, or null in a preloaded (hidden) popup that waits for the
// "airlock-show" event.
let id = window.__AIRLOCK_ID__;
const $ = (x) => document.getElementById(x);
let req = null;
let busy = false;

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

async function main() {
  let info;
  try {
    info = await invoke("approval_get", { id });
  } catch (e) {
    $("error").textContent = String(e);
    setTimeout(closeSelf, 1500);
    return;
  }
  req = info.request;
  $("host").textContent = req.host;
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
    const st = info.status;
    if (st.totp_enrolled) {
      if (!st.totp_needs_password) $("password").classList.add("hidden");
    } else {
      $("code").classList.add("hidden");
    }
  }
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
  if (e.key !== "Enter") return;
  const inFactor = e.target === $("password") || e.target === $("code");
  if (!(e.ctrlKey || inFactor)) return;
  e.preventDefault();
  if (armed()) decide("approved");
});

$("deny").addEventListener("click", () => decide("denied"));
$("approve").addEventListener("click", () => decide("approved"));
$("approve-session").addEventListener("click", () => decide("approved_for_session"));
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
