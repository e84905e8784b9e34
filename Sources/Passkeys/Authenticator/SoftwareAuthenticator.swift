import Crypto
import Foundation
@_spi(Tooling) import HaapiDriver

/// A passkey authenticator in software: P-256 discoverable credentials kept in a `Storage`, a signature
/// counter, a policy for the user-presence and user-verification flags, and "none" or "packed" self
/// attestation. For Linux, CI and tests; it proves possession of a key, nothing about the device.
public actor SoftwareAuthenticator: WebAuthnAuthenticator {
    /// The attestation statement a new credential comes with: none, or a self-signed `packed` statement.
    public enum Attestation: String, Sendable {
        /// No attestation statement (`fmt` `none`).
        case none
        /// A self-signed `packed` statement.
        case packed
    }

    /// The flags and attestation the authenticator reports, so tests can play an authenticator that does less.
    public struct Policy: Sendable {
        /// Whether assertions and registrations report the user as present (the UP flag).
        public var userPresent = true
        /// Whether they report the user as verified (the UV flag).
        public var userVerified = true
        /// Whether new credentials are reported as eligible for backup (the BE flag).
        public var backupEligible = false
        /// The attestation of new credentials.
        public var attestation = Attestation.none
        /// A policy; by default the user is present and verified, nothing is backed up, and there is no attestation.
        public init(
            userPresent: Bool = true, userVerified: Bool = true, backupEligible: Bool = false,
            attestation: Attestation = .none
        ) {
            self.userPresent = userPresent
            self.userVerified = userVerified
            self.backupEligible = backupEligible
            self.attestation = attestation
        }
    }

    /// A stored credential. The private key never leaves the store except to sign.
    public struct Credential: Sendable, Equatable {
        /// The credential id.
        public let id: Data
        /// The relying party the credential belongs to.
        public let rpId: String
        /// The relying party's handle for the user.
        public let userHandle: Data
        /// The account name the credential was created for.
        public let userName: String
        let privateKey: Data
        /// How many signatures the credential has made; sent with each assertion.
        public internal(set) var signCount: UInt32

        var json: JSONValue {
            [
                "id": .string(Base64URL.encode(id)), "rpId": .string(rpId),
                "userHandle": .string(Base64URL.encode(userHandle)),
                "userName": .string(userName), "privateKey": .string(Base64URL.encode(privateKey)),
                "signCount": .number(JSONNumber(Int(signCount))),
            ]
        }

        init(id: Data, rpId: String, userHandle: Data, userName: String, privateKey: Data, signCount: UInt32) {
            self.id = id
            self.rpId = rpId
            self.userHandle = userHandle
            self.userName = userName
            self.privateKey = privateKey
            self.signCount = signCount
        }

        init?(json: JSONValue) {
            guard let id = json["id"]?.stringValue.flatMap(Base64URL.decodeLenient),
                let rpId = json["rpId"]?.stringValue,
                let handle = json["userHandle"]?.stringValue.flatMap(Base64URL.decodeLenient),
                let key = json["privateKey"]?.stringValue.flatMap(Base64URL.decodeLenient),
                let count = json["signCount"]?.numberValue?.intValue, count >= 0
            else { return nil }
            self.init(
                id: id, rpId: rpId, userHandle: handle, userName: json["userName"]?.stringValue ?? "", privateKey: key,
                signCount: UInt32(clamping: count))
        }
    }

    /// The authenticator model id: all zeros, as for an authenticator that does not attest its model.
    public static let aaguid = Data(repeating: 0, count: 16)
    private let storage: any Storage
    private let storageKey: String
    /// What the authenticator reports from now on.
    public var policy: Policy

    /// An authenticator whose credentials are kept in `storage` under `storageKey`.
    public init(storage: any Storage, storageKey: String = "passkeys.credentials", policy: Policy = Policy()) {
        self.storage = storage
        self.storageKey = storageKey
        self.policy = policy
    }

    /// Changes what the authenticator reports from now on.
    public func setPolicy(_ policy: Policy) { self.policy = policy }

    /// The stored credentials; throws `.storage` when the store cannot be read.
    public func credentials() throws(WebAuthnError) -> [Credential] {
        let data: Data?
        do { data = try storage.read(key: storageKey) } catch { throw .storage("\(error)") }
        guard let data else { return [] }
        guard let array = try? JSONParser().parse(data).arrayValue else {
            throw .storage("the credential store is not a JSON array")
        }
        return array.compactMap(Credential.init(json:))
    }

    private func save(_ credentials: [Credential]) throws(WebAuthnError) {
        do {
            try storage.write(Data(JSONValue.array(credentials.map(\.json)).serialized().utf8), key: storageKey)
        } catch {
            throw .storage("\(error)")
        }
    }

    private var flags: AuthenticatorData.Flags {
        var flags: AuthenticatorData.Flags = []
        if policy.userPresent { flags.insert(.userPresent) }
        if policy.userVerified { flags.insert(.userVerified) }
        if policy.backupEligible { flags.formUnion([.backupEligible, .backedUp]) }
        return flags
    }

    public func register(
        _ options: PublicKeyCredentialCreationOptions, origin: String
    ) throws(WebAuthnError) -> RegistrationResponse {
        try OriginPolicy.check(rpId: options.rpId, origin: origin)
        guard options.algorithms.isEmpty || options.algorithms.contains(COSEKey.Algorithm.es256) else {
            throw .notAllowed("the RP accepts none of this authenticator's algorithms (ES256)")
        }
        if options.userVerification == "required", !policy.userVerified {
            throw .notAllowed("user verification is required")
        }
        var stored = try credentials()
        if stored.contains(where: { $0.rpId == options.rpId && options.excludeCredentials.contains($0.id) }) {
            throw .notAllowed("a credential in excludeCredentials is already on this authenticator")
        }
        let key = P256.Signing.PrivateKey()
        let credentialID = Data(SecureRandom.bytes(32))
        let clientData = CollectedClientData(type: "webauthn.create", challenge: options.challenge, origin: origin).json
        let attestation = try Self.attestationObject(
            rpId: options.rpId, privateKey: key, credentialID: credentialID, aaguid: Self.aaguid, flags: flags,
            clientDataJSON: clientData, format: policy.attestation)
        // A discoverable credential replaces an older one for the same account at the same RP.
        stored.removeAll { $0.rpId == options.rpId && $0.userHandle == options.userID }
        stored.append(
            Credential(
                id: credentialID, rpId: options.rpId, userHandle: options.userID, userName: options.userName,
                privateKey: key.rawRepresentation, signCount: 0))
        try save(stored)
        return RegistrationResponse(
            credentialID: credentialID, clientDataJSON: clientData, attestationObject: attestation.encoded)
    }

    public func authenticate(
        _ options: PublicKeyCredentialRequestOptions, origin: String
    ) throws(WebAuthnError) -> AuthenticationResponse {
        guard let rpId = options.rpId ?? URL(string: origin)?.host else { throw .notAllowed("no RP ID") }
        try OriginPolicy.check(rpId: rpId, origin: origin)
        if options.userVerification == "required", !policy.userVerified {
            throw .notAllowed("user verification is required")
        }
        var stored = try credentials()
        let candidates = stored.indices.filter {
            stored[$0].rpId == rpId
                && (options.allowCredentials.isEmpty || options.allowCredentials.contains(stored[$0].id))
        }
        guard let index = candidates.last else { throw .notAllowed("no credential for \(rpId) on this authenticator") }
        stored[index].signCount += 1
        let credential = stored[index]
        try save(stored)
        let authenticatorData = AuthenticatorData(rpId: rpId, flags: flags, signCount: credential.signCount)
        let clientData = CollectedClientData(type: "webauthn.get", challenge: options.challenge, origin: origin).json
        let signature = try Self.sign(
            authenticatorData.raw + Data(SHA256.hash(data: clientData)), with: credential.privateKey)
        return AuthenticationResponse(
            credentialID: credential.id, clientDataJSON: clientData, authenticatorData: authenticatorData.raw,
            signature: signature, userHandle: credential.userHandle)
    }

    /// The attestation object for a new credential. Deterministic apart from the "packed" signature, so the
    /// W3C test vectors can check the bytes.
    public static func attestationObject(
        rpId: String, privateKey: P256.Signing.PrivateKey, credentialID: Data, aaguid: Data,
        flags: AuthenticatorData.Flags, clientDataJSON: Data, format: Attestation
    ) throws(WebAuthnError) -> AttestationObject {
        let credential = AuthenticatorData.AttestedCredential(
            aaguid: aaguid, credentialID: credentialID, publicKey: COSEKey(p256: privateKey.publicKey))
        let authenticatorData = AuthenticatorData(
            rpId: rpId, flags: flags, signCount: 0, attestedCredential: credential)
        switch format {
        case .none:
            return AttestationObject(format: "none", statement: .map([]), authenticatorData: authenticatorData)
        case .packed:
            // Self attestation: the credential key signs authData ‖ SHA-256(clientDataJSON); no certificate chain.
            let signature = try sign(
                authenticatorData.raw + Data(SHA256.hash(data: clientDataJSON)), with: privateKey.rawRepresentation)
            return AttestationObject(
                format: "packed",
                statement: .map([
                    CBORMapEntry("alg", .int(COSEKey.Algorithm.es256)), CBORMapEntry("sig", .bytes(signature)),
                ]),
                authenticatorData: authenticatorData)
        }
    }

    static func sign(_ data: Data, with rawKey: Data) throws(WebAuthnError) -> Data {
        do {
            return try P256.Signing.PrivateKey(rawRepresentation: rawKey).signature(for: data).derRepresentation
        } catch {
            throw .storage("a stored key cannot sign: \(error)")
        }
    }
}
