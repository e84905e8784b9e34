import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import Passkeys
import Testing

/// Issue 14, item 6: base64url as real servers and browsers send it.
@Suite("WebAuthn base64url as servers send it")
struct Base64URLLeniencyTests {
    /// `AQID` is [1, 2, 3]. `AQI` is [1, 2] with the last symbol's two unused bits zero; `AQJ` sets one of
    /// them (browsers accept it, the strict decoder does not).
    @Test("padding, non-zero unused bits and +/ are accepted in every field; the bytes are the same")
    func lenientFields() throws {
        let options: JSONValue = [
            "publicKey": [
                "challenge": "AQI=",  // padded
                "rp": ["id": "example.org", "name": "Example"],
                "user": ["id": "AQJ", "name": "alice"],  // non-zero unused bits
                "excludeCredentials": [["type": "public-key", "id": "+/8="]],  // plain base64
            ]
        ]
        let creation = try PublicKeyCredentialCreationOptions(json: options)
        #expect(creation.challenge == Data([1, 2]) && creation.userID == Data([1, 2]))
        #expect(creation.excludeCredentials == [Data([0xFB, 0xFF])])
        let request = try PublicKeyCredentialRequestOptions(json: [
            "challenge": "AQID", "allowCredentials": [["id": "AQJ="]],
        ])
        #expect(request.challenge == Data([1, 2, 3]) && request.allowCredentials == [Data([1, 2])])
    }

    @Test("malformed base64url is still a typed error, never a silently dropped credential")
    func malformed() throws {
        for bad in ["A", "A=B", "!!!!", "AQ==x", "AQID=="] {
            let options: JSONValue = ["challenge": "AQID", "allowCredentials": [["id": .string(bad)]]]
            #expect(throws: WebAuthnError.self, "\(bad)") { try PublicKeyCredentialRequestOptions(json: options) }
        }
        #expect(throws: WebAuthnError.self) { try PublicKeyCredentialRequestOptions(json: ["challenge": "*"]) }
        let assertion: JSONValue = [
            "id": "AQID", "rawId": "AQID", "type": "public-key",
            "response": [
                "clientDataJSON": "e30", "authenticatorData": "AQID", "signature": "AQID", "userHandle": "not base64!",
            ],
        ]
        #expect(throws: WebAuthnError.self) { try AuthenticationResponse(json: assertion) }
        // Strict decoding elsewhere is unchanged: non-zero unused bits are refused there.
        #expect(Base64URL.decode("AQJ") == nil && Base64URL.decode("AQI") == [1, 2])
    }
}
