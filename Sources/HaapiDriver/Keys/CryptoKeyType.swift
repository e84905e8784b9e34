import Foundation

/// Where a DPoP or attestation key lives.
public enum CryptoKeyType: String, Sendable, CaseIterable {
    /// P-256 in the Secure Enclave: the private key never leaves the hardware. Apple devices only.
    case secureEnclave
    /// P-256 in software (swift-crypto); persisted, when asked, through a `Storage`.
    case p256

    /// Whether this platform can make keys of this type.
    public var isAvailable: Bool {
        switch self {
        case .p256: true
        case .secureEnclave: SecureEnclaveSigningKey.isAvailable
        }
    }
}

/// Makes and reloads device keys by name, so a key bound to tokens survives a restart.
public struct DeviceKeyStore: Sendable {
    /// Where keys are kept.
    public let storage: any Storage
    /// The kind of key a new key is.
    public let keyType: CryptoKeyType

    /// A key store in `storage` that makes keys of `keyType`.
    public init(storage: any Storage, keyType: CryptoKeyType = .p256) {
        self.storage = storage
        self.keyType = keyType
    }

    /// A fresh key that is not stored: for keys that live as long as one HAAPI session.
    public static func ephemeralKey(_ keyType: CryptoKeyType) throws(HaapiError) -> any SigningKey {
        switch keyType {
        case .p256: return SoftwareP256SigningKey()
        case .secureEnclave:
            do { return try SecureEnclaveSigningKey() } catch { throw .dpopKeyCreationFailure(cause: error) }
        }
    }

    /// The key stored under `name`, or a new one stored there. A stored value that cannot be opened is an
    /// error, never silently replaced: the tokens bound to the old key would stop working unnoticed.
    public func loadOrCreate(name: String) throws(HaapiError) -> any SigningKey {
        if let stored = try load(name: name) { return stored }
        let storageKey = "dpop-key." + name + "." + keyType.rawValue
        let key: any SigningKey
        let data: Data
        switch keyType {
        case .p256:
            let software = SoftwareP256SigningKey()
            key = software
            data = Data(software.privateJWK.jsonString.utf8)
        case .secureEnclave:
            do {
                let hardware = try SecureEnclaveSigningKey()
                key = hardware
                data = hardware.dataRepresentation
            } catch {
                throw .dpopKeyCreationFailure(cause: error)
            }
        }
        do { try storage.write(data, key: storageKey) } catch {
            HaapiLogger.error(DriverFollowUpTag.storage, "cannot store the new DPoP key \(storageKey): \(error)")
            throw .dpopKeyCreationFailure(cause: error)
        }
        HaapiLogger.info(DriverFollowUpTag.storage, "stored a new \(keyType.rawValue) DPoP key as \(storageKey)")
        return key
    }

    /// The key stored under `name`, or nil when there is none (nothing is created). An unreadable stored
    /// value is an error, as in `loadOrCreate`.
    public func load(name: String) throws(HaapiError) -> (any SigningKey)? {
        let storageKey = "dpop-key." + name + "." + keyType.rawValue
        let stored: Data?
        do { stored = try storage.read(key: storageKey) } catch {
            HaapiLogger.error(DriverFollowUpTag.storage, "cannot read the DPoP key \(storageKey): \(error)")
            throw .dpopKeyCreationFailure(cause: error)
        }
        guard let stored else {
            HaapiLogger.debug(DriverFollowUpTag.storage, "no DPoP key stored as \(storageKey)")
            return nil
        }
        HaapiLogger.debug(DriverFollowUpTag.storage, "read the DPoP key \(storageKey)")
        do {
            switch keyType {
            case .p256:
                return try SoftwareP256SigningKey(jwk: try JWK(jsonString: String(decoding: stored, as: UTF8.self)))
            case .secureEnclave: return try SecureEnclaveSigningKey(dataRepresentation: stored)
            }
        } catch {
            throw .dpopKeyCreationFailure(cause: error)
        }
    }

    /// Deletes the key of that name, if there is one.
    public func delete(name: String) throws(HaapiError) {
        let storageKey = "dpop-key." + name + "." + keyType.rawValue
        do { try storage.delete(key: storageKey) } catch {
            HaapiLogger.error(DriverFollowUpTag.storage, "cannot delete the DPoP key \(storageKey): \(error)")
            throw .dpopKeyCreationFailure(cause: error)
        }
        HaapiLogger.info(DriverFollowUpTag.storage, "deleted the DPoP key \(storageKey)")
    }
}
