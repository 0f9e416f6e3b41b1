// First-run setup: password, optional TOTP, mode, wiring, live self-test. Each step saves
// itself through one app command; an error stays on screen and nothing moves on.
const { invoke } = window.__TAURI__.core;
const $ = (x) => document.getElementById(x);
const STEPS = ["password", "totp", "mode", "agents", "selftest"];
// One line each, from the README's mode table.
const MODES = [
  ["light", "Fewest questions: asks before deleting 100+ files in one command."],
  ["balanced", "The default: asks before deleting 25+ files, and before file uploads to unlisted destinations."],
  ["strict", "Asks before deleting 10+ files and before any traffic to unlisted destinations; a secret + untrusted content + egress is blocked."],
  ["paranoid", "Like strict, and asks before deleting more than 3 files."],
];
let state = null;
let cur = 0;
let password = "";
let totpOffered = false;
let busy = false;
let action = null; // the current primary action
let skipAction = null;

function show(name) {
  cur = STEPS.indexOf(name);
  for (const s of STEPS) $(`step-${s}`).classList.toggle("hidden", s !== name);
  for (const li of $("steps").children) li.classList.toggle("on", li.dataset.step === name);
  $("stepno").textContent = `step ${cur + 1} of ${STEPS.length}`;
  $("error").textContent = "";
  $("note").textContent = "";
}

function primary(label, fn, focus = true) {
  $("next").textContent = label;
  $("next").disabled = false;
  action = fn;
  if (focus) $("next").focus();
}

function skip(label, fn) {
  skipAction = fn;
  $("skip").textContent = label || "Skip";
  $("skip").classList.toggle("hidden", !fn);
}

async function run(fn) {
  if (busy || !fn) return;
  busy = true;
  $("next").disabled = true;
  $("error").textContent = "";
  try {
    await fn();
  } catch (e) {
    $("error").textContent = String(e);
  } finally {
    busy = false;
    $("next").disabled = false;
  }
}

// ---- step 1: password
function stepPassword() {
  show("password");
  skip(null);
  if (state.status.password_set) {
    $("pw-new").classList.add("hidden");
    $("pw-existing").classList.remove("hidden");
    primary("Next", async () => {
      password = $("pw0").value;
      stepTotp();
    }, false);
    $("pw0").focus();
  } else {
    primary("Set password", async () => {
      await invoke("wizard_password", { password: $("pw1").value, repeat: $("pw2").value });
      password = $("pw1").value;
      $("pw1").value = "";
      $("pw2").value = "";
      state = await invoke("wizard_state");
      stepTotp();
    }, false);
    $("pw1").focus();
  }
}

// ---- step 2: TOTP (optional)
function stepTotp() {
  show("totp");
  if (state.status.totp_enrolled) {
    $("totp-done").textContent = "TOTP is already enrolled.";
    $("totp-done").classList.remove("hidden");
    skip(null);
    primary("Next", async () => stepMode());
    return;
  }
  skip("Skip TOTP", () => stepMode());
  primary("Set up TOTP", async () => {
    const offer = await invoke("wizard_totp_begin", { password });
    $("qr").src = offer.qr;
    $("secret").textContent = offer.secret;
    $("totp-offer").classList.remove("hidden");
    totpOffered = true;
    primary("Verify code", async () => {
      const where = await invoke("wizard_totp_finish", { password, code: $("code").value });
      $("totp-offer").classList.add("hidden");
      $("totp-done").textContent = where === "keyring"
        ? "TOTP enrolled (secret in the OS keyring)."
        : "TOTP enrolled. No OS keyring: the secret is sealed in the store under your password, so lowering asks for both.";
      $("totp-done").classList.remove("hidden");
      state = await invoke("wizard_state");
      skip(null);
      primary("Next", async () => stepMode());
    }, false);
    $("code").focus();
  });
}

// ---- step 3: mode
function stepMode() {
  show("mode");
  skip(null);
  const box = $("modes");
  box.replaceChildren();
  for (const [m, text] of MODES) {
    const label = document.createElement("label");
    label.className = "mode";
    const r = document.createElement("input");
    r.type = "radio";
    r.name = "mode";
    r.value = m;
    r.id = `mode-${m}`;
    r.checked = m === state.status.mode;
    const b = document.createElement("b");
    b.textContent = m;
    const span = document.createElement("span");
    span.className = "muted";
    span.textContent = ` ${text}`;
    label.append(r, b, span);
    box.appendChild(label);
  }
  $("mode-code-row").classList.toggle("hidden", !state.status.totp_enrolled);
  primary("Use this mode", async () => {
    const m = document.querySelector("input[name=mode]:checked");
    const msg = await invoke("wizard_mode", {
      mode: m ? m.value : state.status.mode,
      password: password || null,
      code: $("mode-code").value || null,
    });
    state = await invoke("wizard_state");
    stepAgents(msg);
  }, false);
  const checked = document.querySelector("input[name=mode]:checked");
  if (checked) checked.focus();
}

// ---- step 4: agents
async function stepAgents(note) {
  show("agents");
  if (note) $("note").textContent = note;
  skip("Skip", () => stepSelfTest());
  if (!state.airlock_bin.Ok) {
    $("airlock-bin").textContent = "";
    $("error").textContent = String(state.airlock_bin.Err);
    primary("Retry", async () => { state = await invoke("wizard_state"); await stepAgents(); });
    return;
  }
  $("airlock-bin").textContent = `Hook command: ${state.airlock_bin.Ok} hook <agent>`;
  const agents = await invoke("wizard_agents");
  const body = $("agents");
  body.replaceChildren();
  for (const a of agents) {
    const tr = document.createElement("tr");
    const td0 = document.createElement("td");
    const cb = document.createElement("input");
    cb.type = "checkbox";
    cb.value = a.name;
    // System level: an agent the system install wired for every user is not wired again
    // (a second entry would run Airlock twice per call).
    cb.checked = a.installed && !a.note && !a.system_wired;
    cb.disabled = !a.installed || !!a.note || a.wired || a.system_wired;
    td0.appendChild(cb);
    const status = a.note ? a.note
      : a.system_wired ? "wired for every user (system level)"
      : a.wired ? "wired" : a.installed ? "found" : "not found";
    const cells = [a.name, status, a.config];
    tr.appendChild(td0);
    for (const v of cells) {
      const td = document.createElement("td");
      td.textContent = v;
      tr.appendChild(td);
    }
    tr.dataset.agent = a.name;
    body.appendChild(tr);
  }
  primary("Wire selected", async () => {
    const failed = [];
    for (const tr of body.children) {
      const cb = tr.querySelector("input");
      if (!cb.checked || cb.disabled) continue;
      const cell = tr.children[2];
      try {
        cell.textContent = await invoke("wizard_wire", { agent: cb.value });
        cell.className = "ok";
        cb.disabled = true;
      } catch (e) {
        cell.textContent = String(e);
        cell.className = "error";
        failed.push(cb.value);
      }
    }
    if (failed.length) throw new Error(`Not wired: ${failed.join(", ")} (see the table). Retry, or skip.`);
    skip(null);
    primary("Next", async () => stepSelfTest());
  });
}

// ---- step 5: self-test
function stepSelfTest() {
  show("selftest");
  skip(null);
  primary("Run self-test", runSelfTest);
}

async function runSelfTest() {
  {
    const body = $("results");
    body.replaceChildren();
    const session = `airlock-self-test-${Date.now()}`;
    let good = 0;
    for (const c of ["pass", "auth", "block"]) {
      const tr = document.createElement("tr");
      const td = (t, cls) => { const x = document.createElement("td"); x.textContent = t; if (cls) x.className = cls; tr.appendChild(x); return x; };
      td(c === "auth" ? "waiting for the popup…" : "running…");
      body.appendChild(tr);
      let r;
      try {
        r = await invoke("wizard_self_test", { case: c, session: `${session}-${c}` });
      } catch (e) {
        tr.replaceChildren();
        td(c); td(c.toUpperCase()); td("error", "error"); td(String(e), "error"); td("");
        continue;
      }
      tr.replaceChildren();
      td(r.command);
      td(r.expected);
      td(r.verdict, `verdict ${r.verdict}`);
      td(r.outcome);
      td(r.reasons_words.join(" "));
      if (r.ok) good += 1; else tr.className = "bad";
    }
    const sum = $("selftest-summary");
    $("where").classList.remove("hidden");
    if (good === 3) {
      sum.textContent = "Airlock is working: one PASS, one AUTH and one BLOCK, as expected.";
      sum.className = "ok";
      skip(null);
      primary("Finish", finish);
    } else {
      sum.textContent = `${3 - good} of 3 decisions were not what was expected.`;
      sum.className = "error";
      skip("Close anyway", finish);
      primary("Run again", runSelfTest);
    }
  }
}

// Finish: start at login or not, as the box says, then close. A failure to set it is shown
// and keeps the wizard open (the user can untick the box and finish).
async function finish() {
  await invoke("wizard_autostart", { enable: $("autostart").checked });
  await invoke("close_self");
}

$("next").addEventListener("click", () => run(action));
$("skip").addEventListener("click", () => run(async () => skipAction && skipAction()));
document.addEventListener("keydown", (e) => {
  if (e.key !== "Enter") return;
  const t = e.target;
  if (t && t.tagName === "BUTTON") return; // the button's own click
  e.preventDefault();
  run(action);
});

(async () => {
  try {
    state = await invoke("wizard_state");
  } catch (e) {
    $("error").textContent = String(e);
    return;
  }
  stepPassword();
})();
