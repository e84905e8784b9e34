import HaapiRules
@_spi(Tooling) import Passkeys

extension Rule {
    /// The rule a refused passkey response breaks, read from the relying party's verdict (whose words
    /// `RuleCatalogueTests` pins, so a reworded check cannot fall through to the general rule unnoticed).
    init(webAuthn error: WebAuthnError) {
        switch error {
        case .storage: self = .storeFailure
        case .verificationFailed(let detail):
            if detail.hasPrefix("origin ") || detail.hasPrefix("cross-origin") {
                self = .passkeyOrigin
            } else if detail.contains("RP ID") {
                self = .passkeyRPID
            } else if detail.contains("challenge") {
                self = .passkeyChallenge
            } else if detail.hasPrefix("the signature does not verify") {
                self = .passkeySignature
            } else if detail.hasPrefix("the signature counter") {
                self = .passkeyCounter
            } else if detail.contains("(UP)") || detail.contains("(UV)") {
                self = .passkeyUserPresence
            } else {
                self = .passkeyInvalid
            }
        default: self = .passkeyInvalid
        }
    }
}
