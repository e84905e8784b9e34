import Crypto
import Foundation
import FuzzSupport

@testable import HaapiServer

// The dev server's own ES256 check (P256TableVerifier) against BoringSSL's, on the fuzzer's inputs: a
// digest and a signature taken as they come, or a real signature of the digest with bits of the input
// flipped, or a public key from the input. Any difference in the answer is a failure.
//
// Input: byte 0 picks the mode, then 32 bytes of digest, 64 of signature (or of XOR mask), 64 of key.

private let privateKey = (try? P256.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 7, count: 32)))
private let tables: P256TableVerifier? = privateKey.flatMap { key in
    let point = key.publicKey.x963Representation
    return P256TableVerifier(x: point.dropFirst().prefix(32), y: point.suffix(32))
}

/// A SHA-256-sized digest with the fuzzer's bytes, so that BoringSSL checks exactly what ours checks.
private struct RawDigest: Digest {
    static let byteCount = 32
    let bytes: [UInt8]
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }
    func makeIterator() -> IndexingIterator<[UInt8]> { bytes.makeIterator() }
    var description: String { "\(bytes)" }
}

private func boringSSL(_ key: P256.Signing.PublicKey, _ signature: [UInt8], _ digest: [UInt8]) -> Bool {
    guard let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
    return key.isValidSignature(parsed, for: RawDigest(bytes: digest))
}

func testOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzInput(start, count)
    guard bytes.count >= 97, let privateKey, let tables else { return 0 }
    let digest = Array(bytes[1..<33])
    let field = Array(bytes[33..<97])
    switch bytes[0] % 3 {
    case 0:
        if tables.isValidSignature(field, digest: digest) != boringSSL(privateKey.publicKey, field, digest) {
            fuzzFailure("the table verifier and BoringSSL disagree on a signature from the input")
        }
    case 1:
        guard let signature = try? privateKey.signature(for: RawDigest(bytes: digest)) else { return 0 }
        let flipped = zip([UInt8](signature.rawRepresentation), field).map { $0 ^ $1 }
        if tables.isValidSignature(flipped, digest: digest) != boringSSL(privateKey.publicKey, flipped, digest) {
            fuzzFailure("the table verifier and BoringSSL disagree on a real signature with bits flipped")
        }
    default:
        guard bytes.count >= 161 else { return 0 }
        let key = Array(bytes[97..<161])
        let ours = P256Affine(x: key.prefix(32), y: key.suffix(32))
        let theirs = try? P256.Signing.PublicKey(x963Representation: [4] + key)
        if (ours == nil) != (theirs == nil) { fuzzFailure("the table verifier and BoringSSL disagree on a key") }
    }
    return 0
}

@_cdecl("P256VerifierFuzzer_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, testOneInput)
}
