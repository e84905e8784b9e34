import Foundation
import HaapiUI
import Testing

@Suite("UI kit and passkey errors a person can read")
struct UILocalizedErrorTests {
    @Test("HaapiUIError, WebAuthnError and CBOR errors have specific sentences")
    func sentences() throws {
        let cases: [(any Error, String)] = [
            (HaapiUIError.pollingTimedOut(after: 30), "Signing in stopped: no answer after 30 s of polling."),
            (
                WebAuthnError.notAllowed("no passkey authenticator is configured"),
                "The passkey operation failed: not allowed: no passkey authenticator is configured."
            ),
        ]
        for (error, sentence) in cases { #expect(error.localizedDescription == sentence) }
        do {
            _ = try CBORDecoder().decode(Data([0x1f]))
            Issue.record("bad CBOR decoded")
        } catch {
            #expect(error.localizedDescription.hasPrefix("Passkey data could not be read: CBOR"))
        }
    }
}
