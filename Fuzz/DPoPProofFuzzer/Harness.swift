import Foundation
import FuzzSupport
import HaapiDriver

@testable import HaapiServer

// What the server parses of a DPoP header and of a client's JWS: the compact JWS parser, the DPoP proof
// parser the verifier runs (with every algorithm it may accept), the JWK in a proof's header and the htu
// normalisation. Never a crash; a proof that parses has a key thumbprint.
func testOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = String(decoding: fuzzInput(start, count), as: UTF8.self)
    if let jws = try? CompactJWS(parsing: text) {
        _ = try? jws.payloadObject()
        if let jwk = jws.header["jwk"] { _ = try? JWK(json: jwk) }
    }
    if let proof = try? DPoPProof(parsing: text, allowedAlgorithms: Set(JWSAlgorithm.allCases.filter(\.isAsymmetric))) {
        guard !proof.thumbprint.isEmpty else { fuzzFailure("a parsed proof without a thumbprint") }
        _ = DPoPVerifier.normalized(proof.htu)
    }
    _ = DPoPVerifier.normalized(text)
    return 0
}

@_cdecl("DPoPProofFuzzer_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, testOneInput)
}
