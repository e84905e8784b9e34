import Foundation
import HTTPTypes

/// Services that answer clients in nonce mode put the current DPoP nonce on their responses.
protocol NonceAdvertising {
    var nonces: DPoPNonceService { get }
    var clock: @Sendable () -> Date { get }
}

extension NonceAdvertising {
    /// Headers that carry the current DPoP nonce to clients in nonce mode.
    func nonceHeaders(for client: ResolvedClient?) async -> HTTPFields {
        guard let client, client.configuration.dpopNonce else { return [:] }
        return [.dpopNonce: await nonces.nonce(now: clock())]
    }
}
