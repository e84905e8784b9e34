import Foundation
import FuzzSupport
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel

@testable import HaapiServer

/// The verifier's claim checks on a proof whose signature is good: the input is the proof's payload (a JSON
/// object when it parses as one, otherwise claims made of its bytes, `iat` anywhere in Int's range), signed
/// with a fresh key, and verified as the token endpoint would with or without a nonce, an access token and a
/// bound key. Never a crash (an `iat` near Int.max once trapped in the refusal's words); a proof accepted is one
/// RFC 9449 accepts: this request's method and URL, inside the window, by the key that signed it.
func testOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzInput(start, count)
    let url = "http://localhost:8080/oauth/token"
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let flags = bytes.first ?? 0
    let payload: Data
    if (try? JSONParser().parse(Data(bytes)))?.objectValue != nil {
        payload = Data(bytes)
    } else {
        var iat = 0
        for byte in bytes.prefix(8) { iat = iat << 8 | Int(byte) }
        let text = String(decoding: bytes.dropFirst(min(8, bytes.count)), as: UTF8.self)
        let claims: JSONValue = [
            "jti": .string(text), "htm": flags & 8 == 0 ? "POST" : .string(text),
            "htu": flags & 16 == 0 ? .string(url) : .string(text), "iat": .number(JSONNumber(iat)),
            "nonce": .string(text), "ath": .string(text),
        ]
        payload = Data(claims.serialized().utf8)
    }
    let key = SoftwareP256SigningKey()
    let header: JSONValue = ["typ": "dpop+jwt", "alg": "ES256", "jwk": key.publicJWK.json]
    let signingInput = Base64URL.encode(Data(header.serialized().utf8)) + "." + Base64URL.encode(payload)
    guard let signature = try? key.signature(for: Data(signingInput.utf8)) else { return 0 }
    let proof = signingInput + "." + Base64URL.encode(signature)
    let verifier = DPoPVerifier(
        algorithms: [.es256], iatWindow: 60, nonces: DPoPNonceService(rotationInterval: 300, now: now),
        replayCache: ProofReplayFilter(window: 60, proofsPerSecond: 16))
    let outcome = LockedBox<Result<DPoPProof, DPoPFailure>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        do throws(DPoPFailure) {
            let verified = try await verifier.verify(
                headerValues: [proof], method: "POST", requestURL: url, accessToken: flags & 2 == 0 ? nil : "at",
                boundJKT: flags & 4 == 0 ? nil : key.thumbprint, requireNonce: flags & 1 == 1, now: now)
            outcome.set(.success(verified))
        } catch {
            outcome.set(.failure(error))
        }
        done.signal()
    }
    done.wait()
    switch outcome.get() {
    case .success(let verified)?:
        // Compared without arithmetic on the client's iat, which may be any Int.
        guard verified.htm == "POST", DPoPVerifier.sameResource(verified.htu, url),
            (1_800_000_000 - 60...1_800_000_000 + 60).contains(verified.iat), verified.thumbprint == key.thumbprint
        else { fuzzFailure("a proof was accepted that RFC 9449 §4.3 refuses") }
    case .failure(let failure)?:
        // The refusal's words and rule, as the log line and the client get them.
        _ = (failure.description, failure.errorCode, failure.rule, failure.detail)
    case nil:
        fuzzFailure("the verifier did not finish")
    }
    return 0
}

@_cdecl("DPoPVerifierFuzzer_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, testOneInput)
}

/// One value handed from the verifier's task to the harness's thread.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func set(_ new: Value) {
        lock.lock()
        value = new
        lock.unlock()
    }

    func get() -> Value {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}
