extension SiteAssets {
    /// The passkey web app's script: sign up, sign in (discoverable), add a passkey, sign out, against the
    /// RP endpoints beside the page. It uses the browser's JSON helpers for WebAuthn options and credentials
    /// where they exist and converts base64url by hand where they do not. No framework, no build step.
    static let passkeyScript = #"""
        "use strict";
        (() => {
          const main = document.querySelector("main");
          const byId = (id) => document.getElementById(id);
          const sessionKey = "haapi.passkeys.session";

          // base64url <-> ArrayBuffer, for browsers without parse…FromJSON / toJSON.
          const toBase64URL = (buffer) => {
            let binary = "";
            for (const byte of new Uint8Array(buffer)) binary += String.fromCharCode(byte);
            return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
          };
          const fromBase64URL = (text) => {
            const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
            const binary = atob(base64 + "===".slice((base64.length + 3) % 4));
            return Uint8Array.from(binary, (c) => c.charCodeAt(0)).buffer;
          };

          const creationOptions = (json) => {
            if (typeof PublicKeyCredential.parseCreationOptionsFromJSON === "function") {
              return PublicKeyCredential.parseCreationOptionsFromJSON(json);
            }
            return {
              ...json,
              challenge: fromBase64URL(json.challenge),
              user: { ...json.user, id: fromBase64URL(json.user.id) },
              excludeCredentials: (json.excludeCredentials || []).map((c) => ({ ...c, id: fromBase64URL(c.id) })),
            };
          };
          const requestOptions = (json) => {
            if (typeof PublicKeyCredential.parseRequestOptionsFromJSON === "function") {
              return PublicKeyCredential.parseRequestOptionsFromJSON(json);
            }
            return {
              ...json,
              challenge: fromBase64URL(json.challenge),
              allowCredentials: (json.allowCredentials || []).map((c) => ({ ...c, id: fromBase64URL(c.id) })),
            };
          };
          const credentialJSON = (credential) => {
            if (typeof credential.toJSON === "function") return credential.toJSON();
            const r = credential.response;
            const response = { clientDataJSON: toBase64URL(r.clientDataJSON) };
            if (r.attestationObject) {
              response.attestationObject = toBase64URL(r.attestationObject);
              response.transports = typeof r.getTransports === "function" ? r.getTransports() : [];
            } else {
              response.authenticatorData = toBase64URL(r.authenticatorData);
              response.signature = toBase64URL(r.signature);
              if (r.userHandle) response.userHandle = toBase64URL(r.userHandle);
            }
            return {
              id: credential.id, rawId: toBase64URL(credential.rawId), type: credential.type, response,
              authenticatorAttachment: credential.authenticatorAttachment || undefined,
              clientExtensionResults: credential.getClientExtensionResults(),
            };
          };

          const status = byId("status");
          const say = (text, isError) => {
            status.textContent = text;
            status.classList.toggle("error", Boolean(isError));
          };

          // Errors in words: what happened and what to do.
          const explain = (error) => {
            switch (error && error.name) {
              case "NotAllowedError":
                return "The passkey prompt was closed or timed out. Try again when you are ready.";
              case "InvalidStateError":
                return "This device already holds a passkey for this account. Sign in with it instead.";
              case "SecurityError":
                return `This address cannot use passkeys for ${main.dataset.rpId}. Open the page at ${allowedOrigins[0]}.`;
              case "NotSupportedError":
                return "This browser or device cannot create a passkey of the kind this site asks for.";
              case "AbortError":
                return "The passkey request was cancelled.";
              default:
                return (error && error.message) || "Something went wrong. Try again.";
            }
          };

          const call = async (path, options) => {
            let response;
            try {
              response = await fetch(path, { credentials: "omit", cache: "no-store", ...options });
            } catch {
              throw new Error("The server could not be reached. Check that it is running and try again.");
            }
            const text = await response.text();
            let body = {};
            try { body = text ? JSON.parse(text) : {}; } catch { body = {}; }
            if (!response.ok) {
              const message = body.error || `The server refused the request (HTTP ${response.status}).`;
              const failure = new Error(message);
              failure.status = response.status;
              throw failure;
            }
            return body;
          };
          const postJSON = (path, value) =>
            call(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(value) });
          const bearer = () => {
            const session = readSession();
            return session ? { Authorization: `Bearer ${session.token}` } : {};
          };

          const readSession = () => {
            try { return JSON.parse(sessionStorage.getItem(sessionKey) || "null"); } catch { return null; }
          };
          const show = () => {
            const session = readSession();
            byId("signed-out").hidden = Boolean(session);
            byId("signed-in").hidden = !session;
            byId("account-name").textContent = session ? session.name : "";
          };

          const busy = async (form, work) => {
            const buttons = form.querySelectorAll("button");
            buttons.forEach((b) => { b.disabled = true; });
            try {
              await work();
            } catch (error) {
              if (error && error.status === 401 && readSession()) {
                sessionStorage.removeItem(sessionKey);
                show();
                say("Your session has ended. Sign in again with your passkey.", true);
              } else {
                say(explain(error), true);
              }
            } finally {
              buttons.forEach((b) => { b.disabled = false; });
            }
          };

          const register = async (query, headers) => {
            const options = await call(`registration_initialize${query}`, { headers });
            const credential = await navigator.credentials.create({ publicKey: creationOptions(options.publicKey) });
            return postJSON("registration_finalize", credentialJSON(credential));
          };

          byId("sign-up").addEventListener("submit", (event) => {
            event.preventDefault();
            const name = byId("user-name").value.trim();
            if (!name) { say("Enter a user name first.", true); byId("user-name").focus(); return; }
            busy(event.target, async () => {
              say("Follow your browser's prompt to create a passkey…");
              await register(`?user_name=${encodeURIComponent(name)}`, {});
              say(`Account ${name} created with a passkey. Sign in with it below.`);
            });
          });

          byId("sign-in").addEventListener("submit", (event) => {
            event.preventDefault();
            busy(event.target, async () => {
              say("Choose a passkey in your browser's prompt…");
              const options = await call("authentication_initialize");
              const credential = await navigator.credentials.get({ publicKey: requestOptions(options.publicKey) });
              const account = await postJSON("authentication_finalize", credentialJSON(credential));
              sessionStorage.setItem(sessionKey, JSON.stringify({ token: account.session, name: account.credential.user.name }));
              show();
              say(`Signed in as ${account.credential.user.name}.`);
            });
          });

          byId("add-passkey").addEventListener("submit", (event) => {
            event.preventDefault();
            busy(event.target, async () => {
              say("Follow your browser's prompt to add a passkey…");
              await register("", bearer());
              say("Another passkey was added to your account.");
            });
          });

          byId("sign-out").addEventListener("submit", (event) => {
            event.preventDefault();
            busy(event.target, async () => {
              const headers = bearer();
              sessionStorage.removeItem(sessionKey);
              show();
              try { await call("logout", { method: "POST", headers }); } catch { /* signed out here either way */ }
              say("Signed out.");
              byId("user-name").focus();
            });
          });

          const allowedOrigins = (main.dataset.origins || "").split(" ").filter(Boolean);
          if (!window.PublicKeyCredential) {
            say("This browser does not support passkeys. Try a current Chrome, Safari, Firefox or Edge.", true);
            document.querySelectorAll("form button").forEach((b) => { b.disabled = true; });
          } else if (allowedOrigins.length && !allowedOrigins.includes(location.origin)) {
            byId("wrong-origin").hidden = false;
          }
          show();
        })();
        """#
}
