@_spi(Tooling) import HaapiDriver
import HaapiRules
import NIOCore

/// Why a request was refused: the rule, and what was expected against what came, in words that hold no
/// secret (``RequestTrace/refuse(_:_:)`` callers build them from URLs, times, ids and names, never tokens).
struct Refusal: Sendable, Equatable {
    let rule: Rule
    let detail: String?
}

/// What the handling of one request found out, for its log line and the inspector: the client it was for,
/// the rule it broke, the DPoP key it was made with (which ties a flow's requests together) and the bodies.
/// The request middleware binds one to ``current`` for the request's task; the shared checks and response
/// builders fill it from wherever they are, without a parameter through every call.
final class RequestTrace: Sendable {
    struct State: Sendable {
        var clientID: String?
        var refusal: Refusal?
        /// The RFC 7638 thumbprint of the request's verified DPoP key.
        var proofKey: String?
        /// A value this response hands out that a later request of the same flow brings back without a
        /// proof (the attestation challenge), and the one this request brought.
        var issuedLink: String?
        var consumedLink: String?
        var requestBody: ByteBuffer?
        var responseBody: ByteBuffer?
        var responseContentType: String?
        /// Form fields the step that asked for them declared secret (of type `password`), whatever their names.
        var secretFields: Set<String> = []
    }

    @TaskLocal static var current: RequestTrace?

    private let state = LockedValue(State())

    var snapshot: State { state.get() }

    func update(_ change: (inout State) -> Void) {
        state.withLock { change(&$0) }
    }

    /// Records the refusal of the current request (the latest one recorded is the one answered).
    static func refuse(_ rule: Rule, _ detail: String? = nil) {
        current?.update { $0.refusal = Refusal(rule: rule, detail: detail) }
    }

    /// Records the client the current request is for (a claimed id until the client is resolved).
    static func client(_ id: String) {
        current?.update { $0.clientID = id }
    }

    /// Marks fields of the current request as secret for the log and the inspector: the step that asked for
    /// them declared them of type `password`.
    static func secretFields(_ names: some Sequence<String>) {
        current?.update { $0.secretFields.formUnion(names) }
    }

    static func proofKey(_ thumbprint: String) {
        current?.update { $0.proofKey = thumbprint }
    }
}
