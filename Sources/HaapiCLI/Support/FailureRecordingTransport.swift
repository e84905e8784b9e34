import Foundation
import HaapiDriver

/// A transport that remembers the last exchange that produced no response, for the commands whose client
/// library folds that into its own error (the passkey RP client says "not allowed: the RP cannot be
/// reached"): the command can then report it as the unreachable server it is, with its exit code.
final class FailureRecordingTransport: HTTPTransport, Sendable {
    private let base: any HTTPTransport
    private let failure = LockedValue<TransportError?>(nil)

    /// The last failure, if any exchange failed.
    var lastFailure: TransportError? { failure.get() }

    init(_ base: any HTTPTransport) {
        self.base = base
    }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        do {
            return try await base.send(request)
        } catch {
            failure.set(error)
            throw error
        }
    }
}
