import Foundation

/// Proves to the server that the app runs on a genuine device: it answers the CAT challenge with an
/// attestation that binds `key`, the key that will sign the DPoP proofs.
public protocol Attester: Sendable {
    /// Whether this device can attest at all. `false` makes the token manager fail with
    /// `HaapiError.attestationNotSupported` without contacting the server, so the DCR fallback can run.
    var isSupported: Bool { get }
    /// The `challenge_response` for `challenge`.
    func attest(challenge: String, clientId: String, key: any SigningKey) async throws -> String
    /// Told that the server refused the last `challenge_response`; returns whether an immediate second
    /// attempt (with a new challenge) may succeed because the attester will answer differently.
    func serverRefused() -> Bool
}

extension Attester {
    /// Attesters that answer every challenge the same way gain nothing from a retry.
    public func serverRefused() -> Bool { false }
}

/// Whether and how hard the SDK tries attestation.
public struct AttestationConfiguration: Sendable, Equatable {
    /// Whether the HAAPI token is obtained with client attestation (`true`, the default) or with the client's own
    /// credentials.
    public let useAttestation: Bool
    /// How many times a failed attestation (not a refusal) is retried before giving up.
    public let attestationMaxRetries: Int

    /// Attestation on or off, and how many times a refused or failed attestation is retried before the error is
    /// returned.
    public init(useAttestation: Bool = true, attestationMaxRetries: Int = 3) {
        self.useAttestation = useAttestation
        self.attestationMaxRetries = max(0, attestationMaxRetries)
    }
}

/// The attestation the dev server's `software` policy verifies (docs/ATTESTATION.md): a JWS signed by the
/// DPoP key over the challenge, the client id and the time. It proves possession of the key, not the
/// integrity of the app, so production servers must not accept it.
public struct SoftwareAttester: Attester {
    /// The `typ` of the software attestation JWT.
    public static let attestationType = "haapi-attestation+jwt"
    private let clock: @Sendable () -> Date

    /// A software attester; `clock` dates the attestation (`iat`).
    public init(clock: @escaping @Sendable () -> Date = { Date() }) {
        self.clock = clock
    }

    public var isSupported: Bool { true }

    public func attest(challenge: String, clientId: String, key: any SigningKey) async throws -> String {
        try JWS.sign(
            claims: [
                "challenge": .string(challenge), "client_id": .string(clientId),
                "iat": .number(JSONNumber(Int(clock().timeIntervalSince1970))),
            ],
            header: ["typ": .string(Self.attestationType), "jwk": try key.publicJWK.publicKey().json],
            signer: key)
    }
}

/// The default attester for this platform: App Attest where DeviceCheck exists, the software attester
/// elsewhere (Linux, CI).
public func defaultAttester() -> any Attester {
    #if canImport(DeviceCheck) && os(iOS)
    AppAttestAttester()
    #else
    SoftwareAttester()
    #endif
}
