// Factor prompt: lowering the mode or the enforcement dial, or (system level) unlocking
// approvals, which registers the app with the guard service as your approval agent.
const { invoke } = window.__TAURI__.core;
const p = window.__AIRLOCK_PROMPT__;
const $ = (x) => document.getElementById(x);

function closeSelf() {
  invoke("close_self").catch(() => window.close());
}

async function confirm() {
  $("confirm").disabled = true;
  $("error").textContent = "";
  const factor = { password: $("password").value || null, code: $("code").value || null };
  try {
    if (p.kind === "unlock") {
      await invoke("agent_unlock", factor);
    } else {
      await invoke("policy_change", { kind: p.kind, to: p.to, ...factor });
    }
    closeSelf();
  } catch (e) {
    $("error").textContent = String(e);
    $("confirm").disabled = false;
  }
}

async function main() {
  $("cancel").addEventListener("click", closeSelf);
  $("confirm").addEventListener("click", confirm);
  for (const f of ["password", "code"]) $(f).addEventListener("keydown", (e) => { if (e.key === "Enter") confirm(); });
  if (p.kind === "unlock") {
    $("head").textContent = "Unlock approvals";
    $("what").textContent = "Airlock's guard service runs apart from your desktop. Unlock once with your Airlock password (or TOTP code) and its approval requests open here as popups.";
    $("why").textContent = "The service checks the factor itself: a program that runs as you cannot answer its requests without it.";
    $("confirm").textContent = "Unlock";
    try {
      const n = await invoke("agent_needs");
      if (n.totp && !n.password) $("password").classList.add("hidden");
      if (!n.totp) $("code").classList.add("hidden");
    } catch (e) {
      $("error").textContent = String(e);
    }
  } else {
    $("what").textContent = `Change the ${p.kind === "mode" ? "strictness mode" : "enforcement dial"} from ${p.from} to ${p.to}.`;
    try {
      const o = await invoke("overview");
      if (o.status.totp_enrolled && !o.status.totp_needs_password) $("password").classList.add("hidden");
      if (!o.status.totp_enrolled) $("code").classList.add("hidden");
    } catch (_) {}
  }
  ($("password").classList.contains("hidden") ? $("code") : $("password")).focus();
}

main();
