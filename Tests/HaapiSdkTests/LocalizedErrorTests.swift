import Foundation
@_spi(Tooling) import HaapiSdk
import Testing

/// Issue 13, item 3: `localizedDescription` is a specific sentence for every SDK error, on Linux as on
/// Apple platforms, while `HaapiError` keeps the seed's `IdsvrError` shape.
@Suite("Errors a person can read")
struct LocalizedErrorTests {
    static let generic = "The operation could not be completed"

    static func expectSentence(
        _ error: any Error, contains detail: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let text = error.localizedDescription
        #expect(
            !text.contains(generic) && !text.contains("error 0") && !text.contains("Domain="), "\(text)",
            sourceLocation: sourceLocation)
        #expect(text.contains(detail), "\(text)", sourceLocation: sourceLocation)
        #expect(text.first?.isUppercase == true && text.hasSuffix("."), "\(text)", sourceLocation: sourceLocation)
    }

    @Test("HaapiError: the description, failure reason, recovery and cause reach NSError; predicates")
    func haapiError() throws {
        let cause = TransportError.answerLost("reset")
        let error = HaapiError.communication(message: "no answer", cause: cause)
        Self.expectSentence(error, contains: "Communication with the server failed: no answer")
        let bridged = error as NSError
        #expect(bridged.localizedFailureReason == error.failureReason)
        #expect(bridged.localizedRecoverySuggestion == "Try again.")
        #expect(
            (bridged.userInfo[NSUnderlyingErrorKey] as? NSError)?.localizedDescription.contains(
                "before the server's answer came")
                == true)
        // No connection, or no answer in time: the network or the server needs a moment.
        for slow in [TransportError.timedOut(after: 5), .couldNotConnect("refused")] {
            let waiting = HaapiError.communication(message: "x", cause: slow) as NSError
            #expect(waiting.localizedRecoverySuggestion == "Try again in a moment.")
        }
        #expect(bridged.domain == "HaapiSdk.HaapiError")
        // The seed's shape is untouched.
        #expect(error.error == "communication" && error.recoverySuggestion == .retryable(condition: .immediately))
        #expect(error.isRetryable && error.isNetworkError && !error.isDPoPNonceRequired && !error.requiresNewFlow)
        let nonce = HaapiError.serverError(error: "use_dpop_nonce", errorDescription: "", statusCode: 400)
        #expect(nonce.isDPoPNonceRequired && nonce.isRetryable)
        let closed = HaapiError.haapiTokenManagerIsClosed
        #expect(closed.requiresNewFlow && !closed.isRetryable)
        Self.expectSentence(
            HaapiError.invalidConfiguration(reason: "no client id"), contains: "Invalid configuration: no client id")
    }

    @Test("the driver's and the model's own errors")
    func otherErrors() throws {
        Self.expectSentence(
            TransportError.couldNotConnect("refused"), contains: "The server could not be reached: refused")
        Self.expectSentence(
            TransportError.answerLost("reset"),
            contains:
                "The connection was lost before the server's answer came (reset); the server may have acted on the request."
        )
        Self.expectSentence(TransportError.timedOut(after: 30), contains: "The server did not answer within 30 s.")
        Self.expectSentence(JOSEError.invalidSignature, contains: "the signature does not verify")
        Self.expectSentence(StorageError.corrupted(key: "tokens"), contains: "\"tokens\"")
        do {
            _ = try HaapiDecoder().decode(Array("{".utf8))
            Issue.record("a broken body decoded")
        } catch {
            Self.expectSentence(error, contains: "The server's response could not be read")
        }
        Self.expectSentence(HaapiRequestBuildingError.invalidHref("::"), contains: "The form could not be submitted")
    }
}
