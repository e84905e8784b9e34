import Foundation
import FuzzSupport
@_spi(Tooling) import Passkeys

// The CBOR decoder and the WebAuthn binary parsers on top of it (attestation objects, authenticator data,
// COSE keys): never a crash; and what the decoder accepts has one canonical encoding, which the strict
// decoder accepts and which encodes to the same bytes again (map order and float bits compared as bytes).
func testOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = Data(fuzzInput(start, count))
    _ = try? AttestationObject(parsing: data)
    _ = try? AuthenticatorData(parsing: data)
    guard let value = try? CBORDecoder().decode(data) else { return 0 }
    _ = try? COSEKey(cbor: value)
    let encoded = CBOREncoder.encode(value)
    guard let again = try? CBORDecoder(requireCanonical: true).decode(encoded) else {
        fuzzFailure("the canonical encoding of a decoded value was refused")
    }
    guard CBOREncoder.encode(again) == encoded else { fuzzFailure("the canonical encoding is not stable") }
    return 0
}

@_cdecl("CBORFuzzer_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, testOneInput)
}
