import Crypto
import Foundation
import FuzzSupport
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
import NIOCore

@testable import HaapiServer

// What the server parses of a request's credentials: the compact JWS parser, the DPoP proof parser the
// verifier runs (with every algorithm it may accept), the JWK in a proof's header, the htu normalisation, a
// form body as received (bytes), Basic credentials, the browser page's cookie and CSP form-action sources, and
// the App Attest policy's challenge response, attestation object (CBOR, X.509) and assertion; and what a
// refusal makes of the request (the rule of an unparsable proof, the URL and values on the log line, the rule id
// the SDK reads back, the inspector's page of the exchange); and the SDK's reading of a `Retry-After`.
// Never a crash; a proof that parses has a key thumbprint; a form that parses encodes back to the same pairs;
// no assertion of random bytes verifies.
func testOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzInput(start, count)
    let text = String(decoding: bytes, as: UTF8.self)
    if let wait = ServerUnavailable.retryAfter(text), !(wait >= 0) {
        fuzzFailure("a Retry-After read as a negative or NaN wait")
    }
    if let pairs = bytes.withUnsafeBufferPointer({ FormURLEncoding.decode(utf8: $0) }) {
        let again = FormURLEncoding.decode(FormURLEncoding.encode(pairs))
        guard let again, again.elementsEqual(pairs, by: { $0.name == $1.name && $0.value == $1.value }) else {
            fuzzFailure("a decoded form does not survive encoding")
        }
    }
    if let credentials = ClientAuthenticator.basicCredentials(text),
        Data(credentials.utf8).base64EncodedString() != HTTP.trimmingOWS(text)
    {
        fuzzFailure("Basic credentials accepted from a non-canonical encoding")
    }
    if let jws = try? CompactJWS(parsing: text) {
        _ = try? jws.payloadObject()
        if let jwk = jws.header["jwk"] { _ = try? JWK(json: jwk) }
    }
    if let proof = try? DPoPProof(parsing: text, allowedAlgorithms: Set(JWSAlgorithm.allCases.filter(\.isAsymmetric))) {
        guard !proof.thumbprint.isEmpty else { fuzzFailure("a parsed proof without a thumbprint") }
        _ = DPoPVerifier.normalized(proof.htu)
    }
    _ = DPoPVerifier.normalized(text)
    refusalDetails(text, bytes)
    // The sign-in page's cookie, read from a Cookie field; a redirect URI (a dynamic client registers its
    // own) made into a CSP source, which must never carry a separator that starts another source or directive.
    _ = BrowserFormGuard.cookie(inFields: [text])
    if let source = FormTargetSource.source(for: text),
        source.contains(where: { $0 == ";" || $0 == "," || $0 == "'" || $0.isWhitespace })
    {
        fuzzFailure("a redirect URI made a CSP source that can end the directive")
    }
    if case .success(let response) = AppAttestation.parse(text), response.jkt.utf8.count != 43 {
        fuzzFailure("an App Attest response accepted with a jkt that is not a thumbprint")
    }
    let data = Data(bytes)
    if case .success(let parsed) = AppAttestVerifier.parseAttestationObject(data) {
        _ = AppAttestVerifier.certifiedNonce(parsed.leaf)
    }
    // A key made for this input (a global made on first use counts as a leak for the sanitizer).
    let key = AppAttestKey(
        keyID: "", publicKey: P256.Signing.PrivateKey().publicKey.x963Representation, appID: "ABCDE12345.a.b",
        signCount: 0)
    if case .success = AppAttestVerifier.verifyAssertion(data, clientDataHash: Data(count: 32), key: key) {
        fuzzFailure("random bytes verified as an App Attest assertion")
    }
    return 0
}

/// A refusal's words built from a client's input: one line, no markup the inspector would run.
func refusalDetails(_ text: String, _ bytes: [UInt8]) {
    _ = DPoPFailure.unparsed(text, error: JOSEError.invalidSignature, algorithms: [.es256]).detail
    let shown = MaskedText.url(text)
    guard shown.count <= 201 else { fuzzFailure("a URL on a log line is longer than its cut") }
    if RequestLogLine.clean(text).unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
        fuzzFailure("a control character survived on a log line")
    }
    if let id = ServerRuleID.parse(text),
        !id.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D || $0 == 0x2E })
    {
        fuzzFailure("a rule id read back with characters outside [a-z0-9.-]")
    }
    let buffer = ByteBuffer(bytes: bytes)
    let exchange = RecordedExchange(
        sequence: 1, time: Date(timeIntervalSince1970: 0), duration: 0, method: "POST", path: "/" + text,
        query: text, requestHeaders: [("Content-Type", "application/x-www-form-urlencoded"), ("DPoP", text)],
        requestBody: RecordedExchange.cut(buffer), status: 400, responseHeaders: [("Set-Cookie", text)],
        responseBody: RecordedExchange.cut(buffer), responseContentType: "application/json", clientID: text,
        refusal: Refusal(rule: .dpopMalformed, detail: text), proofKey: nil, issuedLink: nil, consumedLink: nil)
    let page = InspectorPages.section(exchange) + SequenceDiagram.svg([exchange])
    if page.markup.lowercased().contains("<script") {
        fuzzFailure("a request's bytes made markup on the inspector's page")
    }
}

@_cdecl("DPoPProofFuzzer_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, testOneInput)
}
