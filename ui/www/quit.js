// Asked before quitting while approvals are pending. "Keep running" is the default (focused,
// Return, Escape); quitting withdraws the pending requests (logged as withdrawn, not as a "no").
const { invoke } = window.__TAURI__.core;
const q = window.__AIRLOCK_QUIT__;
const $ = (x) => document.getElementById(x);

function keep() {
  invoke("close_self").catch(() => window.close());
}

async function quit() {
  $("quit").disabled = true;
  try {
    await invoke("quit_confirmed");
  } catch (e) {
    $("error").textContent = String(e);
    $("quit").disabled = false;
  }
}

$("what").textContent = q.pending === 1
  ? "1 approval is waiting for you. Quitting withdraws it."
  : `${q.pending} approvals are waiting for you. Quitting withdraws them.`;
$("keep").addEventListener("click", keep);
$("quit").addEventListener("click", quit);
document.addEventListener("keydown", (e) => { if (e.key === "Escape") keep(); });
$("keep").focus();
