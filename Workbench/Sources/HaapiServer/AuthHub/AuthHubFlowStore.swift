@_spi(Tooling) import AuthHub
import Crypto
import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
import _CryptoExtras

/// One Authentication Hub flow on the dev server.
struct AuthHubFlow: Sendable {
    let id: String
    let tenant: String
    let clientID: String
    let subject: String
    /// Nil when the subject names no account: the flow goes on, so answers do not reveal which accounts exist.
    let username: String?
    let expiresAt: Date
    /// The nonce exchange named at `/authenticate`; nonce-bound fields of this flow must match it.
    var exchange: AHNonceExchange?
    var nextAction: String
    /// The one flow-state id that is valid now; every accepted request replaces it.
    var currentStateID: String
    var failures = 0
    var methods: [String] = []
    var emailCredential: String?
    var otp: (codeHash: String, expiresAt: Date)?
    var fidoChallenge: Data?
    var fidoUserHandle: Data?
}

/// Why a flow state was refused (research A.3): unreadable or foreign (`0000010`), or stale, replayed,
/// expired or out of order (`0000011`).
enum AuthHubFlowStateError: Error {
    case invalid
    case notIntended
}

/// The live flows and the key that seals their states. A flow state is
/// `base64url(AES-256-GCM(key, {"f": flow id, "s": state id, "t": tenant}))`: opaque to clients, useless after
/// one request, and bound to its tenant.
actor AuthHubFlowStore {
    private let key = SymmetricKey(size: .bits256)
    /// Bounded and expiring: `/authenticate` is reachable with a client token alone.
    private var flows = ExpiringStore<String, AuthHubFlow>(capacity: 10_000)
    private var tenantKeyDecryptor: AHFieldDecryptor?
    private static let aad = Data("swift-haapi authhub flow-state v1".utf8)

    /// The tenant key's server half, made on first use (RSA key generation takes a moment).
    func decryptor() throws -> AHFieldDecryptor {
        if let tenantKeyDecryptor { return tenantKeyDecryptor }
        let made = try AHFieldDecryptor.withNewTenantKey()
        tenantKeyDecryptor = made
        return made
    }

    /// Stores a new flow and returns its first state.
    func begin(_ flow: AuthHubFlow, now: Date) -> String {
        flows.set(flow, for: flow.id, expiresAt: flow.expiresAt, now: now)
        return seal(flow)
    }

    /// Checks a presented state and spends it: the flow gets a new state id, so the same value is refused
    /// next time. `allowed` lists the `nextaction` values the called endpoint answers.
    func take(
        _ state: String, tenant: String, allowed: Set<String>, now: Date
    ) throws(AuthHubFlowStateError) -> AuthHubFlow {
        guard let bytes = Base64URL.decode(state), let box = try? AES.GCM.SealedBox(combined: Data(bytes)),
            let opened = try? AES.GCM.open(box, using: key, authenticating: Self.aad),
            let fields = (try? JSONSerialization.jsonObject(with: opened)) as? [String: String],
            let flowID = fields["f"], let stateID = fields["s"], fields["t"] == tenant
        else { throw .invalid }
        guard var flow = flows.value(for: flowID, now: now), flow.currentStateID == stateID,
            allowed.contains(flow.nextAction)
        else {
            throw .notIntended
        }
        flow.currentStateID = UUID().uuidString
        let spent = flow.currentStateID
        flows.update(flowID, now: now) { $0.currentStateID = spent }
        return flow
    }

    /// Saves the flow after a step and returns the state the client sends next.
    func advance(_ flow: AuthHubFlow) -> String {
        flows.update(flow.id, now: .distantPast) { $0 = flow }
        return seal(flow)
    }

    func finish(_ flowID: String) {
        flows.remove(flowID, now: .distantPast)
    }

    var count: Int { flows.count }

    private func seal(_ flow: AuthHubFlow) -> String {
        let fields = ["f": flow.id, "s": flow.currentStateID, "t": flow.tenant]
        guard let plain = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]),
            let combined = try? AES.GCM.seal(plain, using: key, authenticating: Self.aad).combined
        else { return "" }
        return Base64URL.encode(combined)
    }
}
