// Factor prompt for lowering the mode or the enforcement dial.
const { invoke } = window.__TAURI__.core;
const p = window.__AIRLOCK_PROMPT__;
const $ = (x) => document.getElementById(x);

function closeSelf() {
  invoke("close_self").catch(() => window.close());
}

async function confirm() {
  $("confirm").disabled = true;
  $("error").textContent = "";
  try {
    await invoke("policy_change", {
      kind: p.kind, to: p.to,
      password: $("password").value || null,
      code: $("code").value || null,
    });
    closeSelf();
  } catch (e) {
    $("error").textContent = String(e);
    $("confirm").disabled = false;
  }
}

async function main() {
  $("cancel").addEventListener("click", closeSelf);
  $("confirm").addEventListener("click", confirm);
  $("password").addEventListener("keydown", (e) => { if (e.key === "Enter") confirm(); });
  $("what").textContent = `Change the ${p.kind === "mode" ? "strictness mode" : "enforcement dial"} from ${p.from} to ${p.to}.`;
  try {
    const o = await invoke("overview");
    if (o.status.totp_enrolled && !o.status.totp_needs_password) $("password").classList.add("hidden");
    if (!o.status.totp_enrolled) $("code").classList.add("hidden");
  } catch (_) {}
  $("password").focus();
}

main();
