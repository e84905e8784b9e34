import Foundation

extension ServerConfiguration {
    /// The embedded configuration `haapi serve` and `haapi demo` start with.
    public static let defaultJSON = """
        {
          "clients": [
            {
              "id": "haapi-demo",
              "displayName": "the swift-haapi demo app",
              "attestation": "software",
              "tokenBoundCodes": true,
              "dpopNonce": true,
              "redirectURIs": ["app://haapi"],
              "scopes": ["openid", "profile", "email"],
              "consent": false,
              "login": "demo"
            },
            {
              "id": "haapi-dcr-main",
              "secret": "dcr-main-secret-change-me",
              "authenticationMethod": "client_secret_basic",
              "scopes": ["dcr"]
            },
            {
              "id": "haapi-dcr-template",
              "allowWithoutAttestation": true,
              "tokenBoundCodes": true,
              "dpopNonce": true,
              "redirectURIs": ["app://haapi"],
              "scopes": ["openid", "profile", "email"],
              "login": "demo",
              "dcrTemplate": { "authenticateClientBy": "haapi-dcr-main" }
            },
            {
              "id": "authhub-app",
              "secret": "authhub-secret-change-me",
              "authenticationMethod": "client_secret_basic",
              "scopes": ["urn:iam:myscopes"]
            }
          ],
          "users": [
            { "username": "demouser", "passwordHash": "\(demoPasswordHash)", "email": "demouser@example.com", "name": "Demo User" }
          ],
          "authenticators": [
            { "id": "password", "type": "username-password", "title": "Username and password" },
            { "id": "email", "type": "email-otp", "title": "Code by e-mail" },
            { "id": "approve", "type": "approve-on-another-device", "title": "Approve on another device" },
            { "id": "browser", "type": "external-browser", "title": "Sign in with the browser" },
            { "id": "passkeys", "type": "passkeys", "title": "Passkey (sign in, or create one)" },
            {
              "id": "otp", "type": "form", "title": "One-time code", "user": "demouser",
              "steps": [
                {
                  "title": "Enter the code", "submit": "Verify",
                  "messages": ["The dev server takes any six digits"], "invalidMessage": "The code is six digits",
                  "fields": [{ "name": "otp", "type": "text", "label": "Code", "placeholder": "123456", "accept": "[0-9]{6}" }]
                }
              ]
            },
            { "id": "bankid", "type": "polling", "title": "BankID", "user": "demouser", "clientOperation": "bankid", "pollsUntilDone": 3 },
            { "id": "password-then-code", "type": "username-password", "title": "Password, then a code by SMS" },
            {
              "id": "sms", "type": "form", "title": "Code by SMS",
              "steps": [
                {
                  "title": "Enter the code we sent by SMS", "submit": "Verify",
                  "messages": ["The dev server takes any six digits"], "invalidMessage": "The code is six digits",
                  "fields": [{ "name": "code", "type": "text", "label": "SMS code", "placeholder": "123456", "accept": "[0-9]{6}" }]
                }
              ]
            }
          ],
          "logins": [
            {
              "id": "demo",
              "steps": [
                { "choice": ["password", "email", "approve", "browser", "passkeys", "otp", "bankid", ["password-then-code", "sms"]] }
              ]
            }
          ],
          "authHub": {
            "tenants": [
              { "name": "default", "fieldsToBeEncryptedInAuthFlow": ["password"], "secondFactors": ["EMAILOTP", "FIDO"], "proxyPath": "gateway" },
              { "name": "plain", "secondFactors": [] }
            ]
          }
        }
        """

    /// The demo user's published password. The embedded configuration carries only its PBKDF2 hash
    /// (600,000 iterations, made once), so starting `haapi demo` or `haapi serve` does not spend a tenth of
    /// a second hashing it again.
    public static let demoPassword = "Password1"

    /// The PBKDF2 hash of ``demoPassword`` (600,000 iterations) that the embedded configuration carries: a
    /// configuration with more users of that password (tests, demos) starts without hashing it again.
    public static let demoPasswordHash =
        "pbkdf2-sha256$600000$tIsnoKN_za5Cy8-gCAAgqw$mVNPw5a2Riab-cN230IGPe2Nvn_f5FvWUaIxnGo4ing"

    public static var embeddedDefault: ServerConfiguration {
        get throws { try load(json: Data(defaultJSON.utf8)) }
    }
}
